/**
 * A verifying wrapper for any @tus/server 2 DataStore (`@tus/file-store`'s FileStore,
 * `@tus/s3-store`'s S3Store, or any store with the same interface): each PATCH body is hashed on
 * its way into the wrapped store, and the hash covers exactly the bytes that store kept, whatever
 * failed mid-request. Between requests the hash lives in a key-value store (tus's `KvStore`;
 * `IoRedisKvStore` over Redis for several instances, memory for one), so any instance continues an
 * upload another started without reading back the bytes the state covers. Bytes the state does
 * not cover (an instance killed after its store kept them, a state refused as damaged or foreign)
 * are read back from the store through `read`: at once where the store can read an upload in
 * progress (a file), at the finish where it can read only a finished one (S3). `verifyBlake3`
 * then refuses the upload unless the root in the client's `Upload-Blake3` header equals that hash.
 *
 * @example
 * ```ts
 * import { Server } from '@tus/server';
 * import { S3Store } from '@tus/s3-store';
 * import { IoRedisKvStore } from '@tus/utils';
 * import { Redis } from 'ioredis';
 * import { Blake3Store, s3StoreBytes, verifyBlake3, ROOT_HEADER } from '@blake3-web/upload/tus-store';
 * import { RedisLocker } from '@blake3-web/upload/redis-locker';
 * const redis = new Redis({ commandTimeout: 2000, maxRetriesPerRequest: 1 });
 * const s3 = new S3Store({ s3ClientConfig: { bucket: 'uploads', region: 'us-east-1' } });
 * const datastore = new Blake3Store(s3, { kv: new IoRedisKvStore(redis, 'blake3:'), read: s3StoreBytes(s3) });
 * const locker = new RedisLocker(redis);
 * const server = new Server({ path: '/files', datastore, locker, allowedHeaders: [ROOT_HEADER], onUploadFinish: verifyBlake3(datastore, { locker }) });
 * ```
 * @module
 */
import { blake3, bytesToHex, hexToBytes, type Blake3Opts } from '@blake3-web/core';
import { Mode } from '@blake3-web/core/hazmat';
import { DataStore, MemoryKvStore, type KvStore, type Upload } from '@tus/utils';
import { Transform, type Readable } from 'node:stream';
import { describe } from './_assert.js';
import { SharedHashState, type SharedStateRecord } from './_shared-state.js';
import { CheckpointError } from './checkpoint.js';

/**
 * Reads bytes `start` to `end` of upload `id` from where a store keeps them, in order, or answers
 * `undefined` when the store cannot read them yet (S3 reads an upload only once it is finished).
 */
export type StoredBytes = (id: string, start: number, end: number) => Promise<AsyncIterable<Uint8Array> | undefined>;

/** What the verifying store keeps per upload in its key-value store: a hash state or the record that it verified. */
export type HashRecord = Record<string, unknown>;

export type Blake3StoreOpts = Omit<Blake3Opts, 'dkLen'> & {
  /**
   * Where each upload's hash state and its verification record live between requests: every
   * instance that serves the same uploads must use the same one (default: memory, one instance).
   */
  kv?: KvStore<HashRecord>;
  /** How the wrapped store's bytes are read back (`fileStoreBytes`, `s3StoreBytes`). */
  read?: StoredBytes;
  /**
   * Deletes what the store keeps of an upload that its own `remove` may leave: S3Store cannot
   * remove a finished upload (its multipart upload is gone), so a refused one would stay in the
   * bucket (`s3StoreEraser`). Runs after the store's `remove`, whose failure it then covers.
   */
  erase?: (id: string) => Promise<void>;
  /**
   * Bytes between the states saved while a request runs (default 8 MiB, S3Store's default part
   * size): an instance killed mid-request leaves its store's bytes covered up to the last of
   * them the store kept, so the next reads back at most this many (none when the store kept
   * whole parts of this size, as S3Store does). The last `MID_REQUEST_STATES` are kept.
   */
  stateEvery?: number;
  /** At finish, also read the whole upload back and refuse it unless it still has the hash of the bytes received. */
  verifyStored?: boolean;
};

/** What is appended to an upload's id to name the states saved while its request runs. */
export const MID_REQUEST_KEY_SUFFIX = '.states';

/** How many of the states saved while a request runs are kept (the most recent). */
export const MID_REQUEST_STATES = 16;

/** What is appended to an upload's id to name its verification record in the key-value store. */
export const VERIFIED_KEY_SUFFIX = '.verified';

