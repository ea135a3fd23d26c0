import { constantTimeEqual, hexToBytes, OUT_LEN, type Blake3Opts, type OutputReader } from '@blake3-web/core';
import { closeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { HELP, parseCommandLine, USAGE, UsageError, type Args } from './args.js';
import { checkFileLines } from './check-lines.js';
import { parseCheckLine } from './check-line.js';
import { escapeName } from './escape-name.js';
import { hashOpenFile, hashStdin, openPath, readKeyFromStdin, regularFileSize } from './hash-input.js';
import { osErrorReason } from './os-error.js';
import { poolHasher, type PoolHasher } from './pool-hasher.js';
import { fromText, NOT_UTF8_HINT, rawArgv, validUtf8, type RawArg } from './raw-argv.js';
import { fdWriter, type Writer } from './stdout-writer.js';
import { bytesSource, writeOutput } from './write-output.js';

const NAME = 'b3web';
const VERSION = '0.1.0';
/** BLAKE3's output stream ends here (spec, section 2.6). */
const XOF_END = 1n << 64n;

/**
 * Runs the tool with `argv` (the arguments after the script; raw bytes where the system gives
 * them) and resolves to the exit status, b3sum's for the same command line.
 */
export async function main(argv: readonly (string | RawArg)[] = rawArgv(), io: Writer = fdWriter()): Promise<number> {
  try {
    return await run(
      argv.map((a) => (typeof a === 'string' ? fromText(a) : a)),
      io,
    );
  } catch (err) {
    // What stops the whole run (a check file that cannot be read, stdout closed), worded as
    // b3sum's `main` returning an error.
    io.err(`Error: ${osErrorReason(err)}\n`);
    return 1;
  } finally {
    try {
      io.flush();
    } catch {
      // Standard output is gone; the status already says so.
    }
  }
}

async function run(argv: RawArg[], io: Writer): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const tip = err.tip === undefined ? '' : `\n  tip: ${err.tip}\n`;
    const usage = err.showUsage ? `\n${USAGE}\n` : '';
    io.err(`error: ${err.message}\n${tip}${usage}\nFor more information, try '--help'.\n`);
    return 2;
  }
  if (parsed.kind === 'help') return (io.out(HELP), 0);
  if (parsed.kind === 'version') return (io.out(`${NAME} ${VERSION}\n`), 0);
  const args = parsed.args;
  if (args.raw && args.files.length > 1) throw new Error('Only one filename can be provided when using --raw');
  const length = args.check ? BigInt(OUT_LEN) : args.length;
  if (args.seek + length > XOF_END) {
    throw new Error(
      `--seek ${args.seek} with ${length} output bytes goes past the end of BLAKE3's output stream (2^64 bytes)`,
    );
  }
  let mode: Blake3Opts = {};
  if (args.keyed) mode = { key: await readKeyFromStdin() };
  else if (args.deriveKey !== undefined) mode = { context: args.deriveKey };
  const pool = poolHasher(args.numThreads);
  try {
    return args.check ? await checkAll(args, mode, io, pool) : await hashAll(args, mode, io, pool);
  } finally {
    pool.close();
  }
}

const isStdin = (arg: RawArg) => arg.bytes.length === 1 && arg.bytes[0] === 0x2d;

