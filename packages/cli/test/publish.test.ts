// b3web-publish beside the reference tools: with 1 KiB groups its outboard is byte for byte what
// `bao encode --outboard` (0.13.1) writes, and with any group size what the stream package's
// in-memory encoder writes; the root it prints is b3sum's line for the file. Then its command
// line, its manifest, and its memory on a file much larger than what it may hold.
import { bytesToHex } from '@blake3-web/core';
import { baoDecode, baoEncode } from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain .mjs shared with the bootstrap
import { BAO_VERSION, baoInstall, baoIsPinned, baoPath } from '../../stream/setup/bao-setup.mjs';
import { publishMain } from '../src/publish-main.ts';
import { b3sum, runTool } from './run-tool.ts';

const bin = fileURLToPath(new URL('../bin/b3web-publish.js', import.meta.url));
const publish = (args: string[], cwd?: string) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd });
/** publishMain in this process (the bin is its two lines): what it printed and its status. */
async function publishHere(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await publishMain(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t) });
  return { status, stdout, stderr };
}
const seed = testSeed();
const rng = new Random(seed ^ 0x9b15);
const dir = mkdtempSync(join(tmpdir(), 'b3web-publish-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Sizes the tree's shape turns on (empty, one chunk and one byte more, whole groups ±1), and random ones up to several MiB. */
function sizes(groupBytes: number): number[] {
  const fixed = [0, 1, 1023, 1024, 1025, 2048, 2049, groupBytes - 1, groupBytes, groupBytes + 1, 3 * groupBytes + 1];
  const random = Array.from({ length: 6 }, () => rng.int(0, 300_000));
  return [...new Set([...fixed, ...random, 5 * 2 ** 20 + rng.int(0, 2 ** 20)])];
}

describe(`b3web-publish (seed ${seed})`, () => {
  it(`--chunk-group-log 0: the outboard is bao ${BAO_VERSION}'s, the printed line b3sum's`, async () => {
    assert.ok(
      baoIsPinned(),
      `bao ${BAO_VERSION} is not installed: run node scripts/bootstrap.mjs --test (${baoInstall})`,
    );
    const out = join(dir, 'log0');
    mkdirSync(out);
    for (const size of sizes(1024)) {
      const file = join(out, `f${size}.bin`);
      writeFileSync(file, rng.bytes(size));
      const r = await publishHere(['--chunk-group-log', '0', file]);
      assert.equal(r.status, 0, `${size} bytes: ${r.stderr}`);
      assert.equal(r.stdout, execFileSync(b3sum, [file], { encoding: 'utf8' }), `${size} bytes: the root line`);
      execFileSync(baoPath, ['encode', file, `--outboard=${file}.ref`]);
      assert.deepEqual(readFileSync(`${file}.obao`), readFileSync(`${file}.ref`), `${size} bytes: the outboard`);
    }
  });

  for (const log of [4, 2]) {
    it(`--chunk-group-log ${log}: the outboard is the in-memory encoder's and decodes the file under b3sum's root`, async () => {
      const out = join(dir, `log${log}`);
      mkdirSync(out);
      for (const size of sizes(1024 << log)) {
        const content = rng.bytes(size);
        const file = join(out, `f${size}`);
        writeFileSync(file, content);
        const r = await publishHere([...(log === 4 ? [] : ['--chunk-group-log', String(log)]), file]);
        assert.equal(r.status, 0, `${size} bytes: ${r.stderr}`);
        const root = r.stdout.slice(0, 64);
        assert.equal(r.stdout, execFileSync(b3sum, [file], { encoding: 'utf8' }), `${size} bytes: the root line`);
        const outboard = new Uint8Array(readFileSync(`${file}.obao`));
        const expected = baoEncode(content, { outboard: true, chunkGroupLog: log });
        assert.deepEqual(outboard, expected.encoded, `${size} bytes: the outboard`);
        assert.deepEqual(baoDecode(content, root, { outboard, chunkGroupLog: log }), content);
        const manifest = JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8'));
        assert.deepEqual(manifest, {
          version: 1,
          name: `f${size}`,
          size,
          root: bytesToHex(expected.hash),
          chunkGroupLog: log,
          outboard: `f${size}.obao`,
        });
      }
    });
  }

  it('--source URLs go into the manifest (a directory URL completed with the name), --out-dir holds what is written', () => {
    const src = join(dir, 'src');
    const out = join(dir, 'out');
    mkdirSync(src);
    mkdirSync(out);
    const names = ['a b#1.bin', 'c.bin'];
    for (const n of names) writeFileSync(join(src, n), rng.bytes(40_000));
    const r = publish([
      '--source',
      'https://cdn.example/d/',
      '--source',
      'http://127.0.0.1:8080/',
      '--out-dir',
      out,
      ...names.map((n) => join(src, n)),
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readdirSync(src).sort(), names.slice().sort());
    assert.deepEqual(readdirSync(out).sort(), names.flatMap((n) => [`${n}.manifest.json`, `${n}.obao`]).sort());
    const m = JSON.parse(readFileSync(join(out, 'a b#1.bin.manifest.json'), 'utf8'));
    assert.equal(m.outboard, 'a%20b%231.bin.obao');
    assert.deepEqual(m.sources, ['https://cdn.example/d/a%20b%231.bin', 'http://127.0.0.1:8080/a%20b%231.bin']);

    const one = publish(['--source', 'https://cdn.example/exact/name', '--no-manifest', join(src, 'c.bin')]);
    assert.equal(one.status, 2);
    const bare = publish(['--no-manifest', '--out-dir', join(dir, 'bare'), join(src, 'c.bin')]);
    assert.equal(bare.status, 1, 'a directory that does not exist is an error of the file');
    mkdirSync(join(dir, 'bare'));
    assert.equal(publish(['--no-manifest', '--out-dir', join(dir, 'bare'), join(src, 'c.bin')]).status, 0);
    assert.deepEqual(readdirSync(join(dir, 'bare')), ['c.bin.obao']);
  });

  it('usage errors exit 2 naming what arrived; an unreadable file exits 1 after the others are published', async () => {
    const cases: [string[], RegExp][] = [
      [[], /no FILE given/],
      [['--chunk-group-log', '17', 'x'], /--chunk-group-log must be an integer from 0 to 16, got '17'/],
      [['--chunk-group-log', '-1', 'x'], /chunk-group-log/],
      [['--chunk-group-log', '4.5', 'x'], /got '4\.5'/],
      [['--source', 'not a url', 'x'], /--source must be an absolute URL, got 'not a url'/],
      [['--source', 'ftp://h/x', 'x'], /http: or https:/],
      [['--source', 'https://h/one', 'x', 'y'], /names one file but 2 files were given/],
      [['--bogus', 'x'], /bogus/],
      [['-'], /standard input/],
    ];
    for (const [args, message] of cases) {
      const r = await publishHere(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
    const help = await publishHere(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--chunk-group-log[\s\S]*--source[\s\S]*--out-dir[\s\S]*--no-manifest/);

    const out = join(dir, 'partial');
    mkdirSync(out);
    writeFileSync(join(out, 'ok'), rng.bytes(5000));
    const r = publish(['missing', 'ok'], out);
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'b3web-publish: missing: No such file or directory (os error 2)\n');
    assert.equal(r.stdout, execFileSync(b3sum, ['ok'], { cwd: out, encoding: 'utf8' }));
    assert.deepEqual(readdirSync(out).sort(), ['ok', 'ok.manifest.json', 'ok.obao']);
  });

  it("b3web's own command line is unchanged: `b3web publish f` hashes files named publish and f, as b3sum does", async () => {
    const out = join(dir, 'compat');
    mkdirSync(out);
    writeFileSync(join(out, 'f'), 'x');
    const ours = await runTool('b3web', ['publish', 'f'], { cwd: out });
    const theirs = await runTool('b3sum', ['publish', 'f'], { cwd: out });
    assert.equal(ours.status, theirs.status);
    assert.deepEqual(ours.stdout, theirs.stdout);
    assert.equal(ours.stderr, theirs.stderr.replaceAll('b3sum', 'b3web'));
  });

  it('memory stays bounded: a 512 MiB file is published with a peak RSS far below its size', () => {
    const file = join(dir, 'sparse');
    writeFileSync(file, '');
    truncateSync(file, 2 ** 29);
    const script = `import { publishMain } from ${JSON.stringify(new URL('../dist/publish-main.js', import.meta.url).href)};
      const status = await publishMain([${JSON.stringify(file)}], { out() {}, err: (t) => process.stderr.write(t) });
      process.stdout.write(JSON.stringify({ status, rss: process.resourceUsage().maxRSS * 1024 }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const { status, rss } = JSON.parse(r.stdout);
    assert.equal(status, 0);
    // Node alone takes ~45 MiB; a 4 MiB piece, 256 KiB of queued parents, 1 MiB reordered at the end.
    assert.ok(rss < 160 * 2 ** 20, `peak RSS ${(rss / 2 ** 20).toFixed(0)} MiB`);
    assert.equal(readFileSync(`${file}.obao`).length, 8 + 64 * (2 ** 29 / 16384 - 1));
    assert.ok(!existsSync(`${file}.obao.parents`), 'the file of parents is removed');
  });
});
