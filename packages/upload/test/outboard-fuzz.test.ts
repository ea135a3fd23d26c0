// Seeded fuzzing of the Bao outboards the upload server writes, against the official `bao` 0.13.1
// CLI: the store's outboard (writes of random sizes, writes that fail after other bytes went
// through, the client sending again from the offset kept, restarts that rebuild the tree from the
// file) and `BaoEncoder` (the stream package's in-memory encoder, fed at random boundaries). With
// 1 KiB leaves both must be byte for byte `bao encode --outboard` of the file; with 16 KiB leaves
// (which `bao` does not write) equal to each other and decode the file against `bao hash`.
// The store's builder is also driven alone, where a rewind can follow parents already appended to
// its file (the store appends them 256 KiB at a time, 4 MiB into a request with 1 KiB leaves).
// Bounded in time; the seed is in every message (BLAKE3_TEST_SEED=<seed> runs the same cases).
import { bytesToHex } from '@blake3-web/core';
import { Mode } from '@blake3-web/core/hazmat';
import { baoDecode, BaoEncoder } from '@blake3-web/stream';
import { Random, testSeed } from '@blake3-web/testkit';
import { Upload } from '@tus/utils';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, it } from 'node:test';
// @ts-expect-error: plain .mjs shared with the bootstrap
import { BAO_VERSION, baoInstall, baoIsPinned, baoPath } from '../../stream/setup/bao-setup.mjs';
import { LeafRun, type LeafRunRecord } from '../src/_leaf-runs.ts';
import { OutboardBuilder } from '../src/_outboard-builder.ts';
import { SharedHashState } from '../src/_shared-state.ts';
import { Blake3FileStore, ROOT_HEADER, VERIFIED_HEADER, verifyBlake3 } from '../src/tus-server.ts';
import { STATE_REFUSED_EVENT } from '../src/tus-store.ts';

const seed = testSeed();
const rng = new Random(seed ^ 0xb40f);
/** Each fuzz stops starting cases after this long (they run in every `npm test`). */
const BUDGET_MS = 3000;
const root = mkdtempSync(join(tmpdir(), 'blake3-obao-fuzz-'));
after(() => rmSync(root, { recursive: true, force: true }));

const bao = (...args: string[]): Uint8Array => new Uint8Array(execFileSync(baoPath, args, { maxBuffer: 1 << 28 }));

/** A request body that sends `bytes` in random pieces and then, if `fail`, breaks like a dropped connection. */
function body(bytes: Uint8Array, fail: boolean): Readable {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = rng.pick([1, 1023, 1024, 1025, rng.int(1, 70_000)]);
    pieces.push(bytes.subarray(i, (i += n)));
  }
  return Readable.from(
    (async function* () {
      for (const piece of pieces) yield Buffer.from(piece);
      if (fail) throw new Error('connection reset');
    })(),
  );
}

/** A size near the leaf boundaries the tree's shape turns on, or any size. */
function size(leafBytes: number): number {
  const leaves = rng.pick([0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, rng.int(0, 70)]);
  return rng.int(0, 2) === 0 ? rng.int(0, 300_000) : Math.max(0, leaves * leafBytes + rng.int(-2, 2));
}

/**
 * Uploads `data` to a store in `dir` the way tus does through faults: requests of random sizes,
 * some dropped after part of their bytes went through (the upload's, or other bytes, as a
 * retry of a file that changed sends: what reached the disk of them stays), the next one sent
 * from the offset the store kept, and restarts of the store between requests. Returns the store,
 * the upload written, and the bytes on disk.
 */
async function upload(dir: string, data: Uint8Array, chunkGroupLog: number, what: string) {
  const opts = { directory: dir, outboard: { chunkGroupLog } };
  let store = new Blake3FileStore(opts);
  await store.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
  for (let offset = 0, requests = 0; offset < data.length; requests++) {
    assert.ok(requests < 300, `${what}: the upload makes no progress`);
    if (rng.int(0, 4) === 0) store = new Blake3FileStore(opts);
    const end = Math.min(data.length, offset + rng.int(1, Math.max(1, data.length >> rng.int(0, 3))));
    if (rng.int(0, 3) === 0) {
      const sent = rng.int(0, 1) === 0 ? data.subarray(offset, end) : rng.bytes(end - offset);
      await assert.rejects(store.write(body(sent.subarray(0, rng.int(0, sent.length)), true), 'u', offset));
      offset = (await store.getUpload('u')).offset;
      continue;
    }
    assert.equal(await store.write(body(data.subarray(offset, end), false), 'u', offset), end);
    offset = end;
  }
  return { store, content: new Uint8Array(readFileSync(join(dir, 'u'))) };
}