const VERIFIED_FORMAT = 'blake3-web/upload-verified';
const ROOT_HEX = /^[0-9a-f]{64}$/;

/** The event emitted, with the upload's id and the CheckpointError, when a stored state is refused. */
export const STATE_REFUSED_EVENT = 'blake3:state-refused';

export class Blake3Store extends DataStore {
  /** The store the bytes are kept in. */
  readonly store: DataStore;
  /** `opts.verifyStored`. */
  readonly verifyStored: boolean;
  readonly #kv: KvStore<HashRecord>;
  readonly #read: StoredBytes | undefined;
  readonly #erase: ((id: string) => Promise<void>) | undefined;
  readonly #mode: Omit<Blake3Opts, 'dkLen'>;
  readonly #stateEvery: number;
  #readBack = 0;

  constructor(store: DataStore, opts: Blake3StoreOpts = {}) {
    super();
    if (!(store instanceof DataStore))
      throw new TypeError(`store must be a @tus/utils DataStore, got ${describe(store)}`);
    if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
    const { key, context, kv, read, erase, verifyStored, stateEvery = 8 << 20 } = opts;
    if (typeof stateEvery !== 'number' || !Number.isSafeInteger(stateEvery) || stateEvery < 1024)
      throw new RangeError(`opts.stateEvery must be an integer of at least 1024 bytes, got ${describe(stateEvery)}`);
    if (verifyStored !== undefined && typeof verifyStored !== 'boolean')
      throw new TypeError(`opts.verifyStored must be a boolean, got ${describe(verifyStored)}`);
    if (read !== undefined && typeof read !== 'function')
      throw new TypeError(`opts.read must be a function, got ${describe(read)}`);
    if (erase !== undefined && typeof erase !== 'function')
      throw new TypeError(`opts.erase must be a function, got ${describe(erase)}`);
    if (
      kv !== undefined &&
      (typeof kv !== 'object' || kv === null || typeof kv.get !== 'function' || typeof kv.set !== 'function')
    )
      throw new TypeError(`opts.kv must be a KvStore (get, set, delete), got ${describe(kv)}`);
    this.store = store;
    this.extensions = store.extensions;
    this.verifyStored = verifyStored ?? false;
    this.#kv = kv ?? new MemoryKvStore<HashRecord>();
    this.#read = read;
    this.#erase = erase;
    this.#stateEvery = stateEvery;
    // Checked now (a key and a context together are refused), not at the first upload.
    const { dkLen: _, ...mode } = new Mode({ key, context }).options;
    this.#mode = mode;
  }

  /** Bytes read back from the store so far to rebuild hashes: 0 while every instance keeps its state. */
  get bytesReadBack(): number {
    return this.#readBack;
  }

  override create(upload: Upload): Promise<Upload> {
    return this.store.create(upload);
  }

  override getUpload(id: string): Promise<Upload> {
    return this.store.getUpload(id);
  }

  override declareUploadLength(id: string, length: number): Promise<void> {
    return this.store.declareUploadLength(id, length);
  }

  override deleteExpired(): Promise<number> {
    return this.store.deleteExpired();
  }

  override getExpiration(): number {
    return this.store.getExpiration();
  }

  /** The wrapped store's reader of a finished upload, where it has one (a GET of the upload). */
  read(id: string): Promise<Readable> {
    const read = (this.store as DataStore & { read?(id: string): Promise<Readable> }).read;
    if (typeof read !== 'function') throw new TypeError('the wrapped store cannot read uploads');
    return read.call(this.store, id);
  }

