// Command lines run by both b3sum and b3web in the differential test, over the same files, made
// here the same way every time.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const paint = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) % 251);
export const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 100);

/** Creates the test files in a new temporary directory and returns its path. */
export function makeFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'b3web-cli-'));
  const files = {
    empty: 0,
    one: 1,
    small: 1025,
    medium: 300_000,
    // Several subtrees: large enough for the worker pool.
    large: 40 * 1024 * 1024 + 12345,
    'odd\nname': 70,
    'back\\slash': 71,
    'both\\and\nname': 72,
    'cr\r': 73,
    'a\r\nb': 74,
    ' lead  and trail ': 75,
  };
  for (const [name, size] of Object.entries(files)) writeFileSync(join(dir, name), paint(size, size % 13));
  // Names that are not UTF-8 (Linux file names are bytes).
  writeFileSync(Buffer.concat([Buffer.from(dir + '/'), CAFE_LATIN1]), paint(76, 1));
  writeFileSync(Buffer.concat([Buffer.from(dir + '/'), LONE_CONTINUATION]), paint(77, 2));
  mkdirSync(join(dir, 'a-directory'));
  return dir;
}

export const CAFE_LATIN1 = Buffer.from('caf\xe9.txt', 'latin1');
const LONE_CONTINUATION = Buffer.from([0x78, 0x80, 0xff, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x79]);

/**
 * Each scenario: arguments, optional stdin (bytes), and check files to write first (their
 * content may use `{hash:NAME}` for b3sum's own output of that file, filled in when recording).
 */
