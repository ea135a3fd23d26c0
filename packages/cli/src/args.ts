import { parseArgs } from 'node:util';

export type Args = {
  files: string[];
  keyed: boolean;
  deriveKey?: string;
  length: number;
  seek: bigint;
  numThreads?: number;
  noNames: boolean;
  raw: boolean;
  tag: boolean;
  check: boolean;
  quiet: boolean;
  help: boolean;
  version: boolean;
};

/** A command line b3sum would reject; the tool exits with status 2 and usage, as b3sum does. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const options = {
  keyed: { type: 'boolean' },
  'derive-key': { type: 'string' },
  length: { type: 'string', short: 'l' },
  seek: { type: 'string' },
  'num-threads': { type: 'string' },
  'no-mmap': { type: 'boolean' },
  'no-names': { type: 'boolean' },
  raw: { type: 'boolean' },
  tag: { type: 'boolean' },
  check: { type: 'boolean', short: 'c' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

const U64_MAX = (1n << 64n) - 1n;

function unsigned(value: string | undefined, flag: string, max: bigint): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\+?\d+$/.test(value)) throw new UsageError(`invalid value '${value}' for '${flag}': invalid digit found in string`);
  const n = BigInt(value);
  if (n > max) throw new UsageError(`invalid value '${value}' for '${flag}': number too large to fit in target type`);
  return n;
}

/** Parses b3sum's flags (the same names, conflicts and defaults). */
export function parseCommandLine(argv: readonly string[]): Args {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (err) {
    // Worded as b3sum words them.
    const e = err as Error & { code?: string };
    const unknown = /Unknown option '([^']*)'/.exec(e.message);
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) throw new UsageError(`unexpected argument '${unknown[1]}' found`);
    throw new UsageError(e.message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const v = parsed.values;
  const conflict = (a: string, b: string) => new UsageError(`the argument '${a}' cannot be used with '${b}'`);
  if (v.keyed && v['derive-key'] !== undefined) throw conflict('--keyed', '--derive-key <CONTEXT>');
  if (v.check) {
    for (const [flag, shown] of [['derive-key', '--derive-key <CONTEXT>'], ['keyed', '--keyed'], ['length', '--length <LEN>'],
      ['raw', '--raw'], ['no-names', '--no-names'], ['tag', '--tag']] as const) {
      if (v[flag] !== undefined && v[flag] !== false) throw conflict('--check', shown);
    }
  }
  if (v.quiet && !v.check) throw new UsageError("the following required arguments were not provided:\n  --check");
  if (v.keyed && parsed.positionals.length === 0) throw new UsageError("the following required arguments were not provided:\n  <FILE>...");
  const threads = unsigned(v['num-threads'], '--num-threads <NUM>', BigInt(Number.MAX_SAFE_INTEGER));
  return {
    files: parsed.positionals.length > 0 ? parsed.positionals : ['-'],
    keyed: v.keyed ?? false,
    deriveKey: v['derive-key'],
    length: Number(unsigned(v.length, '--length <LEN>', BigInt(Number.MAX_SAFE_INTEGER)) ?? 32n),
    seek: unsigned(v.seek, '--seek <SEEK>', U64_MAX) ?? 0n,
    numThreads: threads === undefined || threads === 0n ? undefined : Number(threads),
    noNames: v['no-names'] ?? false,
    raw: v.raw ?? false,
    tag: v.tag ?? false,
    check: v.check ?? false,
    quiet: v.quiet ?? false,
    help: v.help ?? false,
    version: v.version ?? false,
  };
}

export const USAGE = 'Usage: b3web [OPTIONS] [FILE]...';

export const HELP = `${USAGE}

Arguments:
  [FILE]...  Files to hash, or checkfiles to check. When no file is given,
             or when - is given, read standard input.

Options:
      --keyed                 Use the keyed mode, reading the 32-byte key from stdin
      --derive-key <CONTEXT>  Use the key derivation mode, with the given context string
  -l, --length <LEN>          The number of output bytes, before hex encoding [default: 32]
      --seek <SEEK>           The starting output byte offset, before hex encoding [default: 0]
      --num-threads <NUM>     The maximum number of worker threads to use [default: the
                              number of logical cores]; 1 hashes on the main thread
      --no-mmap               Accepted for compatibility; files are always read in pieces
      --no-names              Omit filenames in the output
      --raw                   Write raw output bytes to stdout, rather than hex (only one input)
      --tag                   Output BSD-style checksums: BLAKE3 ([FILE]) = [HASH]
  -c, --check                 Read BLAKE3 sums from the [FILE]s and check them
      --quiet                 Skip printing OK for each checked file (with --check)
  -h, --help                  Print help
  -V, --version               Print version
`;