  override async remove(id: string): Promise<void> {
    await this.#kv.delete(id);
    await this.#kv.delete(id + VERIFIED_KEY_SUFFIX);
    await this.#kv.delete(id + MID_REQUEST_KEY_SUFFIX);
    if (this.#erase === undefined) return this.store.remove(id);
    // The store's own failure (S3Store's on a finished upload) is covered by the erase.
    await this.store.remove(id).catch(() => undefined);
    await this.#erase(id);
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    // A verified upload is final: it takes no byte more.
    if (offset > 0 && (await this.verifiedRoot(id)) !== undefined) {
      const none = new Transform({
        transform(chunk: Uint8Array, _encoding, callback) {
          if (chunk.length === 0) return callback();
          callback(new Error(`upload ${id} verified and is final: it takes no more bytes`));
        },
      });
      readable.on('error', (e) => none.destroy(e));
      return this.store.write(readable.pipe(none), id, offset);
    }
    // A key-value store that is down fails the request here, before the upload is touched.
    const state = await this.#stateAt(id, offset);
    // The bytes before this write cannot be read yet: the state stays where it is and the bytes
    // after it are read back at the finish.
    if (state === undefined) return this.store.write(readable, id, offset);
    // States at every `stateEvery` bytes of the upload while the body passes, the state before
    // the body first: what a failure, or the next instance after a kill, goes back to.
    const saved: SharedStateRecord[] = [state.record()];
    const every = this.#stateEvery;
    const keep = (record: SharedStateRecord): Promise<void> => {
      saved.push(record);
      if (saved.length > MID_REQUEST_STATES + 1) saved.splice(1, 1);
      // Best effort: a request does not fail for a state it could not save (the next one reads back).
      return this.#kv.set(id + MID_REQUEST_KEY_SUFFIX, { states: saved.slice(1) }).catch(() => undefined);
    };
    const tee = new Transform({
      transform(chunk: Uint8Array, _encoding, callback) {
        try {
          const boundary = (Math.floor(state.offset / every) + 1) * every;
          if (state.offset + chunk.length < boundary) {
            state.write(state.offset, chunk);
            return callback(null, chunk);
          }
          const at = state.offset;
          state.write(at, chunk.subarray(0, boundary - at));
          const record = state.record();
          state.write(boundary, chunk.subarray(boundary - at));
          keep(record).then(() => callback(null, chunk), callback);
        } catch (e) {
          callback(e as Error);
        }
      },
    });
    readable.on('error', (e) => tee.destroy(e));
    let written: number | undefined;
    let failure: unknown;
    try {
      written = await this.store.write(readable.pipe(tee), id, offset);
      return written;
    } catch (e) {
      failure = e;
      throw e;
    } finally {
      try {
        // The hash must cover exactly the bytes the store kept: after a failure, go back to the
        // last state at or before what it kept and take the rest from the store (or at the finish).
        const kept = written ?? (await this.store.getUpload(id)).offset;
        if (state.offset === kept) await this.#save(id, state);
        else {
          const back = SharedHashState.read(latestAtOrBefore(saved, kept)!, id, this.#mode);
          if (await this.#readInto(back, id, kept)) await this.#save(id, back);
          else if (back.offset > saved[0].offset) await this.#save(id, back);
        }
        if (saved.length > 1) await this.#kv.delete(id + MID_REQUEST_KEY_SUFFIX);
      } catch (e) {
        // The state stays as it was: the next request reads back what it lacks. A failure of
        // the write itself is the one to report.
        if (failure === undefined) throw e;
      }
    }
  }

  /** The root a verified upload verified with, or `undefined` for an upload that has not verified. */
  async verifiedRoot(id: string): Promise<Uint8Array | undefined> {
    const record = await this.#kv.get(id + VERIFIED_KEY_SUFFIX);
    if (record === undefined) return undefined;
    const { format, upload, root, check } = record as Record<string, unknown>;
    if (
      format !== VERIFIED_FORMAT ||
      upload !== id ||
      typeof root !== 'string' ||
      !ROOT_HEX.test(root) ||
      check !== verifiedCheck(id, root)
    )
      throw new Error(`the record that upload ${id} verified is damaged`);
    return hexToBytes(root);
  }

  /**
   * The BLAKE3 hash of the upload's `size` bytes as received: the shared state, and the bytes it
   * does not cover read back from the store (throws if they cannot be read).
   */
  async rootOf(id: string, size: number): Promise<Uint8Array> {
    const state = await this.#stateAt(id, size);
    if (state === undefined) throw new Error(`upload ${id}: the store cannot read back the bytes its hash lacks`);
    if (state.offset !== size) throw new Error(`upload ${id}: hashed ${state.offset} bytes, expected ${size}`);
    return state.digest();
  }

  /** The BLAKE3 hash of the upload's `size` bytes as the store holds them now: one read of all of them. */
  async storedRootOf(id: string, size: number): Promise<Uint8Array> {
    const hasher = blake3.create(this.#mode);
    const read = await this.#read?.(id, 0, size);
    if (read === undefined) throw new Error(`upload ${id}: the store cannot read the upload back`);
    let at = 0;
    for await (const bytes of read) {
      hasher.update(bytes);
      at += bytes.length;
      this.#readBack += bytes.length;
    }
    if (at !== size) throw new Error(`upload ${id}: read ${at} bytes back from the store, expected ${size}`);
    return hasher.digest();
  }

  /** Records that the upload's bytes verified with `root`, which makes it final; its hash state is dropped. */
  async keepVerified(id: string, _size: number, root: Uint8Array): Promise<void> {
    const hex = bytesToHex(root);
    await this.#kv.set(id + VERIFIED_KEY_SUFFIX, {
      format: VERIFIED_FORMAT,
      upload: id,
      root: hex,
      check: verifiedCheck(id, hex),
    });
    await this.#kv.delete(id);
    await this.#kv.delete(id + MID_REQUEST_KEY_SUFFIX);
  }

  /**
   * The upload's hash at `offset`: the shared state, refused if damaged, foreign or past
   * `offset` (then rebuilt from byte 0), with the bytes after it read back from the store; or
   * `undefined` when the store cannot read them now.
   */
  async #stateAt(id: string, offset: number): Promise<SharedHashState | undefined> {
    const record = await this.#kv.get(id);
    let state: SharedHashState | undefined;
    let refused = false;
    if (record !== undefined) {
      try {
        state = SharedHashState.read(record, id, this.#mode);
        if (state.offset > offset)
          throw new CheckpointError(
            'corrupt',
            `shared hash state refused: it covers ${state.offset} bytes, the store holds ${offset}`,
          );
      } catch (e) {
        if (!(e instanceof CheckpointError)) throw e;
        this.emit(STATE_REFUSED_EVENT, id, e);
        state = undefined;
        refused = true;
      }
    }
    state ??= SharedHashState.empty(id, this.#mode);
    // States saved while a request ran, which its instance did not live to replace.
    const mid = state.offset < offset ? await this.#midRequestState(id, state.offset, offset) : undefined;
    if (mid !== undefined) {
      state = mid;
      await this.#save(id, mid);
      await this.#kv.delete(id + MID_REQUEST_KEY_SUFFIX);
    }
    const from = state.offset;
    if (await this.#readInto(state, id, offset)) {
      if (state.offset !== from || refused) await this.#save(id, state);
      return state;
    }
    // Refused and not readable now: an empty state in its place, so the finish reads it all.
    if (refused) await this.#save(id, SharedHashState.empty(id, this.#mode));
    return undefined;
  }

  /**
   * The state saved mid-request that covers the most bytes past `after` and none past `end`; a
   * saved list that is damaged or foreign is refused (the event) and left out.
   */
  async #midRequestState(id: string, after: number, end: number): Promise<SharedHashState | undefined> {
    const record = await this.#kv.get(id + MID_REQUEST_KEY_SUFFIX);
    if (record === undefined) return undefined;
    const states = Array.isArray(record.states) ? (record.states as unknown[]) : [record];
    let best: SharedHashState | undefined;
    for (const candidate of states) {
      try {
        const state = SharedHashState.read(candidate, id, this.#mode);
        if (state.offset > after && state.offset <= end && state.offset > (best?.offset ?? -1)) best = state;
      } catch (e) {
        if (!(e instanceof CheckpointError)) throw e;
        this.emit(STATE_REFUSED_EVENT, id, e);
      }
    }
    return best;
  }

  /** Reads the upload's bytes from where `state` stops up to `end` into it; false if the store cannot now. */
  async #readInto(state: SharedHashState, id: string, end: number): Promise<boolean> {
    if (state.offset >= end) return true;
    const read = await this.#read?.(id, state.offset, end);
    if (read === undefined) return false;
    for await (const bytes of read) {
      state.write(state.offset, bytes);
      this.#readBack += bytes.length;
    }
    if (state.offset !== end) throw new Error(`upload ${id}: read back up to ${state.offset} bytes, expected ${end}`);
    return true;
  }

  async #save(id: string, state: SharedHashState): Promise<void> {
    await this.#kv.set(id, state.record());
  }
}

/** The saved state with the largest offset at or before `end` (the first one is the request's start). */
function latestAtOrBefore(saved: readonly SharedStateRecord[], end: number): SharedStateRecord | undefined {
  let best: SharedStateRecord | undefined;
  for (const record of saved)
    if (record.offset <= end && (best === undefined || record.offset > best.offset)) best = record;
  return best;
}

function verifiedCheck(id: string, rootHex: string): string {
  return bytesToHex(
    blake3(JSON.stringify([VERIFIED_FORMAT, id, rootHex]), { context: 'blake3-web upload verified v1', dkLen: 16 }),
  );
}