/** `BaoEncoder` fed `data` at random boundaries, empty pieces included. */
function encoderOutboard(data: Uint8Array, chunkGroupLog: number): { hash: Uint8Array; outboard: Uint8Array } {
  const encoder = new BaoEncoder({ chunkGroupLog });
  for (let i = 0; i < data.length;) {
    const n = rng.pick([0, 1, 1023, 1024, 1025, 16_384, rng.int(0, 100_000)]);
    encoder.update(data.subarray(i, (i += n)));
  }
  return encoder.finalize();
}

it(`the store's outboard and BaoEncoder's equal bao ${BAO_VERSION}'s over random writes, failed writes and restarts (seed ${seed})`, async () => {
  assert.ok(
    baoIsPinned(),
    `bao ${BAO_VERSION} is not installed: run node scripts/bootstrap.mjs --test (${baoInstall})`,
  );
  const deadline = Date.now() + BUDGET_MS;
  let cases = 0;
  for (; cases < 400 && (cases < 8 || Date.now() < deadline); cases++) {
    const chunkGroupLog = cases % 2 === 0 ? 0 : 4;
    let what = `seed ${seed}, case ${cases}, chunkGroupLog ${chunkGroupLog}`;
    const dir = join(root, String(cases));
    const { store, content } = await upload(dir, rng.bytes(size(1024 << chunkGroupLog)), chunkGroupLog, what);
    const file = join(dir, 'u');
    const hash = new TextDecoder().decode(bao('hash', file)).split(/\s+/)[0];
    const request = new Request('http://127.0.0.1/files/u', { method: 'PATCH', headers: { [ROOT_HEADER]: hash } });
    const data = content;
    what += `, ${data.length} bytes`;
    assert.deepEqual(await verifyBlake3(store)(request, await store.getUpload('u')), {
      headers: { [VERIFIED_HEADER]: hash },
    });
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('u.')),
      ['u.json', 'u.obao'],
      `${what}: the upload's files once it verified`,
    );
    assert.deepEqual(
      readdirSync(join(dir, '.blake3')),
      ['u.verified.json'],
      `${what}: its records once it verified (no state or leaf run left)`,
    );
    const stored = new Uint8Array(readFileSync(store.outboardPath('u')));
    const encoded = encoderOutboard(data, chunkGroupLog);
    assert.equal(bytesToHex(encoded.hash), hash, `${what}: BaoEncoder's hash`);
    if (chunkGroupLog === 0) {
      bao('encode', file, `--outboard=${join(dir, 'ref.obao')}`);
      const reference = new Uint8Array(readFileSync(join(dir, 'ref.obao')));
      assert.deepEqual(stored, reference, `${what}: the store's outboard`);
      assert.deepEqual(encoded.outboard, reference, `${what}: BaoEncoder's outboard`);
    } else {
      assert.deepEqual(stored, encoded.outboard, `${what}: the store's outboard and BaoEncoder's`);
      assert.deepEqual(baoDecode(data, hash, { outboard: stored, chunkGroupLog }), data, `${what}: decodes`);
      if (data.length > 0) {
        const flipped = Uint8Array.from(data);
        flipped[rng.int(0, data.length - 1)] ^= 1;
        assert.throws(() => baoDecode(flipped, hash, { outboard: stored, chunkGroupLog }), { name: 'IntegrityError' });
      }
    }
    rmSync(dir, { recursive: true, force: true });
    assert.ok(!existsSync(dir));
  }
  assert.ok(cases >= 8, `seed ${seed}: ${cases} cases`);
});

