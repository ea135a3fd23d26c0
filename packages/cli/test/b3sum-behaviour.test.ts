// What b3web must do as b3sum 1.8 does, with b3sum's outputs written out (the differential test
// compares against the real tool): output of any length in flat memory, check files of any size
// line by line, names that are bytes, CR/LF/backslash escapes, and b3sum's usage errors.
import { blake3, bytesToHex } from '@blake3-web/core';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { b3web } from './run-tool.ts';

const dir = mkdtempSync(join(tmpdir(), 'b3web-behaviour-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'one'), 'one');
writeFileSync(join(dir, 'empty'), '');
const ONE = bytesToHex(blake3('one'));

type Run = { status: number | null; out: string; err: string };
function run(args: string[], opts: { stdin?: string | Uint8Array; env?: Record<string, string> } = {}): Run {
  const r = spawnSync(process.execPath, [b3web, ...args], {
    cwd: dir,
    input: opts.stdin ?? '',
    env: { ...process.env, ...opts.env },
    maxBuffer: 1 << 28,
  });
  return { status: r.status, out: r.stdout.toString(), err: r.stderr.toString() };
}
/** A heap far smaller than the data: only a tool that streams can finish. */
const SMALL_HEAP = { NODE_OPTIONS: '--max-old-space-size=24' };
const sh = (script: string) =>
  spawnSync('/bin/sh', ['-c', script, process.execPath, b3web], { cwd: dir, timeout: 120_000 });

describe('--length streams the output', () => {
  it('64 MiB of hex output with a 24 MiB heap, every byte right', async () => {
    const length = 64 << 20;
    // The expected hex, hashed as it is made, and b3web's, hashed as it arrives.
    const reader = blake3.create().update('one').reader();
    const want = blake3.create();
    for (let left = length; left > 0; left -= 1 << 20) want.update(bytesToHex(reader.read(Math.min(left, 1 << 20))));
    const got = blake3.create();
    const child = spawn(process.execPath, [b3web, '--no-names', '-l', String(length), 'one'], {
      cwd: dir,
      env: { ...process.env, ...SMALL_HEAP },
    });
    let size = 0;
    child.stdout.on('data', (d: Buffer) => ((size += d.length), got.update(d)));
    const status = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(status, 0);
    assert.equal(size, 2 * length + 1);
    assert.equal(bytesToHex(got.digest()), bytesToHex(want.update('\n').digest()));
  });

  it('accepts any u64 length, as b3sum does, and stops when the reader goes away', () => {
    const r = sh('"$0" "$1" -l 18446744073709551615 one | head -c 200');
    assert.equal(r.error, undefined, 'b3web must end when its output pipe closes');
    assert.equal(r.stdout.toString(), bytesToHex(blake3('one', { dkLen: 100 })));
  });

  it('a seek past 2^53, up to the end of the output stream', () => {
    const r = run(['--seek', String(2n ** 64n - 40n), '-l', '40', '--no-names', 'one']);
    const reader = blake3.create().update('one').reader();
    reader.position = 2n ** 64n - 40n;
    assert.deepEqual([r.status, r.out], [0, `${bytesToHex(reader.read(40))}\n`], r.err);
  });
});

describe('--check reads line by line', () => {
  // 600 lines of 60 KiB: each ends in CRs that the parser drops, as b3sum's does.
  const longLine = `${ONE}  one${'\r'.repeat(60_000)}\n`;
  const bigCheckfile = longLine.repeat(600);

  it('a 36 MiB check file with a 24 MiB heap, from a file and from stdin', () => {
    writeFileSync(join(dir, 'big-sums'), bigCheckfile);
    for (const [args, stdin] of [
      [['-c', 'big-sums'], ''],
      [['-c', '-'], bigCheckfile],
    ] as const) {
      const r = run([...args], { stdin, env: SMALL_HEAP });
      assert.deepEqual([r.status, r.err], [0, ''], args.join(' '));
      assert.equal(r.out, 'one: OK\n'.repeat(600));
    }
  });

  it('a line too long to name a file fails on its own, without being held', () => {
    const r = run(['-c'], { stdin: `${ONE}  ${'a'.repeat(100_000)}\n${ONE}  one\n` });
    assert.equal(r.status, 1);
    assert.equal(r.out, 'one: OK\n');
    assert.match(
      r.err,
      /^b3web: Check line too long to name a file\nb3web: WARNING: 1 computed checksum did NOT match\n$/,
    );
  });

  it('a line that is not UTF-8 stops the check, as b3sum does', () => {
    const r = run(['-c', '-'], {
      stdin: Buffer.concat([Buffer.from(`${ONE}  one\n`), Buffer.from([0xff, 0x0a]), Buffer.from(`${ONE}  one\n`)]),
    });
    assert.deepEqual([r.status, r.out, r.err], [1, 'one: OK\n', 'Error: stream did not contain valid UTF-8\n']);
  });
});

describe('file names are bytes', () => {
  it('a Latin-1 name opens, and prints lossily as b3sum prints it', () => {
    writeFileSync(Buffer.from(`${dir}/caf\xe9.txt`, 'latin1'), 'latte');
    const r = sh(`exec "$0" "$1" "$(printf 'caf\\351.txt')" one`);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(r.stdout.toString(), `${bytesToHex(blake3('latte'))}  caf\uFFFD.txt\n${ONE}  one\n`);
  });
});

describe('CR, LF and backslash in names', () => {
  it('a name with CR is escaped as \\r and its line verifies', () => {
    writeFileSync(join(dir, 'cr\r'), 'cr');
    const hashed = run(['cr\r', 'one']);
    assert.equal(hashed.out, `\\${bytesToHex(blake3('cr'))}  cr\\r\n${ONE}  one\n`);
    const checked = run(['-c'], { stdin: hashed.out });
    assert.deepEqual([checked.status, checked.out], [0, '\\cr\\r: OK\none: OK\n'], checked.err);
  });

  it('trailing CRs and LFs of a check line are all dropped', () => {
    const r = run(['-c'], { stdin: `${ONE}  one\r\r\n${ONE}  one\r\r` });
    assert.deepEqual([r.status, r.out, r.err], [0, 'one: OK\none: OK\n', '']);
  });
});

describe("b3sum's status and message for every command line", () => {
  const cases: [string[], number, string][] = [
    [
      ['--length', '-1', 'one'],
      2,
      "error: unexpected argument '-1' found\n\n  tip: to pass '-1' as a value, use '-- -1'\n",
    ],
    [
      ['one', '--seek'],
      2,
      "error: a value is required for '--seek <SEEK>' but none was supplied\n\nFor more information, try '--help'.\n",
    ],
    [
      ['one', ''],
      2,
      "error: a value is required for '[FILE]...' but none was supplied\n\nFor more information, try '--help'.\n",
    ],
    [['-c', 'empty'], 0, ''],
    [['-c'], 1, 'b3web: Invalid hash length\n'],
    [['--length=+5', '--no-names', 'one'], 0, ''],
  ];
  for (const [args, status, err] of cases) {
    it(`b3web ${args.map((a) => JSON.stringify(a)).join(' ')}`, () => {
      const r = run(args, { stdin: `${ONE.slice(2)}  one\n` });
      assert.equal(r.status, status, r.err);
      assert.ok(r.err.startsWith(err), `stderr:\n${r.err}`);
    });
  }

  it('short and 66-digit hashes: "Invalid hash length"', () => {
    const r = run(['-c'], { stdin: `${ONE.slice(2)}  one\n${ONE}00  one\n` });
    assert.deepEqual(
      [r.status, r.out, r.err],
      [
        1,
        '',
        'b3web: Invalid hash length\nb3web: Invalid hash length\nb3web: WARNING: 2 computed checksums did NOT match\n',
      ],
    );
  });

  it('--num-threads 300 hashes a file large enough for the worker pool', () => {
    const big = new Uint8Array(17 << 20).fill(7);
    writeFileSync(join(dir, 'big'), big);
    const r = run(['--num-threads', '300', '--no-names', 'big']);
    assert.deepEqual([r.status, r.out, r.err], [0, `${bytesToHex(blake3(big))}\n`, '']);
  });
});
