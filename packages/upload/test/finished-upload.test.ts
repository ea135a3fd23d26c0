// A verified upload is final: a request that reaches its end again (an empty PATCH, with or
// without a root) is answered from the record of its verification, never hashed again nor
// removed, across a restart too; tus's expiry sweep leaves it alone.
import { blake3, bytesToHex } from '@blake3-web/core';
import { Random } from '@blake3-web/testkit';
import { Server } from '@tus/server';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { Blake3FileStore, MISMATCH_STATUS, ROOT_HEADER, VERIFIED_HEADER, verifyBlake3 } from '../src/tus-server.ts';
import { listenTus } from './_tus-server.ts';

const directory = mkdtempSync(join(tmpdir(), 'blake3-final-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/** A tus server on `directory` that refuses to terminate finished uploads, as in production. */
async function serve() {
  const store = new Blake3FileStore({ directory, outboard: { chunkGroupLog: 0 } });
  const tus = new Server({
    path: '/files',
    datastore: store,
    allowedHeaders: [ROOT_HEADER],
    exposedHeaders: [VERIFIED_HEADER],
    disableTerminationForFinishedUploads: true,
    onUploadFinish: verifyBlake3(store),
  });
  return { store, ...(await listenTus(tus)) };
}

const TUS = { 'Tus-Resumable': '1.0.0' };

async function create(endpoint: string, size: number): Promise<string> {
  const res = await fetch(endpoint, { method: 'POST', headers: { ...TUS, 'Upload-Length': String(size) } });
  assert.equal(res.status, 201);
  return new URL(res.headers.get('location')!, endpoint).href;
}

function patch(url: string, offset: number, body: Uint8Array, root?: string): Promise<Response> {
  return fetch(url, {
    method: 'PATCH',
    headers: {
      ...TUS,
      'Upload-Offset': String(offset),
      'Content-Type': 'application/offset+octet-stream',
      ...(root === undefined ? {} : { [ROOT_HEADER]: root }),
    },
    body: new Blob([body as Uint8Array<ArrayBuffer>]),
  });
}

it('an empty PATCH to a verified upload neither checks it again nor removes it, before and after a restart', async () => {
  const data = new Random(11).bytes(300_000);
  const root = bytesToHex(blake3(data));
  let server = await serve();
  try {
    const url = await create(server.endpoint, data.length);
    const id = url.slice(url.lastIndexOf('/') + 1);
    const done = await patch(url, 0, data, root);
    assert.equal(done.status, 204);
    assert.equal(done.headers.get(VERIFIED_HEADER), root);
    const outboard = readFileSync(server.store.outboardPath(id));

    // No body, no root: refused as a claim, and the upload is kept as it was.
    const empty = await patch(url, data.length, new Uint8Array(0));
    assert.equal(empty.status, MISMATCH_STATUS);
    assert.match(await empty.text(), /no Upload-Blake3 header; the upload verified earlier and is kept/);
    assert.deepEqual(new Uint8Array(readFileSync(join(directory, id))), data);
    assert.deepEqual(readFileSync(server.store.outboardPath(id)), outboard);
    assert.equal((await fetch(url, { method: 'DELETE', headers: TUS })).status, 400, 'tus keeps it');

    // A wrong root is refused the same way.
    const wrong = await patch(url, data.length, new Uint8Array(0), bytesToHex(blake3(data.subarray(1))));
    assert.equal(wrong.status, MISMATCH_STATUS);
    assert.ok(existsSync(join(directory, id)));

    // The right root again is answered from the record, not by hashing the file again: a byte
    // changed on disk since would fail a new check.
    const onDisk = Uint8Array.from(data);
    onDisk[1234] ^= 1;
    writeFileSync(join(directory, id), onDisk);
    const again = await patch(url, data.length, new Uint8Array(0), root);
    assert.equal(again.status, 204);
    assert.equal(again.headers.get(VERIFIED_HEADER), root);

    // A restarted server knows the upload verified.
    await server.close();
    server = await serve();
    const moved = new URL(new URL(url).pathname, server.endpoint).href;
    const restarted = await patch(moved, data.length, new Uint8Array(0));
    assert.equal(restarted.status, MISMATCH_STATUS);
    assert.ok(existsSync(join(directory, id)));
    assert.ok(existsSync(server.store.outboardPath(id)));
    const byRoot = await patch(moved, data.length, new Uint8Array(0), root);
    assert.equal(byRoot.status, 204);
    assert.equal(byRoot.headers.get(VERIFIED_HEADER), root);
    // And it takes no byte more.
    const more = await patch(moved, data.length, new Uint8Array(1), root);
    assert.notEqual(more.status, 204);
    assert.deepEqual(new Uint8Array(readFileSync(join(directory, id))), onDisk);
  } finally {
    await server.close();
  }
});

it("tus's expiry sweep removes an expired upload that did not verify and keeps one that did", async () => {
  const server = await serve();
  try {
    const data = new Random(12).bytes(50_000);
    const verified = await create(server.endpoint, data.length);
    assert.equal((await patch(verified, 0, data, bytesToHex(blake3(data)))).status, 204);
    const unfinished = await create(server.endpoint, data.length);
    assert.equal((await patch(unfinished, 0, data.subarray(0, 20_000))).status, 204);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The sweep as a server whose uploads expire after 1 ms runs it.
    const sweeper = new Blake3FileStore({
      directory,
      outboard: { chunkGroupLog: 0 },
      expirationPeriodInMilliseconds: 1,
    });
    assert.equal(await sweeper.deleteExpired(), 1);
    const idOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
    assert.ok(existsSync(join(directory, idOf(verified))), 'the verified upload is kept');
    assert.ok(existsSync(server.store.outboardPath(idOf(verified))));
    assert.ok(!existsSync(join(directory, idOf(unfinished))), 'the unfinished one expired');
  } finally {
    await server.close();
  }
});
