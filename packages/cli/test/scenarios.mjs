// Command lines run by both b3sum (to record the fixtures) and b3web (in the tests), over the
// same files, made here the same way every time.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const paint = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) % 251);
const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 100);

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
  };
  for (const [name, size] of Object.entries(files)) writeFileSync(join(dir, name), paint(size, size % 13));
  mkdirSync(join(dir, 'a-directory'));
  return dir;
}

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
  { name: 'a multi-subtree file, two threads, keyed', args: ['--keyed', '--num-threads', '2', 'large', 'small'], stdin: KEY },
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
      sums: '{hash:small}  small\n' + '0'.repeat(64) + '  one\nnot a check line\n\n' +
        '{hash:small}  missing\n' + 'ABCD'.repeat(16) + '  small\n{hash:small} small\n',
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
];
