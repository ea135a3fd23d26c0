// The unix tests of b3sum's own suite (BLAKE3-team/BLAKE3, b3sum/tests/cli_tests.rs and
// src/unit_tests.rs, 1.8.2), run against b3web: the same inputs, outputs and messages.
import { blake3, bytesToHex } from '@blake3-web/core';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseCheckLine } from '../src/check-line.ts';
import { escapeName } from '../src/escape-name.ts';
import { b3web } from './run-tool.ts';

const hex = (input: string | Uint8Array, opts?: Parameters<typeof blake3>[1]) => bytesToHex(blake3(input, opts));
const tmp: string[] = [];
after(() => tmp.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempdir(): string {
  const d = mkdtempSync(join(tmpdir(), 'b3web-upstream-'));
  tmp.push(d);
  return d;
}

type Run = { status: number | null; stdout: Buffer; out: string; err: string };
function run(args: string[], opts: { cwd?: string; stdin?: string | Uint8Array } = {}): Run {
  const r = spawnSync(process.execPath, [b3web, ...args], { cwd: opts.cwd, input: opts.stdin ?? '' });
  return { status: r.status, stdout: r.stdout, out: r.stdout.toString(), err: r.stderr.toString() };
}
/** Like duct's read(): success required, one trailing newline trimmed. */
function read(args: string[], opts?: { cwd?: string; stdin?: string | Uint8Array }): string {
  const r = run(args, opts);
  assert.equal(r.status, 0, r.err);
  return r.out.replace(/\n$/, '');
}

describe('b3sum cli_tests.rs', () => {
  it('test_hash_one', () => assert.equal(read([], { stdin: 'foo' }), `${hex('foo')}  -`));
  it('test_hash_one_tag', () => assert.equal(read(['--tag'], { stdin: 'foo' }), `BLAKE3 (-) = ${hex('foo')}`));
  it('test_hash_one_raw', () =>
    assert.deepEqual(new Uint8Array(run(['--raw'], { stdin: 'foo' }).stdout), blake3('foo')));

  it('test_hash_many and test_hash_many_tag', () => {
    const dir = tempdir();
    const [file1, file2] = [join(dir, 'file1'), join(dir, 'file2')];
    writeFileSync(file1, 'foo');
    writeFileSync(file2, 'bar');
    assert.equal(read([file1, file2]), `${hex('foo')}  ${file1}\n${hex('bar')}  ${file2}`);
    assert.equal(read(['--no-names', file1, file2]), `${hex('foo')}\n${hex('bar')}`);
    assert.equal(read(['--tag', file1, file2]), `BLAKE3 (${file1}) = ${hex('foo')}\nBLAKE3 (${file2}) = ${hex('bar')}`);
  });

  it('test_missing_files', () => {
    const dir = tempdir();
    writeFileSync(join(dir, 'file1'), 'foo');
    writeFileSync(join(dir, 'file2'), 'bar');
    const r = run(['file1', 'missing_file', 'file2'], { cwd: dir });
    assert.notEqual(r.status, 0);
    assert.equal(r.out, `${hex('foo')}  file1\n${hex('bar')}  file2\n`);
    assert.equal(r.err, 'b3web: missing_file: No such file or directory (os error 2)\n');
  });

  it('test_hash_length_and_seek', () => {
    const expected = blake3('foo', { dkLen: 100 });
    const raw = (args: string[]) => new Uint8Array(run(['--raw', ...args], { stdin: 'foo' }).stdout);
    assert.deepEqual(raw(['--length=100']), expected);
    assert.deepEqual(raw(['--length=99']), expected.subarray(0, 99));
    assert.deepEqual(raw(['--length=99', '--seek=1']), expected.subarray(1));
    assert.deepEqual(raw(['--length=1', '--seek=99']), expected.subarray(99));
  });

  it('test_keyed', () => {
    const key = new Uint8Array(32).fill(42);
    const f = join(tempdir(), 'f');
    writeFileSync(f, 'foo');
    assert.equal(read(['--keyed', '--no-names', f], { stdin: key }), hex('foo', { key }));
    for (const badLength of [0, 1, 31, 33]) {
      const r = run(['--keyed', f], { stdin: new Uint8Array(badLength) });
      assert.notEqual(r.status, 0, `key of ${badLength} bytes`);
      assert.equal(r.out, '');
      assert.match(r.err, /key bytes/);
    }
  });

  it('test_derive_key', () => {
    const context = 'BLAKE3 2019-12-28 10:28:41 example context';
    const f = join(tempdir(), 'f');
    writeFileSync(f, 'key material');
    assert.equal(read(['--derive-key', context, '--no-names', f]), hex('key material', { context }));
  });

  it('test_no_mmap', () => {
    const f = join(tempdir(), 'f');
    writeFileSync(f, 'foo');
    assert.equal(read(['--no-mmap', '--no-names', f]), hex('foo'));
  });

  it('test_length_without_value_is_an_error', () => assert.notEqual(run(['--length'], { stdin: 'foo' }).status, 0));

  it('test_raw_with_multi_files_is_an_error', () => {
    const dir = tempdir();
    writeFileSync(join(dir, 'f1'), '');
    writeFileSync(join(dir, 'f2'), '');
    assert.equal(run(['--raw', join(dir, 'f1')]).status, 0);
    assert.notEqual(run(['--raw', join(dir, 'f1'), join(dir, 'f2')]).status, 0);
  });

  it('test_newline_and_backslash_escaping_on_unix', () => {
    const dir = tempdir();
    mkdirSync(join(dir, 'subdir'));
    const names = ['abcdef', 'abc\ndef', 'abc\\def', 'abc\rdef', 'abc\r\ndef', 'subdir/foo'];
    for (const name of names) writeFileSync(join(dir, name), '');
    const e = hex('');
    assert.equal(
      read(names, { cwd: dir }),
      `${e}  abcdef\n\\${e}  abc\\ndef\n\\${e}  abc\\\\def\n\\${e}  abc\\rdef\n\\${e}  abc\\r\\ndef\n${e}  subdir/foo`,
    );
  });

  it('test_invalid_unicode_on_unix', () => {
    const dir = tempdir();
    writeFileSync(join(dir, 'abcdef'), '');
    writeFileSync(Buffer.from(`${dir}/abc\xffdef`, 'latin1'), '');
    // Node cannot pass bytes that are not UTF-8 as arguments; the shell can.
    const r = spawnSync('/bin/sh', ['-c', `exec "$0" "$1" abcdef "$(printf 'abc\\377def')"`, process.execPath, b3web], {
      cwd: dir,
    });
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(r.stdout.toString(), `${hex('')}  abcdef\n${hex('')}  abc\uFFFDdef\n`);
  });

  it('test_check', () => {
    for (const tagged of [false, true]) {
      const dir = tempdir();
      writeFileSync(join(dir, 'a'), 'a');
      writeFileSync(join(dir, 'b'), 'b');
      mkdirSync(join(dir, 'c'));
      writeFileSync(join(dir, 'c/d'), 'cd');
      const r = run(['a', 'b', 'c/d', ...(tagged ? ['--tag'] : [])], { cwd: dir });
      const expectedCheckfile = tagged
        ? `BLAKE3 (a) = ${hex('a')}\nBLAKE3 (b) = ${hex('b')}\nBLAKE3 (c/d) = ${hex('cd')}\n`
        : `${hex('a')}  a\n${hex('b')}  b\n${hex('cd')}  c/d\n`;
      assert.equal(r.out, expectedCheckfile);
      assert.equal(r.err, '');

      const ok = 'a: OK\nb: OK\nc/d: OK\n';
      for (const checkfile of [expectedCheckfile, expectedCheckfile.replaceAll('\n', '\r\n')]) {
        const c = run(['--check'], { cwd: dir, stdin: checkfile });
        assert.deepEqual([c.status, c.out, c.err], [0, ok, '']);
      }

      const checkfilePath = join(dir, 'checkfile');
      writeFileSync(checkfilePath, expectedCheckfile);
      const twice = run(['--check', checkfilePath, checkfilePath], { cwd: dir });
      assert.deepEqual([twice.status, twice.out, twice.err], [0, ok + ok, '']);

      writeFileSync(join(dir, 'b'), 'CORRUPTION');
      const corrupt = run(['--check', checkfilePath], { cwd: dir });
      assert.deepEqual(
        [corrupt.status, corrupt.out, corrupt.err],
        [1, 'a: OK\nb: FAILED\nc/d: OK\n', 'b3web: WARNING: 1 computed checksum did NOT match\n'],
      );

      rmSync(join(dir, 'b'));
      const missing = run(['--check', checkfilePath], { cwd: dir });
      const openError = 'No such file or directory (os error 2)';
      assert.deepEqual(
        [missing.status, missing.out, missing.err],
        [1, `a: OK\nb: FAILED (${openError})\nc/d: OK\n`, 'b3web: WARNING: 1 computed checksum did NOT match\n'],
      );

      const quiet = run(['--check', '--quiet', checkfilePath], { cwd: dir });
      assert.deepEqual(
        [quiet.status, quiet.out, quiet.err],
        [1, `b: FAILED (${openError})\n`, 'b3web: WARNING: 1 computed checksum did NOT match\n'],
      );
    }
  });

  it('test_check_invalid_characters', () => {
    const zeros = '0'.repeat(64);
    for (const [line, message] of [
      [`${zeros}  \0`, 'Null character in path'],
      [`${zeros}  \uFFFD`, 'Unicode replacement character in path'],
      [`\\${zeros}  \\a`, 'Invalid backslash escape'],
    ]) {
      const r = run(['--check'], { stdin: line });
      assert.deepEqual(
        [r.status, r.out, r.err],
        [1, '', `b3web: ${message}\nb3web: WARNING: 1 computed checksum did NOT match\n`],
      );
    }
  });

  it('test_globbing', () => {
    const dir = tempdir();
    writeFileSync(join(dir, 'file1'), 'foo');
    writeFileSync(join(dir, 'file2'), 'bar');
    const r = spawnSync('/bin/sh', ['-c', `"${process.execPath}" "${b3web}" *`], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.stdout, `${hex('foo')}  file1\n${hex('bar')}  file2\n`);
  });
});

describe('b3sum unit_tests.rs', () => {
  it('test_parse_check_line: the cases that parse', () => {
    const cases: [string, number, boolean, string, string][] = [
      ['0909090909090909090909090909090909090909090909090909090909090909  foo', 0x09, false, 'foo', 'foo'],
      [
        'fafafafafafafafafafafafafafafafafafafafafafafafafafafafafafafafa   \t\r\n\n\r \t\r\n\n\r',
        0xfa,
        false,
        ' \t\r\n\n\r \t',
        ' \t\r\n\n\r \t',
      ],
      ['4242424242424242424242424242424242424242424242424242424242424242   ', 0x42, false, ' ', ' '],
      [
        '4343434343434343434343434343434343434343434343434343434343434343  fo\\a\\no',
        0x43,
        false,
        'fo\\a\\no',
        'fo\\a\\no',
      ],
      [
        '\\4444444444444444444444444444444444444444444444444444444444444444  fo\\r\\n\\n\\ro',
        0x44,
        true,
        'fo\\r\\n\\n\\ro',
        'fo\r\n\n\ro',
      ],
      [
        '\\4545454545454545454545454545454545454545454545454545454545454545  fo\\n\\\\o',
        0x45,
        true,
        'fo\\n\\\\o',
        'fo\n\\o',
      ],
      ['4646464646464646464646464646464646464646464646464646464646464646  否认', 0x46, false, '否认', '否认'],
      [
        '4747474747474747474747474747474747474747474747474747474747474747  foo  bar',
        0x47,
        false,
        'foo  bar',
        'foo  bar',
      ],
      [
        'BLAKE3 (foo) = bar) = 4848484848484848484848484848484848484848484848484848484848484848',
        0x48,
        false,
        'foo) = bar',
        'foo) = bar',
      ],
    ];
    for (const [line, byte, escaped, fileString, path] of cases) {
      const parsed = parseCheckLine(line);
      assert.equal(parsed.expectedHex, byte.toString(16).padStart(2, '0').repeat(32), line);
      assert.equal(parsed.shown, (escaped ? '\\' : '') + fileString, line);
      assert.equal(parsed.path, path, line);
    }
  });

  it('test_parse_check_line: the cases that fail', () => {
    const zeros = '0'.repeat(64);
    for (const line of [
      '',
      '0',
      '00',
      zeros,
      `${zeros}  `,
      `${zeros} foo`,
      `${'A'.repeat(64)}  foo`,
      `${'x'.repeat(64)}  foo`,
      '你好, 我叫杰克. 认识你很高兴. 要不要吃个香蕉?  foo',
      `\\${zeros}  fo\\o`,
      `\\${zeros}  foo\\`,
      `${zeros}  fo\0o`,
      `${zeros}  fo\uFFFDo`,
    ]) {
      assert.throws(() => parseCheckLine(line), Error, JSON.stringify(line));
    }
  });

  it('test_filepath_to_string', () => {
    assert.deepEqual(escapeName('foo'), { text: 'foo', escaped: false });
    assert.deepEqual(escapeName('f\\ \t\r\noo'), { text: 'f\\\\ \t\\r\\noo', escaped: true });
  });
});
