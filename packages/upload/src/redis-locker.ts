/**
 * A `Locker` for @tus/server over Redis, so that several tus instances never write one upload at
 * once: each lock is a Redlock lock (`@sesamecare-oss/redlock`) on `<prefix><upload id>` with a
 * time to live that the holder extends while its request runs, so a killed instance's lock
 * expires on its own. A request that waits for a lock asks the holder, on whichever instance it
 * runs, to let go (tus's `requestRelease`: the holder ends its request, the client resumes), over
 * a Redis channel.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { RedisLocker } from '@blake3-web/upload/redis-locker';
 * const locker = new RedisLocker(new Redis({ commandTimeout: 2000, maxRetriesPerRequest: 1 }));
 * // new Server({ ..., locker })
 * ```
 * @module
 */
import { Redlock, type Lock as Redlease } from '@sesamecare-oss/redlock';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';
import type { Redis } from 'ioredis';
import { describe } from './_assert.js';

export type RedisLockerOpts = {
  /** Prefix of the lock keys and of the release channel (default 'tus-lock:'). */
  prefix?: string;
  /** How long a lock lives unless its holder extends it, ms (default 10000). */
  ttlMs?: number;
  /** How long a request waits for a lock before it fails with tus's lock timeout, ms (default 30000). */
  acquireTimeoutMs?: number;
};

const RETRY_MS = 50;

export class RedisLocker implements Locker {
  readonly #redis: Redis;
  readonly #redlock: Redlock;
  readonly #prefix: string;
  readonly #ttl: number;
  readonly #timeout: number;
  /** The requests of this instance that hold a lock, by upload id: how to ask each to let go. */
  readonly #holders = new Map<string, RequestRelease>();
  #subscriber: Redis | undefined;

  constructor(redis: Redis, opts: RedisLockerOpts = {}) {
    if (typeof redis !== 'object' || redis === null || typeof redis.duplicate !== 'function')
      throw new TypeError(`redis must be an ioredis client, got ${describe(redis)}`);
    const { prefix = 'tus-lock:', ttlMs = 10_000, acquireTimeoutMs = 30_000 } = opts;
    if (typeof prefix !== 'string') throw new TypeError(`opts.prefix must be a string, got ${describe(prefix)}`);
    for (const [name, value] of [
      ['opts.ttlMs', ttlMs],
      ['opts.acquireTimeoutMs', acquireTimeoutMs],
    ] as const)
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 100)
        throw new RangeError(`${name} must be a number of milliseconds of at least 100, got ${describe(value)}`);
    this.#redis = redis;
    this.#redlock = new Redlock([redis], { retryCount: 0 });
    // Redlock reports extension failures here too; each lock handles its own.
    this.#redlock.on('error', () => undefined);
    this.#prefix = prefix;
    this.#ttl = ttlMs;
    this.#timeout = acquireTimeoutMs;
  }

  newLock(id: string): Lock {
    return new RedisLock(this, id);
  }

  /** Stops listening for release requests (the client itself is the caller's to close). */
  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    subscriber?.disconnect();
  }

  /** @internal */
  async acquire(id: string, signal: AbortSignal, requestRelease: RequestRelease): Promise<Redlease> {
    this.#listen();
    const key = this.#prefix + id;
    const deadline = Date.now() + this.#timeout;
    let asked = 0;
    for (;;) {
      if (signal.aborted) throw ERRORS.ABORTED;
      try {
        const lease = await this.#redlock.acquire([key], this.#ttl);
        this.#holders.set(id, requestRelease);
        return lease;
      } catch (e) {
        // Held elsewhere (or Redis refused: then the deadline ends the wait).
        if (Date.now() >= deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
        void e;
      }
      if (Date.now() - asked > 1000) {
        asked = Date.now();
        this.#redis.publish(this.#channel, id).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS + Math.random() * RETRY_MS));
    }
  }

  /** @internal */
  async extend(lease: Redlease): Promise<Redlease> {
    return lease.extend(this.#ttl);
  }

  /** @internal */
  get ttl(): number {
    return this.#ttl;
  }

  /** @internal */
  async release(id: string, lease: Redlease): Promise<void> {
    this.#holders.delete(id);
    // A lease that cannot be released (Redis down) expires after its time to live.
    await lease.release().catch(() => undefined);
  }

  get #channel(): string {
    return `${this.#prefix}release`;
  }

  #listen(): void {
    if (this.#subscriber !== undefined) return;
    // Its own connection (a subscribed client runs no other command), which waits for Redis
    // rather than failing while it reconnects.
    const subscriber = this.#redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.#subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, id: string) => void this.#holders.get(id)?.());
    subscriber.subscribe(this.#channel).catch(() => undefined);
  }
}

class RedisLock implements Lock {
  readonly #locker: RedisLocker;
  readonly #id: string;
  #lease: Redlease | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(locker: RedisLocker, id: string) {
    this.#locker = locker;
    this.#id = id;
  }

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    this.#lease = await this.#locker.acquire(this.#id, signal, requestRelease);
    // Extended at a third of its life; a holder that cannot extend lets go of its request
    // rather than write on without the lock.
    this.#timer = setInterval(() => {
      const lease = this.#lease;
      if (lease === undefined) return;
      this.#locker.extend(lease).then(
        (extended) => {
          if (this.#lease === lease) this.#lease = extended;
        },
        () => void requestRelease(),
      );
    }, this.#locker.ttl / 3);
    this.#timer.unref?.();
  }

  async unlock(): Promise<void> {
    clearInterval(this.#timer);
    const lease = this.#lease;
    this.#lease = undefined;
    if (lease === undefined) throw new Error('Releasing an unlocked lock!');
    await this.#locker.release(this.#id, lease);
  }
}
