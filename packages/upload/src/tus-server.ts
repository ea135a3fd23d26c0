/**
 * The server side on one machine, for @tus/server 2 with @tus/file-store: `Blake3FileStore`, the
 * short form of the verifying wrapper (`Blake3Store`, `@blake3-web/upload/tus-store`) over a
 * FileStore, which hashes each upload as its bytes are written (no second read of the file), and
 * an `onUploadFinish` hook that refuses the upload unless the root the client sent in the
 * `Upload-Blake3` header equals the hash of the bytes received (with `verifyStored`, also of the
 * bytes read back from disk). A missing or malformed root is refused too; a refused upload is
 * removed, so it is never reported or kept as complete, and a verified one is final. The hash
 * states and the records of verified uploads are kept on disk beside the uploads (in
 * `<directory>/.blake3/`), so a restarted server resumes where it was. With `outboard`, the same
 * pass builds the upload's Bao outboard, kept beside it as `<id>.obao` once it verified, to serve
 * verified byte ranges of it (`baoRangeHandler`, `baoOutboardSlice`) without hashing it again.
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
import type { Blake3Opts } from '@blake3-web/core';
import type { BaoTreeOpts } from '@blake3-web/stream';
import { FileStore } from '@tus/file-store';
import { ERRORS, type KvStore } from '@tus/utils';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DirectoryKvStore } from './_directory-kv.js';
import { fileStoreBytes } from './stored-bytes.js';
import { ROOT_HEADER } from './tus.js';
import {
  Blake3Store,
  checkBlake3StoreOpts,
  DEFAULT_OUTBOARD,
  OUTBOARD_SUFFIX,
  type Blake3StoreOpts,
  type HashRecord,
} from './verifying-store.js';

export { ROOT_HEADER, OUTBOARD_SUFFIX };
export { OutboardUnavailableError } from './_outboard-code.js';
export { NativeHasherError, type HasherBackend, type HasherChoice } from './_subtree-hasher.js';
export {
  MISMATCH_STATUS,
  VERIFIED_HEADER,
  verifyBlake3,
  type VerifyBlake3Opts,
  type VerifyingStore,
} from './verify-blake3.js';

export type Blake3FileStoreOpts = ConstructorParameters<typeof FileStore>[0] &
  Omit<Blake3Opts, 'dkLen'> & {
    /**
     * Also build each upload's Bao outboard as its bytes are written, kept as `<id>.obao` once the
     * upload verified: `true` for leaves of 16 KiB (`chunkGroupLog: 4`, an outboard of 1/256 of
     * the content), or the tree's options (`{ chunkGroupLog: 0 }` is the format of `bao` 0.13 and
     * of `baoRangeHandler`). The hash mode only: a keyed or derived tree is not a Bao tree.
     */
    outboard?: boolean | BaoTreeOpts;
    /**
     * At finish, also read the upload back from disk and refuse it unless those bytes have the
     * hash of the bytes received: a byte changed on disk between two requests (another process,
     * a bad disk, a restore) fails the upload. Costs one read of the whole upload per upload.
     */
    verifyStored?: boolean;
    /**
     * Where the hash states and the records of verified uploads live (default: a JSON file per
     * key in `<directory>/.blake3/`).
     */
    kv?: KvStore<HashRecord>;
    /** What hashes the bytes: `Blake3StoreOpts.hasher` (default 'auto': `@blake3-web/native` where it loads, else WASM). */
    hasher?: Blake3StoreOpts['hasher'];
  };

/** The directory, under the uploads' one, of the default key-value store. */
export const RECORDS_DIRECTORY = '.blake3';

export class Blake3FileStore extends Blake3Store {
  /** The directory the uploads are kept in. */
  readonly directory: string;
  declare readonly store: FileStore;

  constructor(opts: Blake3FileStoreOpts) {
    const { key, context, outboard, verifyStored, kv, hasher, ...storeOpts } = opts;
    const { directory } = storeOpts;
    const keep = (id: string, bytes: Readable) => writeWhole(join(directory, `${id}${OUTBOARD_SUFFIX}`), bytes);
    const blake3Opts: Blake3StoreOpts = {
      key,
      context,
      verifyStored,
      kv,
      hasher,
      read: fileStoreBytes(directory),
      outboard:
        outboard === true
          ? { ...DEFAULT_OUTBOARD, keep }
          : typeof outboard === 'object' && outboard !== null
            ? { ...outboard, keep }
            : outboard,
    };
    // Before the file store starts making its directory.
    checkBlake3StoreOpts(blake3Opts);
    blake3Opts.kv ??= new DirectoryKvStore<HashRecord>(join(directory, RECORDS_DIRECTORY));
    super(new FileStore(storeOpts), blake3Opts);
    this.directory = directory;
  }

  /** Where the upload's Bao outboard is kept once the upload verified (with `outboard`). */
  outboardPath(id: string): string {
    return join(this.directory, `${id}${OUTBOARD_SUFFIX}`);
  }

  override async remove(id: string): Promise<void> {
    await rm(this.outboardPath(id), { force: true });
    await super.remove(id);
  }

  /**
   * Removes the uploads past their expiration that have not verified. FileStore's own sweep
   * judges an upload finished by the offset its configstore recorded at creation, so it would
   * remove verified uploads too; a verified upload is final.
   */
  override async deleteExpired(): Promise<number> {
    const { configstore } = this.store;
    if (!configstore.list) throw ERRORS.UNSUPPORTED_EXPIRATION_EXTENSION;
    const expiration = this.getExpiration();
    if (expiration <= 0) return 0;
    let removed = 0;
    for (const id of await configstore.list()) {
      const info = await configstore.get(id);
      if (!info?.creation_date || info.size === info.offset) continue;
      if (Date.now() <= new Date(info.creation_date).getTime() + expiration) continue;
      if ((await this.verifiedRoot(id)) !== undefined) continue;
      await this.remove(id);
      removed++;
    }
    return removed;
  }
}

/** Writes a file whole under another name first: a reader never sees half of it. */
async function writeWhole(path: string, bytes: Readable): Promise<void> {
  await pipeline(bytes, createWriteStream(`${path}.part`));
  await rename(`${path}.part`, path);
}
