// b3sum's command line (clap 4), rule for rule: the same flags, value forms (`--length=5`,
// `-l5`, `-l=5`), errors in the same order and with the same first line, and the exit status 2.
import { lossyUtf8, validUtf8, type RawArg } from './raw-argv.js';

export type Args = {
  /** Files to hash or check files to read, as raw bytes (`-` is standard input). */
  files: RawArg[];
  keyed: boolean;
  deriveKey?: string;
  length: bigint;
  seek: bigint;
  /** 0 or absent: the default. */
  numThreads?: bigint;
  noNames: boolean;
  raw: boolean;
  tag: boolean;
  check: boolean;
  quiet: boolean;
};

export type CommandLine = { kind: 'run'; args: Args } | { kind: 'help' } | { kind: 'version' };

/** A command line b3sum would reject; the tool exits with status 2, as b3sum does. */
export class UsageError extends Error {
  override name = 'UsageError';
  /** Clap prints the usage line after some errors and not after value errors. */
  readonly showUsage: boolean;
  readonly tip: string | undefined;
  constructor(message: string, showUsage = true, tip?: string) {
    super(message);
    this.showUsage = showUsage;
    this.tip = tip;
  }
}

type Name =
  | 'keyed'
  | 'derive-key'
  | 'length'
  | 'seek'
  | 'num-threads'
  | 'no-mmap'
  | 'no-names'
  | 'raw'
  | 'tag'
  | 'check'
  | 'quiet'
  | 'help'
  | 'version';
type Spec = { takesValue: boolean; shown: string; short?: string };

const SPECS: Record<Name, Spec> = {
  keyed: { takesValue: false, shown: '--keyed' },
  'derive-key': { takesValue: true, shown: '--derive-key <CONTEXT>' },
  length: { takesValue: true, shown: '--length <LEN>', short: 'l' },
  seek: { takesValue: true, shown: '--seek <SEEK>' },
  'num-threads': { takesValue: true, shown: '--num-threads <NUM>' },
  'no-mmap': { takesValue: false, shown: '--no-mmap' },
  'no-names': { takesValue: false, shown: '--no-names' },
  raw: { takesValue: false, shown: '--raw' },
  tag: { takesValue: false, shown: '--tag' },
  check: { takesValue: false, shown: '--check', short: 'c' },
  quiet: { takesValue: false, shown: '--quiet' },
  help: { takesValue: false, shown: '--help', short: 'h' },
  version: { takesValue: false, shown: '--version', short: 'V' },
};
const SHORT = new Map(
  Object.entries(SPECS)
    .filter(([, s]) => s.short)
    .map(([n, s]) => [s.short!, n as Name]),
);
const isName = (s: string): s is Name => Object.hasOwn(SPECS, s);

/** What conflicts with what (declared on either side, as clap treats it). */
const CONFLICTS: Partial<Record<Name, Name[]>> = {
  keyed: ['derive-key', 'check'],
  'derive-key': ['keyed', 'check'],
  length: ['check'],
  raw: ['check'],
  tag: ['check'],
  'no-names': ['check'],
  check: ['derive-key', 'keyed', 'length', 'raw', 'tag', 'no-names'],
};

const U64_MAX = (1n << 64n) - 1n;

/** Rust's `u64::from_str`: an optional `+`, ASCII digits, nothing else; the same three messages. */
function parseU64(value: string, shown: string): bigint {
  const bad = (why: string) => new UsageError(`invalid value '${value}' for '${shown}': ${why}`, false);
  if (value === '' || value === '+') throw bad('cannot parse integer from empty string');
  if (!/^\+?[0-9]+$/.test(value)) throw bad('invalid digit found in string');
  const n = BigInt(value);
  if (n > U64_MAX) throw bad('number too large to fit in target type');
  return n;
}

const unexpected = (arg: string) =>
  new UsageError(`unexpected argument '${arg}' found`, true, `to pass '${arg}' as a value, use '-- ${arg}'`);
const usedTwice = (name: Name) => new UsageError(`the argument '${SPECS[name].shown}' cannot be used multiple times`);
const unneededValue = (name: Name, value: Uint8Array) =>
  new UsageError(`unexpected value '${lossyUtf8(value)}' for '${SPECS[name].shown}' found; no more were expected`);
const valueRequired = (name: Name) =>
  new UsageError(`a value is required for '${SPECS[name].shown}' but none was supplied`, false);

