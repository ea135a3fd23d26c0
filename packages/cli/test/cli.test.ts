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
    for (const flag of [
      '--keyed',
      '--derive-key',
      '--length',
      '--seek',
      '--num-threads',
      '--no-names',
      '--raw',
      '--tag',
      '--check',
      '--quiet',
    ]) {
      assert.match(r.stdout, new RegExp(flag));
    }
  });

  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(run(['-V']).stdout, `b3web ${version}\n`);
  });

  it('file names escape and unescape as b3sum does', () => {
    for (const name of ['plain', 'a\\b', 'a\nb', 'a\rb', '\\\n\\\\\r\n', 'é ✓']) {
      const { text, escaped } = escapeName(name);
      assert.equal(escaped, /[\\\n\r]/.test(name));
      assert.equal(escaped ? unescapeName(text) : text, name);
      assert.ok(!/[\n\r]/.test(text));
    }
    assert.throws(() => unescapeName('a\\tb'), /Invalid backslash escape/);
    assert.throws(() => unescapeName('a\\'), /Invalid backslash escape/);
  });

  it("check lines: each malformed kind has b3sum's message", () => {
    const hex = 'ab'.repeat(32);
    assert.deepEqual(parseCheckLine(`\\${hex}  a\\nb\\\\c\\r\r\n`), {
      shown: '\\a\\nb\\\\c\\r',
      path: 'a\nb\\c\r',
      expectedHex: hex,
    });
    for (const [line, message] of [
      ['\r\n', 'Empty line'],
      [`${hex} x`, 'Invalid check line format'],
      [`${hex}0  x`, 'Invalid hash length'],
      [`${hex.slice(2)}  x`, 'Invalid hash length'],
      [`${hex.slice(2)}é  x`, 'Invalid hex'],
      [`${hex.toUpperCase()}  x`, 'Invalid hex'],
      [`${hex}  `, 'empty file path'],
      [`BLAKE3 () = ${hex}`, 'empty file path'],
      [`\\${hex}  x\\`, 'Invalid backslash escape'],
      [`${hex}  x\0`, 'Null character in path'],
      [`${hex}  x\u{FFFD}`, 'Unicode replacement character in path'],
    ]) {
      assert.throws(() => parseCheckLine(line), { message }, JSON.stringify(line));
    }
  });
});