/** The output reader of `arg` at `--seek`, or its first `length` bytes when the worker pool hashed it. */
async function hashPath(
  arg: RawArg,
  args: Args,
  mode: Blake3Opts,
  pool: PoolHasher,
  length: bigint,
): Promise<OutputReader | Uint8Array> {
  let reader: OutputReader;
  if (isStdin(arg)) {
    if (args.keyed) throw new Error('Cannot open `-` in keyed mode');
    reader = await hashStdin(mode);
  } else {
    let fd: number;
    try {
      fd = openPath(arg.bytes);
    } catch (err) {
      if (arg.exact === false && (err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new Error(`${osErrorReason(err)}; ${NOT_UTF8_HINT}`);
      throw err;
    }
    try {
      // The pool opens files by name and gives output from position 0.
      const name = arg.exact === false || args.seek !== 0n ? undefined : validUtf8(arg.bytes);
      const size = name === undefined ? undefined : regularFileSize(fd);
      const pooled = size === undefined ? undefined : await pool.hash(name!, size, mode, Number(length));
      if (pooled) return pooled;
      reader = hashOpenFile(fd, mode);
    } finally {
      closeSync(fd);
    }
  }
  reader.position = args.seek;
  return reader;
}

function emit(result: OutputReader | Uint8Array, length: bigint, hex: boolean, io: Writer): void {
  writeOutput(result instanceof Uint8Array ? bytesSource(result) : result, length, hex, io);
}

async function hashAll(args: Args, mode: Blake3Opts, io: Writer, pool: PoolHasher): Promise<number> {
  let status = 0;
  for (const arg of args.files) {
    let result: OutputReader | Uint8Array;
    try {
      result = await hashPath(arg, args, mode, pool, args.length);
    } catch (err) {
      io.err(`${NAME}: ${arg.text}: ${osErrorReason(err)}\n`);
      status = 1;
      continue;
    }
    // Writing is outside the per-file error handling: a closed stdout ends the run.
    if (args.raw) {
      emit(result, args.length, false, io);
      continue;
    }
    if (args.noNames) {
      emit(result, args.length, true, io);
      io.out('\n');
      continue;
    }
    const { text, escaped } = escapeName(arg.text);
    if (escaped) io.out('\\');
    if (args.tag) io.out(`BLAKE3 (${text}) = `);
    emit(result, args.length, true, io);
    io.out(args.tag ? '\n' : `  ${text}\n`);
  }
  return status;
}

async function* fileChunks(path: Uint8Array): AsyncGenerator<Uint8Array> {
  const file = await open(Buffer.from(path.buffer, path.byteOffset, path.length), 'r');
  try {
    const buf = new Uint8Array(64 << 10);
    for (;;) {
      const { bytesRead } = await file.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}

async function checkAll(args: Args, mode: Blake3Opts, io: Writer, pool: PoolHasher): Promise<number> {
  let failed = 0;
  // A check file that cannot be read or is not UTF-8 ends the run (main reports it), as in b3sum.
  for (const checkfile of args.files) {
    const chunks = isStdin(checkfile) ? (process.stdin as AsyncIterable<Uint8Array>) : fileChunks(checkfile.bytes);
    for await (const line of checkFileLines(chunks)) {
      if (!(await checkOne(line, args, mode, io, pool))) failed++;
    }
  }
  if (failed > 0) io.err(`${NAME}: WARNING: ${failed} computed checksum${failed === 1 ? '' : 's'} did NOT match\n`);
  return failed > 0 ? 1 : 0;
}

/** Checks one line; false when it fails (malformed, unreadable, or a different hash). */
async function checkOne(
  line: { text: string } | { tooLong: true },
  args: Args,
  mode: Blake3Opts,
  io: Writer,
  pool: PoolHasher,
): Promise<boolean> {
  let parsed;
  try {
    if ('tooLong' in line) throw new Error('Check line too long to name a file');
    parsed = parseCheckLine(line.text);
  } catch (err) {
    io.err(`${NAME}: ${(err as Error).message}\n`);
    return false;
  }
  let found: Uint8Array;
  try {
    const result = await hashPath(fromText(parsed.path), args, mode, pool, BigInt(OUT_LEN));
    found = result instanceof Uint8Array ? result : result.read(OUT_LEN);
  } catch (err) {
    io.out(`${parsed.shown}: FAILED (${osErrorReason(err)})\n`);
    return false;
  }
  // In constant time: a check must not leak where a digest differs.
  if (constantTimeEqual(found, hexToBytes(parsed.expectedHex))) {
    if (!args.quiet) io.out(`${parsed.shown}: OK\n`);
    return true;
  }
  io.out(`${parsed.shown}: FAILED\n`);
  return false;
}
