// The command line of `b3web-publish`, a bin of its own: any word added to `b3web` (say
// `b3web publish f`) is a file name to b3sum, so a subcommand would change what an existing
// command line means.
import { parseArgs } from 'node:util';

export type PublishArgs = {
  files: string[];
  chunkGroupLog: number;
  /** Absolute URLs where the files are served (one ending with `/` is a directory). */
  sources: URL[];
  /** Where the outboards and manifests go; beside each file when absent. */
  outDir: string | undefined;
  manifest: boolean;
};

export type PublishCommandLine = { kind: 'run'; args: PublishArgs } | { kind: 'help' } | { kind: 'version' };

/** A command line that cannot run: the tool prints the message and exits with status 2. */
export class PublishUsageError extends Error {
  override name = 'PublishUsageError';
}

/** The default: 16 KiB groups, an outboard of 1/256 of the content. */
export const DEFAULT_CHUNK_GROUP_LOG = 4;
/** Groups of up to 2^16 chunks (64 MiB), the largest the Bao readers of this project take. */
const MAX_CHUNK_GROUP_LOG = 16;

export const PUBLISH_USAGE = 'Usage: b3web-publish [OPTIONS] <FILE>...';

export const PUBLISH_HELP: string = `${PUBLISH_USAGE}

Writes, for each FILE, what a verified download of it needs: FILE.obao (its Bao outboard)
and FILE.manifest.json (its BLAKE3 root, size, chunk group size and sources), and prints
its root as b3sum prints a hash. Memory stays bounded whatever the file's size.

Arguments:
  <FILE>...  Files to publish

Options:
      --chunk-group-log <N>  Chunk groups of 2^N chunks of 1 KiB [default: ${DEFAULT_CHUNK_GROUP_LOG}, 16 KiB;
                             0 is what \`bao encode --outboard\` writes; at most ${MAX_CHUNK_GROUP_LOG}]
      --source <URL>         Where FILE is served, listed in the manifest; repeat for mirrors.
                             A URL ending with / is a directory: FILE's name is appended
      --out-dir <DIR>        Write the outboards and manifests to DIR instead of beside each FILE
      --no-manifest          Write only the outboards
  -h, --help                 Print help
  -V, --version              Print version
`;

export function parsePublishCommandLine(argv: readonly string[]): PublishCommandLine {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'chunk-group-log': { type: 'string' },
        source: { type: 'string', multiple: true },
        'out-dir': { type: 'string' },
        'no-manifest': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    }));
  } catch (err) {
    throw new PublishUsageError((err as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (positionals.length === 0) throw new PublishUsageError('no FILE given');
  if (positionals.includes('-'))
    throw new PublishUsageError("'-' (standard input) cannot be published: the outboard is named after a file");

  let chunkGroupLog = DEFAULT_CHUNK_GROUP_LOG;
  const log = values['chunk-group-log'];
  if (log !== undefined) {
    if (!/^[0-9]+$/.test(log) || Number(log) > MAX_CHUNK_GROUP_LOG)
      throw new PublishUsageError(
        `--chunk-group-log must be an integer from 0 to ${MAX_CHUNK_GROUP_LOG}, got '${log}'`,
      );
    chunkGroupLog = Number(log);
  }

  const sources = (values.source ?? []).map((s) => {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      throw new PublishUsageError(`--source must be an absolute URL, got '${s}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new PublishUsageError(`--source must be an http: or https: URL, got '${s}'`);
    return url;
  });
  const single = sources.filter((u) => !u.href.endsWith('/'));
  if (single.length > 0 && positionals.length > 1)
    throw new PublishUsageError(
      `--source '${single[0].href}' names one file but ${positionals.length} files were given: end it with / to name a directory`,
    );
  if (sources.length > 0 && values['no-manifest'])
    throw new PublishUsageError('--source goes into the manifest, which --no-manifest leaves out');

  return {
    kind: 'run',
    args: {
      files: positionals,
      chunkGroupLog,
      sources,
      outDir: values['out-dir'],
      manifest: !values['no-manifest'],
    },
  };
}
