import { bytesToHex } from '@blake3-web/core';
import { escapeName } from './escape-name.js';
import { osErrorReason } from './os-error.js';
import { parsePublishCommandLine, PUBLISH_HELP, PUBLISH_USAGE, PublishUsageError } from './publish-args.js';
import { publishFile } from './publish-file.js';

const NAME = 'b3web-publish';
const VERSION = '0.1.0';

export type PublishIo = { out(text: string): void; err(text: string): void };

const processIo: PublishIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/**
 * Runs `b3web-publish` with `argv` (the arguments after the script) and resolves to its exit
 * status: 0, 1 when a file could not be published (the others still are), 2 for a usage error.
 */
export async function publishMain(
  argv: readonly string[] = process.argv.slice(2),
  io: PublishIo = processIo,
): Promise<number> {
  let parsed;
  try {
    parsed = parsePublishCommandLine(argv);
  } catch (err) {
    if (!(err instanceof PublishUsageError)) throw err;
    io.err(`error: ${err.message}\n\n${PUBLISH_USAGE}\n\nFor more information, try '--help'.\n`);
    return 2;
  }
  if (parsed.kind === 'help') return (io.out(PUBLISH_HELP), 0);
  if (parsed.kind === 'version') return (io.out(`${NAME} ${VERSION}\n`), 0);
  const { files, ...opts } = parsed.args;
  let status = 0;
  for (const file of files) {
    try {
      const { root } = await publishFile(file, opts);
      // b3sum's line for the file, so the root can be checked with `b3sum --check`.
      const { text, escaped } = escapeName(file);
      io.out(`${escaped ? '\\' : ''}${bytesToHex(root)}  ${text}\n`);
    } catch (err) {
      io.err(`${NAME}: ${file}: ${osErrorReason(err)}\n`);
      status = 1;
    }
  }
  return status;
}