/** Parses b3sum's flags from the raw argument bytes. */
export function parseCommandLine(argv: readonly RawArg[]): CommandLine {
  const seen = new Map<Name, Uint8Array | true>();
  const files: RawArg[] = [];
  // An option waiting for its value (the next argument), and the argument whose separate values
  // are not checked yet: clap checks them only when a known option starts, or at the end.
  let pending: Name | undefined;
  let unparsed: Name | 'FILE' | undefined;
  let rest = false;

  const parsePrevious = () => {
    if (unparsed === 'FILE') {
      if (files.some((f) => f.bytes.length === 0))
        throw new UsageError("a value is required for '[FILE]...' but none was supplied", false);
    } else if (unparsed !== undefined) {
      parseValue(unparsed, seen.get(unparsed) as Uint8Array);
    }
    unparsed = undefined;
  };

  /** A known option, with its value when attached (`--length=5`, `-l5`), which is checked at once. */
  const use = (name: Name, value?: Uint8Array): CommandLine | undefined => {
    if (!SPECS[name].takesValue && value !== undefined) throw unneededValue(name, value);
    parsePrevious();
    if (name === 'help') return { kind: 'help' };
    if (name === 'version') return { kind: 'version' };
    // An option given again is refused when its value arrives: first a missing value is.
    if (seen.has(name) && !(SPECS[name].takesValue && value === undefined)) throw usedTwice(name);
    if (!SPECS[name].takesValue) seen.set(name, true);
    else if (value === undefined) pending = name;
    else (seen.set(name, value), parseValue(name, value));
    return undefined;
  };

  for (const arg of argv) {
    const bytes = arg.bytes;
    if (pending !== undefined) {
      const looksLikeOption = bytes.length > 1 && bytes[0] === 0x2d;
      if (!looksLikeOption) {
        if (seen.has(pending)) throw usedTwice(pending);
        seen.set(pending, bytes);
        unparsed = pending;
        pending = undefined;
        continue;
      }
      // An option where a value belongs: an unknown one, or a flag given a value, is the
      // error; else the missing value.
      const long = bytes[1] === 0x2d ? longOption(bytes) : undefined;
      if (long !== undefined && long.name !== '' && !isName(long.name)) throw unexpected(`--${long.name}`);
      if (long !== undefined && isName(long.name) && long.value !== undefined && !SPECS[long.name].takesValue)
        throw unneededValue(long.name, long.value);
      if (long === undefined && !SHORT.has(String.fromCodePoint(lossyUtf8(bytes.subarray(1)).codePointAt(0)!))) {
        throw unexpected(`-${String.fromCodePoint(lossyUtf8(bytes.subarray(1)).codePointAt(0)!)}`);
      }
      throw valueRequired(pending);
    }
    if (rest || bytes.length < 2 || bytes[0] !== 0x2d) {
      if (unparsed !== 'FILE') parsePrevious();
      unparsed = 'FILE';
      files.push(arg);
      continue;
    }
    if (bytes[1] === 0x2d) {
      if (bytes.length === 2) {
        rest = true;
        continue;
      }
      const { name, value } = longOption(bytes);
      if (!isName(name)) throw unexpected(`--${name}`);
      const done = use(name, value);
      if (done) return done;
      continue;
    }
    // A cluster of short flags; `l` takes the rest of the cluster (after an optional `=`) as its value.
    const text = lossyUtf8(bytes.subarray(1));
    for (let i = 0; i < text.length;) {
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      i += ch.length;
      const name = SHORT.get(ch);
      if (name === undefined) throw unexpected(`-${ch}`);
      if (SPECS[name].takesValue && i < text.length) {
        // Every flag before it is ASCII, so character and byte offsets agree.
        const from = 1 + i + (bytes[1 + i] === 0x3d ? 1 : 0);
        const done = use(name, bytes.subarray(from));
        if (done) return done;
        break;
      }
      const done = use(name);
      if (done) return done;
    }
  }
  if (pending !== undefined) throw valueRequired(pending);
  parsePrevious();

  const order = [...seen.keys()];
  for (const name of order) {
    const against = order.filter((other) => CONFLICTS[name]?.includes(other));
    if (against.length === 1)
      throw new UsageError(`the argument '${SPECS[name].shown}' cannot be used with '${SPECS[against[0]].shown}'`);
    if (against.length > 1)
      throw new UsageError(
        `the argument '${SPECS[name].shown}' cannot be used with:\n${against.map((o) => `  ${SPECS[o].shown}`).join('\n')}`,
      );
  }
  // Clap does not ask for --check when an argument that conflicts with it is present, unless
  // another required argument is missing too.
  const quietAlone = seen.has('quiet') && !seen.has('check');
  const fileMissing = seen.has('keyed') && files.length === 0;
  if (fileMissing || (quietAlone && !order.some((n) => CONFLICTS.check!.includes(n)))) {
    const missing = [...(quietAlone ? ['--check'] : []), ...(fileMissing ? ['<FILE>...'] : [])];
    throw new UsageError(
      `the following required arguments were not provided:\n${missing.map((m) => `  ${m}`).join('\n')}`,
    );
  }

  const num = (name: Name) => (seen.has(name) ? (parseValue(name, seen.get(name) as Uint8Array) as bigint) : undefined);
  return {
    kind: 'run',
    args: {
      files: files.length > 0 ? files : [{ bytes: new Uint8Array([0x2d]), text: '-' }],
      keyed: seen.has('keyed'),
      deriveKey: seen.has('derive-key')
        ? (parseValue('derive-key', seen.get('derive-key') as Uint8Array) as string)
        : undefined,
      length: num('length') ?? 32n,
      seek: num('seek') ?? 0n,
      numThreads: num('num-threads'),
      noNames: seen.has('no-names'),
      raw: seen.has('raw'),
      tag: seen.has('tag'),
      check: seen.has('check'),
      quiet: seen.has('quiet'),
    },
  };
}

function parseValue(name: Name, bytes: Uint8Array): string | bigint {
  const text = validUtf8(bytes);
  if (text === undefined) throw new UsageError('invalid UTF-8 was detected in one or more arguments');
  return name === 'derive-key' ? text : parseU64(text, SPECS[name].shown);
}

/** `--name` or `--name=value`. */
function longOption(bytes: Uint8Array): { name: string; value?: Uint8Array } {
  const eq = bytes.indexOf(0x3d, 2);
  return eq < 0
    ? { name: lossyUtf8(bytes.subarray(2)) }
    : { name: lossyUtf8(bytes.subarray(2, eq)), value: bytes.subarray(eq + 1) };
}

export const USAGE = 'Usage: b3web [OPTIONS] [FILE]...';

export const HELP: string = `${USAGE}

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
