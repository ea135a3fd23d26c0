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
 * With `outboard`, the same pass keeps the chaining values of the upload's Bao leaves in the
 * key-value store too, and the outboard is made from them once the upload verified.
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
import { blake3, bytesToHex, constantTimeEqual, hexToBytes, type Blake3Opts } from '@blake3-web/core';
import { Mode } from '@blake3-web/core/hazmat';
import type { BaoTreeOpts } from '@blake3-web/stream';
import { DataStore, MemoryKvStore, Upload, type KvStore } from '@tus/utils';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { describe } from './_assert.js';
import { LeafRun, readLeafRun } from './_leaf-runs.js';
import { loadOutboardCode, outboardLeafBytes, type OutboardCode } from './_outboard-code.js';
import type { OutboardBuilder } from './_outboard-builder.js';
import { SharedHashState, type SharedStateRecord } from './_shared-state.js';
import {
  HASHER_CHOICES,
  subtreeHasherFor,
  type HasherBackend,
  type HasherChoice,
  type SubtreeHasher,
} from './_subtree-hasher.js';
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
  /**
   * Also build each upload's Bao outboard as its bytes pass, kept once the upload verified:
   * `true` for leaves of 16 KiB (`chunkGroupLog: 4`, an outboard of 1/256 of the content), or
   * the tree's options (`{ chunkGroupLog: 0 }` is the format of `bao` 0.13 and of
   * `baoRangeHandler`), with `keep` to say where it goes (default: into the wrapped store, as
   * the upload `<id>.obao`). The hash mode only: a keyed or derived tree is not a Bao tree.
   */
  outboard?: boolean | Blake3StoreOutboard;
  /**
   * What hashes the bytes (default 'auto'): 'native' is `@blake3-web/native`, the official Rust
   * crate as a Node-API addon (an optional peer dependency), which takes less CPU per GiB than
   * 'wasm', the core's WASM SIMD kernel; 'auto' is 'native' where it is installed and loads,
   * else 'wasm'. The addon is checked against the core before its first byte; with 'native' an
   * addon that cannot load or disagrees fails every write with a NativeHasherError.
   */
  hasher?: HasherChoice;
};

/** `Blake3StoreOpts.outboard` in full. */
export type Blake3StoreOutboard = BaoTreeOpts & {
  /**
   * Keeps the outboard of upload `id`, which verified: `length` bytes read from `outboard`. Runs
   * before the upload is recorded as verified: if it throws, the upload is not, and the next
   * request that reaches its end checks it again.
   */
  keep?: (id: string, outboard: Readable, length: number) => Promise<void>;
};

/** What is appended to an upload's id to name its Bao outboard. */
export const OUTBOARD_SUFFIX = '.obao';

/** What is appended to an upload's id to name the list of its outboard's leaf runs in the key-value store. */
export const LEAF_RUNS_KEY_SUFFIX = '.obao-runs';
const LEAF_RUNS_FORMAT = 'blake3-web/upload-leaf-runs';
const runKey = (id: string, start: number) => `${id}.obao-run@${start}`;

/** Leaves of 16 KiB, as bao-tree's default: 64 bytes of outboard per 16 KiB of content. */
export const DEFAULT_OUTBOARD: BaoTreeOpts = { chunkGroupLog: 4 };

/** The runs of an upload's leaves in the key-value store, in order: [start, end] of each. */
type RunList = [number, number][];

/**
 * The leaves a request's bytes are hashed in without `outboard` (64 chunks, one kernel call, which
 * makes their parents too): each batch of whole leaves is hashed where it lies in the request's
 * body, and only the bytes of the leaf at each piece's end are copied. With leaves of 16 KiB the
 * merges of their values cost 0.26 s of the wrapper's 1.8 s of CPU per GiB (a profile at load 12).
 */
