/**
 * `onUploadFinish` for @tus/server over a verifying store (`Blake3FileStore`, `Blake3Store`):
 * the rule that decides whether a finished upload is accepted, in one place.
 * @module
 */
import { bytesToHex, constantTimeEqual, hexToBytes } from '@blake3-web/core';
import type { Locker, Upload } from '@tus/utils';
import { describe } from './_assert.js';
import { ROOT_HEADER } from './tus.js';

/** The header of a verified upload's final response: the root the server computed, in hex. */
export const VERIFIED_HEADER = 'Upload-Blake3-Verified';

/** The status of a refused upload (tus's own "checksum mismatch" status). */
export const MISMATCH_STATUS = 460;

const ROOT_HEX = /^[0-9a-f]{64}$/;

/** What `verifyBlake3` asks of a store. */
export interface VerifyingStore {
  /** Also hash the bytes as stored at finish. */
  readonly verifyStored: boolean;
  verifiedRoot(id: string): Promise<Uint8Array | undefined>;
  rootOf(id: string, size: number): Promise<Uint8Array>;
  storedRootOf(id: string, size: number): Promise<Uint8Array>;
  keepVerified(id: string, size: number, root: Uint8Array): Promise<void>;
  remove(id: string): Promise<void>;
}

export type VerifyBlake3Opts = {
  /**
   * The server's locker, when several instances serve the same uploads (`RedisLocker`): tus
   * releases the upload's lock before this hook runs, so the check takes it again and requests
   * that finish the same upload on different instances are checked one at a time.
   */
  locker?: Locker;
  /** How long the check waits for the lock, ms (default 30000). */
  lockTimeoutMs?: number;
};

type FinishResponse = { status_code?: number; headers?: Record<string, string | number>; body?: string };

/**
 * `onUploadFinish` for @tus/server: the upload is complete only if the request that finished it
 * carried a root equal to the hash of the bytes received (compared in constant time) and, with
 * `verifyStored`, the bytes stored still have that hash. Otherwise the upload is removed and the
 * request fails with status 460 and a message saying why; the computed hash is never disclosed on
 * a mismatch. An upload that verified is final: a later request that reaches its end (an empty
 * PATCH) is answered from the record of its verification, never checked again nor removed.
 */
export function verifyBlake3(
  store: VerifyingStore,
  opts: VerifyBlake3Opts = {},
): (req: Request, upload: Upload) => Promise<FinishResponse> {
  if (typeof opts !== 'object' || opts === null) throw new TypeError(`opts must be an object, got ${describe(opts)}`);
  const { locker, lockTimeoutMs = 30_000 } = opts;
  if (locker !== undefined && typeof locker?.newLock !== 'function')
    throw new TypeError(`opts.locker must be a tus Locker, got ${describe(locker)}`);
  // Requests of this instance that end the same upload are checked in turn.
  const pending = new Map<string, Promise<unknown>>();
  const check = async (req: Request, upload: Upload): Promise<FinishResponse> => {
    if (locker === undefined) return finish(store, req, upload);
    const lock = locker.newLock(upload.id);
    await lock.lock(AbortSignal.timeout(lockTimeoutMs), () => undefined);
    try {
      return await finish(store, req, upload);
    } finally {
      await lock.unlock();
    }
  };
  return (req, upload) => {
    const before = pending.get(upload.id);
    const verdict = before ? before.then(() => check(req, upload)) : check(req, upload);
    const settled = verdict.catch(() => undefined);
    pending.set(upload.id, settled);
    void settled.then(() => pending.get(upload.id) === settled && pending.delete(upload.id));
    return verdict;
  };
}

async function finish(store: VerifyingStore, req: Request, upload: Upload): Promise<FinishResponse> {
  const sent = req.headers.get(ROOT_HEADER);
  // A repeated header arrives joined with ", ": malformed too.
  const malformed =
    sent === null
      ? `the request carried no ${ROOT_HEADER} header`
      : ROOT_HEX.test(sent)
        ? undefined
        : `${ROOT_HEADER} must be 64 lowercase hex digits`;
  const verified = await store.verifiedRoot(upload.id);
  if (verified !== undefined) {
    if (malformed === undefined && constantTimeEqual(verified, hexToBytes(sent!)))
      return { headers: { [VERIFIED_HEADER]: sent! } };
    const why = malformed ?? 'the root sent is not the one the upload verified with';
    throw {
      status_code: MISMATCH_STATUS,
      body: `BLAKE3 verification failed: ${why}; the upload verified earlier and is kept as it was\n`,
    };
  }
  const refuse = async (why: string): Promise<never> => {
    await store.remove(upload.id);
    throw { status_code: MISMATCH_STATUS, body: `BLAKE3 verification failed: ${why}; the upload was discarded\n` };
  };
  if (malformed !== undefined) return refuse(malformed);
  const size = upload.size ?? upload.offset;
  const root = await store.rootOf(upload.id, size);
  if (!constantTimeEqual(root, hexToBytes(sent!)))
    return refuse('the bytes received do not have the root the client sent');
  if (store.verifyStored && !constantTimeEqual(await store.storedRootOf(upload.id, size), root))
    return refuse('the bytes stored are not the bytes received (the file changed on disk)');
  try {
    await store.keepVerified(upload.id, size, root);
  } catch (e) {
    // Not recorded (a key-value store down, an outboard that failed): the upload stays as it is,
    // not final, and the next request that reaches its end checks it again.
    throw { status_code: 500, body: `${(e as Error).message}; the upload is not verified yet\n` };
  }
  return { headers: { [VERIFIED_HEADER]: bytesToHex(root) } };
}
