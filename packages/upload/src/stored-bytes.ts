/**
 * How the verifying store reads back bytes a store kept, for the stores tus ships: a FileStore's
 * directory (any upload, finished or not) and an S3Store's bucket (ranged GETs of a finished
 * upload: S3 cannot read the parts of a multipart upload in progress, so those bytes are read at
 * the finish).
 * @module
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from './_assert.js';
import type { StoredBytes } from './verifying-store.js';

const READ_BYTES = 4 << 20;

/** Reads the uploads of a `@tus/file-store` FileStore kept in `directory`. */
export function fileStoreBytes(directory: string): StoredBytes {
  if (typeof directory !== 'string') throw new TypeError(`directory must be a string, got ${describe(directory)}`);
  return async (id, start, end) => readFile(join(directory, id), id, start, end);
}

async function* readFile(path: string, id: string, start: number, end: number): AsyncIterable<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const buffer = new Uint8Array(Math.min(READ_BYTES, end - start));
    for (let at = start; at < end;) {
      const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, end - at), at);
      if (bytesRead === 0) throw new Error(`upload ${id} has ${at} bytes in its file, expected ${end}`);
      yield buffer.subarray(0, bytesRead);
      at += bytesRead;
    }
  } finally {
    await file.close();
  }
}

/** The part of an S3 client the reader uses (`@aws-sdk/client-s3`'s `S3`). */
type S3Reads = {
  getObject(input: { Bucket: string; Key: string; Range?: string }): Promise<{ Body?: unknown }>;
  deleteObjects(input: { Bucket: string; Delete: { Objects: { Key: string }[] } }): Promise<unknown>;
};

function s3Of(store: object): { client: S3Reads; bucket: string } {
  const { client, bucket } = store as { client?: S3Reads; bucket?: string };
  if (
    typeof client?.getObject !== 'function' ||
    typeof client.deleteObjects !== 'function' ||
    typeof bucket !== 'string'
  )
    throw new TypeError(`store must be an S3Store (with its client and bucket), got ${describe(store)}`);
  return { client, bucket };
}

/**
 * Deletes a finished upload of an S3Store and its `.info` object, which S3Store's own `remove`
 * leaves once the multipart upload completed (`Blake3StoreOpts.erase`).
 */
export function s3StoreEraser(store: object): (id: string) => Promise<void> {
  const { client, bucket } = s3Of(store);
  return async (id) => {
    await client.deleteObjects({ Bucket: bucket, Delete: { Objects: [{ Key: id }, { Key: `${id}.info` }] } });
  };
}

/**
 * Reads the finished uploads of an `@tus/s3-store` S3Store (its own client and bucket), with
 * ranged GETs; an upload still in progress answers `undefined` (read at the finish).
 */
export function s3StoreBytes(store: object): StoredBytes {
  const { client, bucket } = s3Of(store);
  return async (id, start, end) => {
    if (start >= end) return (async function* () {})();
    let body: unknown;
    try {
      ({ Body: body } = await client.getObject({ Bucket: bucket, Key: id, Range: `bytes=${start}-${end - 1}` }));
    } catch (e) {
      const name = (e as { name?: string; Code?: string }).name ?? (e as { Code?: string }).Code;
      if (name === 'NoSuchKey' || name === 'NotFound') return undefined;
      throw e;
    }
    if (body === null || typeof body !== 'object' || !(Symbol.asyncIterator in body))
      throw new Error(`upload ${id}: S3 answered a GET without a body`);
    return counted(body as AsyncIterable<Uint8Array>, id, end - start);
  };
}

/** The body's bytes, refusing one that is not exactly `length` long (a store that ignored the range). */
async function* counted(body: AsyncIterable<Uint8Array>, id: string, length: number): AsyncIterable<Uint8Array> {
  let got = 0;
  for await (const bytes of body) {
    got += bytes.length;
    if (got > length) throw new Error(`upload ${id}: S3 answered more than the ${length} bytes asked for`);
    yield bytes;
  }
  if (got !== length) throw new Error(`upload ${id}: S3 answered ${got} bytes, expected ${length}`);
}