const PASS_LEAF_BYTES = 64 << 10;

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
  /** `#mode`, resolved once (a context's key is derived once, not per batch of leaves). */
  readonly #hashMode: Mode;
  readonly #stateEvery: number;
  readonly #leafBytes: number | undefined;
  /** The leaves' hasher, loaded and checked when the store is made. */
  readonly #subtreeHasher: Promise<SubtreeHasher>;
  /** With `outboard`, its code, loaded when the store is made (`@blake3-web/stream` is an optional peer). */
  readonly #outboardCode: Promise<OutboardCode> | undefined;
  readonly #keepOutboard: ((id: string, outboard: Readable, length: number) => Promise<void>) | undefined;
  /** The outboard is kept in the wrapped store (no `keep`): removed with the upload. */
  #outboardInStore = false;
  #readBack = 0;

  constructor(store: DataStore, opts: Blake3StoreOpts = {}) {
    super();
    if (!(store instanceof DataStore))
      throw new TypeError(`store must be a @tus/utils DataStore, got ${describe(store)}`);
    const { kv, read, erase, verifyStored, stateEvery, mode, outboard, hasher } = checkBlake3StoreOpts(opts);
    this.store = store;
    this.extensions = store.extensions;
    this.verifyStored = verifyStored;
    this.#kv = kv ?? new MemoryKvStore<HashRecord>();
    this.#read = read;
    this.#erase = erase;
    this.#stateEvery = stateEvery;
    this.#mode = mode;
    this.#hashMode = new Mode(mode);
    this.#subtreeHasher = subtreeHasherFor(hasher);
    // Reported by each write.
    this.#subtreeHasher.catch(() => undefined);
    if (outboard !== undefined) {
      this.#leafBytes = outboard.leafBytes;
      this.#outboardCode = loadOutboardCode();
      // Reported by the first request that needs it.
      this.#outboardCode.catch(() => undefined);
      this.#keepOutboard = outboard.keep ?? ((id, bytes, length) => this.#keepInStore(id, bytes, length));
      this.#outboardInStore = outboard.keep === undefined;
    }
  }

  /** Which code hashes the bytes, once loaded and checked; rejects as writes do when it cannot be used. */
  async hasherBackend(): Promise<HasherBackend> {
    return (await this.#subtreeHasher).backend;
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
    if (this.#leafBytes !== undefined) {
      await this.#dropRuns(id, await this.#runs(id), 0);
      await this.#kv.delete(id + LEAF_RUNS_KEY_SUFFIX);
      // An outboard kept in the store (by default), if the upload verified.
      if (this.#outboardInStore) await this.#removeFromStore(id + OUTBOARD_SUFFIX).catch(() => undefined);
    }
    await this.#removeFromStore(id);
  }

  async #removeFromStore(id: string): Promise<void> {
    if (this.#erase === undefined) return this.store.remove(id);
    // The store's own failure (S3Store's on a finished upload) is covered by the erase.
    await this.store.remove(id).catch(() => undefined);
    await this.#erase(id);
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    // The body may fail while the key-value store answers, or before the store reads the stream
    // it was handed (S3Store reads its metadata first, and a stream that failed before it listens
    // would never end for it): the error is held, not thrown as an unhandled one, and passed on
    // once the store reads.
    let early: Error | undefined;
    const hold = (e: Error) => void (early ??= e);
    readable.on('error', hold);
    const passOn = <T extends Transform>(to: T): T => {
      readable.off('error', hold);
      to.on('error', () => undefined);
      if (early !== undefined) failWhenRead(to, early);
      else readable.on('error', (e) => failWhenRead(to, e));
      return to;
    };
    // A verified upload is final: it takes no byte more.
    if (offset > 0 && (await this.verifiedRoot(id)) !== undefined) {
      const none = new Transform({
        transform(chunk: Uint8Array, _encoding, callback) {
          if (chunk.length === 0) return callback();
          callback(new Error(`upload ${id} verified and is final: it takes no more bytes`));
        },
      });
      passOn(none);
      return this.store.write(readable.pipe(none), id, offset);
    }
    // A key-value store that is down, or an outboard or a native hasher whose code cannot load,
    // fails the request here, before the upload is touched.
    await this.#outboardCode;
    const hash = (await this.#subtreeHasher).hashSubtrees;
    const state = await this.#stateAt(id, offset);
    // The bytes before this write cannot be read yet: the state stays where it is and the bytes
    // after it are read back at the finish.
    if (state === undefined) return this.store.write(readable.pipe(passOn(new PassThrough())), id, offset);
    // Each byte is hashed once, as whole leaves where it can (`LeafRun`): the outboard's leaves,
    // kept in runs cut where the states are saved, or without `outboard` leaves of
    // PASS_LEAF_BYTES for the root alone. Runs that reach past the bytes the store holds (an
    // instance killed mid-request) are dropped first.
    const leafBytes = this.#leafBytes ?? PASS_LEAF_BYTES;
    const keepLeaves = this.#leafBytes !== undefined;
    const runs = keepLeaves ? await this.#runs(id) : undefined;
    if (runs !== undefined) await this.#dropRuns(id, runs, offset);
    const hashMode = this.#hashMode;
    let run = new LeafRun(offset, leafBytes, state, hashMode, keepLeaves, hash);
    const keepRun = async (done: LeafRun): Promise<void> => {
      if (runs === undefined || done.end === done.start) return;
      const { start, end } = done;
      await this.#kv.set(runKey(id, start), done.record(id));
      runs.push([start, end]);
      await this.#saveRuns(id, runs);
    };
    // States at every `stateEvery` bytes of the upload while the body passes, the state before
    // the body first: what a failure, or the next instance after a kill, goes back to.
    const saved: SharedStateRecord[] = [state.record()];
    const every = this.#stateEvery;
    const keep = async (record: SharedStateRecord, done: LeafRun): Promise<void> => {
      saved.push(record);
      if (saved.length > MID_REQUEST_STATES + 1) saved.splice(1, 1);
      // Best effort: a request does not fail for a state or run it could not save (the next
      // one, or the finish, reads back).
      await keepRun(done).catch(() => undefined);
      await this.#kv.set(id + MID_REQUEST_KEY_SUFFIX, { states: saved.slice(1) }).catch(() => undefined);
    };
    const tee = new Transform({
      transform(chunk: Uint8Array, _encoding, callback) {
        try {
          const at = run.end;
          const boundary = (Math.floor(at / every) + 1) * every;
          if (at + chunk.length < boundary) {
            run.update(chunk);
            return callback(null, chunk);
          }
          run.update(chunk.subarray(0, boundary - at));
          run.settle();
          const record = state.record();
          const done = run;
          run = new LeafRun(boundary, leafBytes, state, hashMode, keepLeaves, hash);
          keep(record, done).then(() => {
            run.update(chunk.subarray(boundary - at));
            callback(null, chunk);
          }, callback);
        } catch (e) {
          callback(e as Error);
        }
      },
    });
    passOn(tee);
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
        run.settle();
        const kept = written ?? (await this.store.getUpload(id)).offset;
        if (runs !== undefined) {
          // The leaves of the bytes kept: this run if the store kept all it passed, and no run
          // past what it kept (the finish reads back what the runs lack).
          if (run.end === kept) await keepRun(run).catch(() => undefined);
          await this.#dropRuns(id, runs, kept);
        }
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

  /**
   * Records that the upload's bytes verified with `root`, which makes it final; its hash state is
   * dropped. With `outboard`, first keeps the outboard, after checking that its Bao hash is
   * `root` (otherwise it throws and records nothing).
   */
  async keepVerified(id: string, size: number, root: Uint8Array): Promise<void> {
    if (this.#leafBytes !== undefined) {
      const runs = await this.#runs(id);
      await this.#makeOutboard(id, size, root, runs);
      await this.#dropRuns(id, runs, 0);
      await this.#kv.delete(id + LEAF_RUNS_KEY_SUFFIX);
    }
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

  /** The list of the upload's leaf runs; a damaged or foreign one counts as none (the finish reads back). */
  async #runs(id: string): Promise<RunList> {
    const record = await this.#kv.get(id + LEAF_RUNS_KEY_SUFFIX);
    if (record === undefined) return [];
    const { format, upload, runs } = record;
    const valid =
      format === LEAF_RUNS_FORMAT &&
      upload === id &&
      Array.isArray(runs) &&
      runs.every(
        (r: unknown) => Array.isArray(r) && r.length === 2 && r.every(Number.isSafeInteger) && 0 <= r[0] && r[0] < r[1],
      );
    return valid ? (runs as RunList) : [];
  }

  async #saveRuns(id: string, runs: RunList): Promise<void> {
    await this.#kv.set(id + LEAF_RUNS_KEY_SUFFIX, { format: LEAF_RUNS_FORMAT, upload: id, runs });
  }

  /** Drops, from `runs` and the key-value store, the runs that end past `end`. */
  async #dropRuns(id: string, runs: RunList, end: number): Promise<void> {
    const past = runs.filter(([, e]) => e > end);
    if (past.length === 0) return;
    runs.splice(0, runs.length, ...runs.filter(([, e]) => e <= end));
    if (end > 0) await this.#saveRuns(id, runs);
    for (const [start] of past) await this.#kv.delete(runKey(id, start));
  }

  /**
   * Makes the outboard of the upload's `size` bytes from its leaf runs and the stored bytes they
   * lack, checks that its root is `root` and keeps it. Runs that do not make that root (a store
   * that kept other bytes than passed through it) are set aside and every byte is read back.
   */
  async #makeOutboard(id: string, size: number, root: Uint8Array, runs: RunList): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'blake3-obao-'));
    try {
      let builder = await this.#buildOutboard(id, size, join(dir, 'parents'), runs);
      if (!constantTimeEqual(builder.root(), root)) {
        await builder.discard();
        builder = await this.#buildOutboard(id, size, join(dir, 'parents'), []);
        if (!constantTimeEqual(builder.root(), root)) {
          await builder.discard();
          throw new Error(`the Bao outboard built for upload ${id} is not that of its verified bytes`);
        }
      }
      const path = join(dir, 'outboard');
      await builder.writeOutboard(path);
      await this.#keepOutboard!(id, createReadStream(path), (await stat(path)).size);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The tree of the upload's `size` bytes: its runs in order, the stored bytes between and after them. */
  async #buildOutboard(id: string, size: number, parents: string, runs: RunList): Promise<OutboardBuilder> {
    const leafBytes = this.#leafBytes!;
    const { OutboardBuilder } = await this.#outboardCode!;
    const builder = new OutboardBuilder(parents, Math.log2(leafBytes / 1024));
    const take = async (bytes: Uint8Array): Promise<void> => {
      builder.update(bytes);
      if (builder.shouldFlush) await builder.flush();
    };
    const readBack = async (start: number, end: number): Promise<void> => {
      const read = await this.#read?.(id, start, end);
      if (read === undefined)
        throw new Error(`upload ${id}: the store cannot read back bytes ${start} to ${end}, which its outboard lacks`);
      let at = start;
      for await (const bytes of read) {
        await take(bytes);
        at += bytes.length;
        this.#readBack += bytes.length;
      }
      if (at !== end) throw new Error(`upload ${id}: read back up to ${at} bytes, expected ${end}`);
    };
    let at = 0;
    for (const [start, end] of [...runs].sort((a, b) => a[0] - b[0])) {
      if (start < at || end > size) continue;
      const record = await this.#kv.get(runKey(id, start));
      if (record === undefined) continue;
      let run;
      try {
        run = readLeafRun(record, id, leafBytes);
      } catch (e) {
        if (!(e instanceof CheckpointError)) throw e;
        this.emit(STATE_REFUSED_EVENT, id, e);
        continue;
      }
      if (run.start !== start || run.end !== end) continue;
      if (start > at) await readBack(at, start);
      await take(run.head);
      builder.updateLeaves(run.cvs);
      await take(run.tail);
      at = end;
    }
    if (at < size) await readBack(at, size);
    await builder.flush();
    return builder;
  }

  /** Keeps an outboard in the wrapped store, as the finished upload `<id>.obao`. */
  async #keepInStore(id: string, outboard: Readable, length: number): Promise<void> {
    const name = id + OUTBOARD_SUFFIX;
    await this.store.create(new Upload({ id: name, size: length, offset: 0 }));
    const written = await this.store.write(outboard, name, 0);
    if (written !== length) throw new Error(`upload ${id}: kept ${written} bytes of its ${length}-byte outboard`);
  }
}

