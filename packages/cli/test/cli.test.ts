import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { escapeName, unescapeName } from '../src/escape-name.ts';
import { parseCheckLine } from '../src/check-line.ts';

const bin = fileURLToPath(new URL('../bin/b3web.js', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('b3web', () => {
  it('--help describes every flag and exits 0', () => {
    const r = run(['--help']);
    assert.equal(r.status, 0);
    for (const flag of ['--keyed', '--derive-key', '--length', '--seek', '--num-threads', '--no-names', '--raw', '--tag', '--check', '--quiet']) {
      assert.match(r.stdout, new RegExp(flag));
    }
  });

  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(run(['-V']).stdout, `b3web ${version}\n`);
  });

  it('file names escape and unescape as b3sum does', () => {
    for (const name of ['plain', 'a\\b', 'a\nb', '\\\n\\\\\n', 'é ✓']) {
      const { text, escaped } = escapeName(name);
      assert.equal(escaped, name.includes('\\') || name.includes('\n'));
      assert.equal(escaped ? unescapeName(text) : text, name);
      assert.ok(!text.includes('\n'));
    }
    assert.throws(() => unescapeName('a\\tb'), /Invalid backslash escape/);
    assert.throws(() => unescapeName('a\\'), /Invalid backslash escape/);
  });

  it('check lines: both formats, escapes, and every malformed kind', () => {
    const hex = 'ab'.repeat(32);
    assert.deepEqual(parseCheckLine(`${hex}  f x\n`).path, 'f x');
    assert.deepEqual(parseCheckLine(`BLAKE3 (a (b)) = ${hex}\r\n`).path, 'a (b)');
    assert.deepEqual(parseCheckLine(`\\${hex}  a\\nb\\\\c\n`), { shown: '\\a\\nb\\\\c', path: 'a\nb\\c', expected: new Uint8Array(32).fill(0xab) });
    assert.throws(() => parseCheckLine('\n'), /Empty line/);
    assert.throws(() => parseCheckLine(`${hex} x\n`), /Invalid check line format/);
    assert.throws(() => parseCheckLine(`${hex.toUpperCase()}  x\n`), /Invalid hex/);
    assert.throws(() => parseCheckLine(`${hex}  x\u{FFFD}\n`), /replacement character/);
  });
});