it(`the store's outboard builder alone equals bao ${BAO_VERSION} over appends, rewinds after failed writes and flushes (seed ${seed})`, async () => {
  assert.ok(
    baoIsPinned(),
    `bao ${BAO_VERSION} is not installed: run node scripts/bootstrap.mjs --test (${baoInstall})`,
  );
  const deadline = Date.now() + BUDGET_MS;
  let cases = 0;
  for (; cases < 400 && (cases < 8 || Date.now() < deadline); cases++) {
    const chunkGroupLog = cases % 2 === 0 ? 0 : 4;
    const data = rng.bytes(size(1024 << chunkGroupLog) * rng.pick([1, 1, 4]));
    const what = `seed ${seed}, builder case ${cases}: ${data.length} bytes, chunkGroupLog ${chunkGroupLog}`;
    const dir = mkdtempSync(join(root, 'b'));
    const builder = new OutboardBuilder(join(dir, 'parents'), chunkGroupLog);
    let checkpoint = builder.checkpoint();
    for (let steps = 0; builder.length < data.length; steps++) {
      assert.ok(steps < 10_000, `${what}: no progress`);
      const at = builder.length;
      const n = rng.pick([0, 1, 1023, 1024, 1025, 16_384, rng.int(1, 200_000)]);
      const action = rng.int(0, 9);
      if (action === 0) {
        // A write that fails: other bytes go in, maybe appended, then the builder goes back.
        builder.update(rng.bytes(n));
        if (rng.int(0, 1) === 0) await builder.flush();
        builder.rewind(checkpoint);
        continue;
      }
      builder.update(data.subarray(at, at + n));
      if (action === 1) await builder.flush();
      if (action === 2) {
        await builder.flush();
        checkpoint = builder.checkpoint();
      }
    }
    const hash = bytesToHex(builder.root());
    await builder.writeOutboard(join(dir, 'u.obao'));
    assert.deepEqual(readdirSync(dir), ['u.obao'], `${what}: the parents file is removed`);
    const outboard = new Uint8Array(readFileSync(join(dir, 'u.obao')));
    writeFileSync(join(dir, 'u'), data);
    assert.equal(hash, new TextDecoder().decode(bao('hash', join(dir, 'u'))).split(/\s+/)[0], `${what}: root`);
    if (chunkGroupLog === 0) {
      bao('encode', join(dir, 'u'), `--outboard=${join(dir, 'ref.obao')}`);
      assert.deepEqual(outboard, new Uint8Array(readFileSync(join(dir, 'ref.obao'))), `${what}: outboard`);
    } else {
      assert.deepEqual(baoDecode(data, hash, { outboard, chunkGroupLog }), data, `${what}: decodes`);
      assert.deepEqual(
        outboard,
        new BaoEncoder({ chunkGroupLog }).update(data).finalize().outboard,
        `${what}: outboard`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(cases >= 8, `seed ${seed}: ${cases} cases`);
});

it('leaf runs that are damaged or of other bytes are never part of an outboard: the finish reads the bytes back', async () => {
  for (const fault of ['damaged', 'other bytes'] as const) {
    const dir = mkdtempSync(join(root, 'f'));
    const data = rng.bytes(3 << 20);
    const store = new Blake3FileStore({ directory: dir, outboard: { chunkGroupLog: 0 } });
    const refused: string[] = [];
    store.on(STATE_REFUSED_EVENT, (_id: string, e: Error) => refused.push(e.message));
    await store.create(new Upload({ id: 'u', size: data.length, offset: 0 }));
    assert.equal(await store.write(body(data.subarray(0, 1 << 20), false), 'u', 0), 1 << 20);
    const path = join(dir, '.blake3', 'u.obao-run%400.json');
    const run = JSON.parse(readFileSync(path, 'utf8')) as LeafRunRecord;
    // Its first character changed (to one it is not: a run whose values began with `A` was left whole).
    if (fault === 'damaged')
      writeFileSync(path, JSON.stringify({ ...run, cvs: `${run.cvs[0] === 'A' ? 'B' : 'A'}${run.cvs.slice(1)}` }));
    else {
      // A well-formed run of the same stretch made from other bytes (a store that kept other
      // bytes than passed through it).
      const other = new LeafRun(0, 1024, SharedHashState.empty('u', {}), new Mode({}), true);
      other.update(rng.bytes(1 << 20));
      writeFileSync(path, JSON.stringify(other.record('u')));
    }
    assert.equal(await store.write(body(data.subarray(1 << 20), false), 'u', 1 << 20), data.length);
    const reference = new BaoEncoder({ chunkGroupLog: 0 }).update(data).finalize();
    const request = new Request('http://127.0.0.1/files/u', {
      method: 'PATCH',
      headers: { [ROOT_HEADER]: bytesToHex(reference.hash) },
    });
    const before = store.bytesReadBack;
    assert.deepEqual(await verifyBlake3(store)(request, await store.getUpload('u')), {
      headers: { [VERIFIED_HEADER]: bytesToHex(reference.hash) },
    });
    assert.deepEqual(new Uint8Array(readFileSync(store.outboardPath('u'))), reference.outboard, fault);
    if (fault === 'damaged') {
      assert.match(refused.join(), /outboard leaf run refused: the checksum does not match/);
      assert.equal(store.bytesReadBack - before, 1 << 20, 'the stretch of the damaged run is read back');
    } else assert.equal(store.bytesReadBack - before, data.length, 'every byte is read back');
  }
});