/**
 * Blake3Store's options, checked (a key and a context together are refused now, not at the
 * first upload), with their defaults; for a subclass to call before it makes its store.
 */
export function checkBlake3StoreOpts(opts: Blake3StoreOpts): CheckedOpts {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { key, context, kv, read, erase, verifyStored, outboard, stateEvery = 8 << 20, hasher = 'auto' } = opts;
  if (!HASHER_CHOICES.includes(hasher))
    throw new TypeError(`opts.hasher must be 'auto', 'native' or 'wasm', got ${describe(hasher)}`);
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
  const { dkLen: _, ...mode } = new Mode({ key, context }).options;
  if (outboard !== undefined && typeof outboard !== 'boolean' && (typeof outboard !== 'object' || outboard === null))
    throw new TypeError(`opts.outboard must be a boolean or Bao tree options, got ${describe(outboard)}`);
  if (outboard && (key !== undefined || context !== undefined))
    throw new TypeError('opts.outboard needs the hash mode: a Bao tree is not keyed, drop opts.key and opts.context');
  let tree: { leafBytes: number; keep: Blake3StoreOutboard['keep'] } | undefined;
  if (outboard) {
    const { keep, ...treeOpts } = outboard === true ? { ...DEFAULT_OUTBOARD, keep: undefined } : outboard;
    if (keep !== undefined && typeof keep !== 'function')
      throw new TypeError(`opts.outboard.keep must be a function, got ${describe(keep)}`);
    tree = { leafBytes: outboardLeafBytes(treeOpts, 'opts.outboard'), keep };
  }
  return {
    kv,
    read,
    erase,
    verifyStored: verifyStored ?? false,
    stateEvery,
    mode: mode as HashMode,
    outboard: tree,
    hasher,
  };
}

type HashMode = Omit<Blake3Opts, 'dkLen'>;

type CheckedOpts = Pick<Blake3StoreOpts, 'kv' | 'read' | 'erase'> & {
  verifyStored: boolean;
  stateEvery: number;
  mode: HashMode;
  outboard: { leafBytes: number; keep: Blake3StoreOutboard['keep'] } | undefined;
  hasher: HasherChoice;
};

/** Fails `stream` with `error` once it is read (at once if it is). */
function failWhenRead(stream: Readable, error: Error): void {
  const read = (event: string | symbol) => event === 'data' || event === 'readable';
  if (stream.listenerCount('data') + stream.listenerCount('readable') > 0) return void stream.destroy(error);
  const onListener = (event: string | symbol) => {
    if (!read(event)) return;
    stream.off('newListener', onListener);
    setImmediate(() => stream.destroy(error));
  };
  stream.on('newListener', onListener);
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
