import { bytesToHex, type OutputReader } from '@blake3-web/core';
import { readFile, stat } from 'node:fs/promises';
import { HELP, parseCommandLine, USAGE, UsageError, type Args } from './args.js';
import { parseCheckLine } from './check-line.js';
import { escapeName } from './escape-name.js';
import { hashFileHere, hashStdin, readKeyFromStdin, type Mode } from './hash-input.js';
import { osErrorReason } from './os-error.js';
import { poolHasher, type PoolHasher } from './pool-hasher.js';

const NAME = 'b3web';
const VERSION = '0.1.0';

type Io = { out: (s: string | Uint8Array) => void; err: (s: string) => void };
const stdio: Io = {
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(s),
};

/** Runs the tool with `argv` (without node and the script); resolves to the exit status. */
export async function main(argv: readonly string[], io: Io = stdio): Promise<number> {
  let args: Args;
  try {
    args = parseCommandLine(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`error: ${err.message}\n\n${USAGE}\n\nFor more information, try '--help'.\n`);
    return 2;
  }
  if (args.help) return io.out(HELP), 0;
  if (args.version) return io.out(`${NAME} ${VERSION}\n`), 0;
  if (args.raw && args.files.length > 1) {
    io.err(`${NAME}: Only one filename can be provided when using --raw\n`);
    return 1;
  }
  let mode: Mode = {};
  try {
    if (args.keyed) mode = { key: await readKeyFromStdin() };
    else if (args.deriveKey !== undefined) mode = { context: args.deriveKey };
  } catch (err) {
    io.err(`${NAME}: ${(err as Error).message}\n`);
    return 1;
  }
  const pool = poolHasher(args.numThreads);
  try {
    return args.check ? await checkAll(args, mode, io, pool) : await hashAll(args, mode, io, pool);
  } finally {
    pool.close();
  }
}

/** `length` output bytes from position `seek` of the hash of `path` (`-` is standard input). */
async function hashPath(path: string, args: Args, mode: Mode, pool: PoolHasher, length: number): Promise<Uint8Array> {
  let reader: OutputReader;
  if (path === '-') {
    if (args.keyed) throw new Error('Cannot open `-` in keyed mode');
    reader = await hashStdin(mode);
  } else {
    const info = await stat(path);
    // The pool gives output from position 0; a seek reads the XOF here.
    const pooled = info.isFile() && args.seek === 0n ? await pool.hash(path, info.size, mode, length) : undefined;
    if (pooled) return pooled;
    reader = await hashFileHere(path, mode);
  }
  reader.position = args.seek;
  return reader.read(length);
}

async function hashAll(args: Args, mode: Mode, io: Io, pool: PoolHasher): Promise<number> {
  let status = 0;
  for (const path of args.files) {
    let bytes: Uint8Array;
    try {
      bytes = await hashPath(path, args, mode, pool, args.length);
    } catch (err) {
      io.err(`${NAME}: ${path}: ${osErrorReason(err)}\n`);
      status = 1;
      continue;
    }
    if (args.raw) {
      io.out(bytes);
    } else if (args.noNames) {
      io.out(`${bytesToHex(bytes)}\n`);
    } else {
      const { text, escaped } = escapeName(path);
      const prefix = escaped ? '\\' : '';
      io.out(args.tag ? `${prefix}BLAKE3 (${text}) = ${bytesToHex(bytes)}\n` : `${prefix}${bytesToHex(bytes)}  ${text}\n`);
    }
  }
  return status;
}

async function checkAll(args: Args, mode: Mode, io: Io, pool: PoolHasher): Promise<number> {
  let failed = 0;
  for (const checkfile of args.files) {
    let text: string;
    try {
      text = checkfile === '-' ? await readStdinText() : await readFile(checkfile, 'utf8');
    } catch (err) {
      io.err(`${NAME}: ${checkfile}: ${osErrorReason(err)}\n`);
      return 1;
    }
    for (const line of text.split(/(?<=\n)/)) {
      let parsed;
      try {
        parsed = parseCheckLine(line);
      } catch (err) {
        io.err(`${NAME}: ${(err as Error).message}\n`);
        failed++;
        continue;
      }
      let found: Uint8Array;
      try {
        found = await hashPath(parsed.path, args, mode, pool, 32);
      } catch (err) {
        io.out(`${parsed.shown}: FAILED (${osErrorReason(err)})\n`);
        failed++;
        continue;
      }
      if (equal(found, parsed.expected)) {
        if (!args.quiet) io.out(`${parsed.shown}: OK\n`);
      } else {
        io.out(`${parsed.shown}: FAILED\n`);
        failed++;
      }
    }
  }
  if (failed > 0) io.err(`${NAME}: WARNING: ${failed} computed checksum${failed === 1 ? '' : 's'} did NOT match\n`);
  return failed > 0 ? 1 : 0;
}

/** Constant-time comparison: a check must not leak where a digest differs. */
function equal(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

async function readStdinText(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