export const scenarios = [
  { name: 'one file', args: ['small'] },
  { name: 'empty file', args: ['empty'] },
  { name: 'several files', args: ['one', 'small', 'medium', 'empty'] },
  { name: 'a multi-subtree file', args: ['large'] },
  { name: 'a multi-subtree file, one thread', args: ['--num-threads', '1', 'large'] },
  {
    name: 'a multi-subtree file, two threads, keyed',
    args: ['--keyed', '--num-threads', '2', 'large', 'small'],
    stdin: KEY,
  },
  { name: 'stdin by default', args: [], stdin: paint(5000, 3) },
  { name: 'stdin as -', args: ['-', 'one'], stdin: paint(2049, 5) },
  { name: 'length 0', args: ['--length', '0', 'small'] },
  { name: 'length 1', args: ['-l', '1', 'small'] },
  { name: 'length 131', args: ['--length=131', 'medium', 'large'] },
  { name: 'seek', args: ['--seek', '1000', '-l', '40', 'medium'] },
  { name: 'keyed', args: ['--keyed', 'one', 'medium'], stdin: KEY },
  { name: 'keyed with a short key', args: ['--keyed', 'one'], stdin: KEY.subarray(0, 31) },
  { name: 'keyed with a long key', args: ['--keyed', 'one'], stdin: new Uint8Array(33) },
  { name: 'keyed refuses stdin as input', args: ['--keyed', '-'], stdin: KEY },
  { name: 'derive-key', args: ['--derive-key', 'b3web 2026-11-22 cli test context', 'small', 'large'] },
  { name: 'no names', args: ['--no-names', 'one', 'small'] },
  { name: 'raw', args: ['--raw', 'medium'] },
  { name: 'raw with length', args: ['--raw', '-l', '100', 'small'] },
  { name: 'raw with two files', args: ['--raw', 'one', 'small'] },
  { name: 'tag', args: ['--tag', 'one', 'odd\nname'] },
  { name: 'names with a newline and a backslash', args: ['odd\nname', 'back\\slash', 'both\\and\nname'] },
  { name: 'missing file among others', args: ['one', 'missing', 'small'] },
  { name: 'a directory', args: ['a-directory', 'one'] },
  { name: 'unknown flag', args: ['--bogus', 'one'] },
  { name: 'bad length', args: ['--length', 'abc', 'one'] },
  { name: 'keyed and derive-key', args: ['--keyed', '--derive-key', 'x', 'one'] },
  { name: 'quiet without check', args: ['--quiet', 'one'] },
  { name: 'check with length', args: ['--check', '--length', '3', 'sums'] },
  {
    name: 'check: good lines',
    args: ['--check', 'sums'],
    checkfiles: { sums: '{hash:small}  small\n{hash:large}  large\n\\{hash:odd\nname}  odd\\nname\n' },
  },
  {
    name: 'check: bad, malformed and missing lines',
    args: ['-c', 'sums'],
    checkfiles: {
      sums:
        '{hash:small}  small\n' +
        '0'.repeat(64) +
        '  one\nnot a check line\n\n' +
        '{hash:small}  missing\n' +
        'ABCD'.repeat(16) +
        '  small\n{hash:small} small\n',
    },
  },
  {
    name: 'check quietly',
    args: ['--check', '--quiet', 'sums', 'tags'],
    checkfiles: { sums: '{hash:one}  one\n' + '1'.repeat(64) + '  small\n', tags: 'BLAKE3 (medium) = {hash:medium}\n' },
  },
  {
    name: 'check: escaped names, a bad escape and a NUL',
    args: ['--check', 'sums'],
    checkfiles: { sums: '\\{hash:back\\slash}  back\\\\slash\n\\{hash:one}  bad\\xescape\n{hash:one}  nul\0name\n' },
  },
  { name: 'check from stdin', args: ['-c'], stdinCheck: '{hash:one}  one\n{hash:medium}  medium\r\n' },
  { name: 'check a missing checkfile', args: ['-c', 'nope'] },

  // Names that are not UTF-8 open by their bytes and print lossily.
  { name: 'a Latin-1 name', args: [CAFE_LATIN1, 'one'] },
  {
    name: 'invalid UTF-8 of every kind in a name',
    args: [LONE_CONTINUATION, '--tag', Buffer.from('missing\xff', 'latin1')],
  },
  { name: 'invalid UTF-8 in a value', args: ['--derive-key', Buffer.from([0xff]), 'one'] },
  { name: 'invalid UTF-8 in an unknown flag', args: [Buffer.from('--\xff', 'latin1')] },
  {
    name: 'check a file that is not UTF-8',
    args: ['-c', 'latin1-sums'],
    checkfiles: { 'latin1-sums': Buffer.from('{hash:one}  one\ncaf\xe9  one\n{hash:one}  one\n', 'latin1') },
  },

  // CR, LF and backslash in names: escapes and check lines as b3sum 1.8 writes and reads them.
  { name: 'names with CR and CRLF', args: ['cr\r', 'a\r\nb', ' lead  and trail '] },
  { name: 'tagged names with CR', args: ['--tag', 'cr\r', 'a\r\nb'] },
  {
    name: 'check: escaped CR, extra CRs and CRLF endings, spaces in names',
    args: ['-c', 'sums'],
    checkfiles: {
      sums: '\\{hash:cr\r}  cr\\r\r\n\\{hash:a\r\nb}  a\\r\\nb\n{hash:one}  one\r\r\n{hash:one}  one\r\r\r\n{hash: lead  and trail }   lead  and trail \nBLAKE3 (cr\\r) = {hash:cr\r}\n',
    },
  },
  {
    name: 'check: malformed lines, each with its message',
    args: ['-c', 'sums'],
    checkfiles: {
      sums:
        '{hash:one}0  one\n' +
        '0'.repeat(62) +
        '  one\n' +
        '0'.repeat(66) +
        '  one\n{hash:one}  \n\\{hash:one}  \n' +
        'BLAKE3 () = {hash:one}\nBLAKE3 (one) = {hash:one}0\nBLAKE3 (a) = b) = {hash:one}\n{hash:one}  one\\\n\\{hash:one}  one\\\n' +
        '{hash:one}  \uFFFD\n\r\n\n\\\n{hash:one}\n',
    },
  },
  { name: 'check an empty check file', args: ['-c', 'empty'] },
  { name: 'check a directory', args: ['--check', 'a-directory'] },
  {
    name: 'check two files, the second missing',
    args: ['-c', 'sums', 'nope', 'sums'],
    checkfiles: { sums: '{hash:one}  one\n' },
  },
  { name: 'check with a seek', args: ['-c', '--seek', '1', 'sums'], checkfiles: { sums: '{hash:one}  one\n' } },

  // Usage and messages.
  { name: 'length -1', args: ['--length', '-1', 'one'] },
  { name: 'seek without a value', args: ['one', '--seek'] },
  { name: 'length without a value', args: ['-l'] },
  { name: 'an empty file argument', args: ['one', ''] },
  { name: 'an empty argument after --', args: ['--', ''] },
  {
    name: 'length 2^64 - 1 past the first block is accepted',
    args: ['--seek', '18446744073709551551', '--length', '64', 'one'],
  },
  { name: 'length 2^64', args: ['-l', '18446744073709551616', 'one'] },
  { name: 'num-threads 300 on a multi-subtree file', args: ['--num-threads', '300', 'large', 'one'] },
  { name: 'num-threads 0', args: ['--num-threads', '0', 'large'] },
  { name: 'num-threads -1', args: ['--num-threads', '-1', 'one'] },
  { name: 'num-threads empty', args: ['--num-threads=', 'one'] },
  { name: 'value forms -l5 -l=5 --length=+5', args: ['-l5', 'one', '-l=5'] },
  { name: 'a flag given twice', args: ['--tag', 'one', '--tag'] },
  { name: 'an option given twice', args: ['-l', '1', '--length=2', 'one'] },
  { name: 'a value for a flag', args: ['--raw=yes', 'one'] },
  { name: 'an unknown short flag in a cluster', args: ['-cx', 'one'] },
  { name: 'a flag where a value belongs', args: ['--length', '--raw', 'one'] },
  { name: 'an unknown flag where a value belongs', args: ['--length', '--bogus', 'one'] },
  { name: 'a bad value before an unknown flag', args: ['--length', 'x', '--bogus'] },
  { name: 'a bad value before a repeated flag', args: ['--length', 'x', '--raw', '--raw'] },
  { name: 'conflicts listed in order', args: ['--derive-key', 'x', '-c', '--keyed', 'one'] },
  { name: 'quiet with a flag that conflicts with check', args: ['--quiet', '--no-names', 'one'] },
  { name: 'quiet and keyed without files', args: ['--quiet', '--keyed'] },
  { name: 'double dash then flags as names', args: ['-l', '3', '--', '-l', 'one', '--'] },
  { name: 'raw with two files reads no key', args: ['--raw', '--keyed', 'one', 'small'], stdin: KEY },
];

/** Pieces of command lines for the generated cases: flags, values (small, bad, empty) and files. */
export const generatedTokens = [
  '--length',
  '-l',
  '--seek',
  '--num-threads',
  '--derive-key',
  '3',
  '0',
  '1',
  '65',
  '-1',
  'x',
  '',
  '+2',
  '--raw',
  '--tag',
  '--no-names',
  '--no-mmap',
  '-c',
  '--check',
  '--quiet',
  '--keyed',
  '--bogus',
  '-x',
  '--',
  '-',
  '-l7',
  '-l=2',
  '--length=4',
  '--seek=70',
  '-cl',
  '-lc',
  '--raw=1',
  'one',
  'small',
  'medium',
  'missing',
  'a-directory',
  'sums',
  'odd\nname',
  'cr\r',
  'back\\slash',
  CAFE_LATIN1,
];
