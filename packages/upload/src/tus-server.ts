/**
 * The server side, for @tus/server 2 with @tus/file-store: a FileStore that hashes each upload
 * as its bytes are written (no second read of the file), and an `onUploadFinish` hook that
 * refuses the upload unless the root the client sent in the `Upload-Blake3` header equals the
 * hash of the bytes stored. A missing or malformed root is refused too; a refused upload is
 * removed, so it is never reported or kept as complete.
 *
 * @example
 * ```ts
 * import { Server } from '@tus/server';
 * import { Blake3FileStore, verifyBlake3, ROOT_HEADER } from '@blake3-web/upload/tus-server';
 * const datastore = new Blake3FileStore({ directory: './uploads' });
 * const server = new Server({ path: '/files', datastore, allowedHeaders: [ROOT_HEADER], onUploadFinish: verifyBlake3(datastore) });
 * ```
 * @module
 */
import { bytesToHex, hexToBytes } from '@blake3-web/core';
import { FileStore } from '@tus/file-store';
import type { Upload } from '@tus/utils';
import { timingSafeEqual } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import type { HashMode } from './_subtrees.js';
import { UploadHasher } from './upload-hasher.js';
import { ROOT_HEADER } from './tus.js';

export { ROOT_HEADER };

/** The header of a verified upload's final response: the root the server computed, in hex. */
export const VERIFIED_HEADER = 'Upload-Blake3-Verified';

export type Blake3FileStoreOpts = ConstructorParameters<typeof FileStore>[0] & HashMode;

/** The status of a refused upload (tus's own "checksum mismatch" status). */
export const MISMATCH_STATUS = 460;

const READ_BYTES = 4 << 20;

export class Blake3FileStore extends FileStore {
  readonly #directory: string;
  readonly #mode: HashMode;
  /** Per upload, a hasher that has taken exactly the bytes on disk. */
  readonly #hashers = new Map<string, UploadHasher>();

  constructor(opts: Blake3FileStoreOpts) {
    const { key, context, ...storeOpts } = opts;
    super(storeOpts);
    this.#directory = storeOpts.directory;
    this.#mode = key !== undefined ? { key } : context !== undefined ? { context } : {};
    new UploadHasher(this.#mode); // checks key and context now, not at the first upload
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const hasher = await this.#hasherAt(id, offset);
    const before = hasher.checkpoint();
    const tee = new Transform({
      transform(chunk: Uint8Array, _encoding, callback) {
        try {
          hasher.write(hasher.offset, chunk);
          callback(null, chunk);
        } catch (e) {
          callback(e as Error);
        }
      },
    });
    readable.on('error', (e) => tee.destroy(e));
    let written: number | undefined;
    try {
      written = await super.write(readable.pipe(tee), id, offset);
      return written;
    } finally {
      // The hash must cover exactly the bytes on disk: bytes that passed the tee but were not
      // written (a dropped connection) are taken back by resuming from before this write.
      const onDisk = written ?? (await stat(join(this.#directory, id))).size;
      if (hasher.offset !== onDisk) {
        const resumed = new UploadHasher({ ...this.#mode, checkpoint: before });
        this.#hashers.set(id, resumed);
        await this.#readInto(resumed, id, onDisk);
      }
    }
  }

  override async remove(id: string): Promise<void> {
    this.#hashers.delete(id);
    await super.remove(id);
  }

  /** The BLAKE3 hash of the upload's bytes on disk (`size` of them), from the hash kept while writing. */
  async rootOf(id: string, size: number): Promise<Uint8Array> {
    const hasher = await this.#hasherAt(id, size);
    return hasher.digest();
  }

  /** A hasher that has taken exactly `offset` bytes; bytes it lacks (a restarted server) are read from disk. */
  async #hasherAt(id: string, offset: number): Promise<UploadHasher> {
    let hasher = this.#hashers.get(id);
    if (hasher === undefined || hasher.offset > offset) {
      hasher = new UploadHasher(this.#mode);
      this.#hashers.set(id, hasher);
    }
    await this.#readInto(hasher, id, offset);
    return hasher;
  }

  async #readInto(hasher: UploadHasher, id: string, end: number): Promise<void> {
    if (hasher.offset >= end) return;
    const file = await open(join(this.#directory, id), 'r');
    try {
      const buffer = new Uint8Array(READ_BYTES);
      while (hasher.offset < end) {
        const at = hasher.offset;
        const { bytesRead } = await file.read(buffer, 0, Math.min(READ_BYTES, end - at), at);
        if (bytesRead === 0) throw new Error(`upload ${id} has ${at} bytes on disk, expected ${end}`);
        hasher.write(at, buffer.subarray(0, bytesRead));
      }
    } finally {
      await file.close();
    }
  }
}

type FinishResponse = { status_code?: number; headers?: Record<string, string | number>; body?: string };

/**
 * `onUploadFinish` for @tus/server: the upload is complete only if the request that finished it
 * carried a root equal to the hash of the stored bytes (compared in constant time). Otherwise
 * the upload is removed and the request fails with status 460 and a message saying why; the
 * computed hash is never disclosed on a mismatch.
 */
export function verifyBlake3(store: Blake3FileStore): (req: Request, upload: Upload) => Promise<FinishResponse> {
  return async (req, upload) => {
    const refuse = async (why: string): Promise<never> => {
      await store.remove(upload.id);
      throw { status_code: MISMATCH_STATUS, body: `BLAKE3 verification failed: ${why}; the upload was discarded\n` };
    };
    const sent = req.headers.get(ROOT_HEADER);
    if (sent === null) return refuse(`the request carried no ${ROOT_HEADER} header`);
    if (!/^[0-9a-f]{64}$/.test(sent)) return refuse(`${ROOT_HEADER} must be 64 lowercase hex digits`);
    const root = await store.rootOf(upload.id, upload.size ?? upload.offset);
    if (!timingSafeEqual(root, hexToBytes(sent)))
      return refuse('the bytes received do not have the root the client sent');
    return { headers: { [VERIFIED_HEADER]: bytesToHex(root) } };
  };
}
