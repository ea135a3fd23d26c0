import { bytesToHex } from '@blake3-web/core';

/**
 * The default of `memoryBytes`: 16 MiB, eight times workbox-build's default precache limit per
 * file (2 MiB), so a site's usual assets stay held while a worker runs.
 */
export const DEFAULT_MEMORY_BYTES: number = 16 * 1024 * 1024;

/**
 * Bodies this worker hashed itself and found to match, by digest, in memory: what a cache hit can
 * be answered with without reading or hashing the entry again. Page code of the origin can read
 * and write every cache entry and header, so no mark inside the cache proves anything against it;
 * this worker's memory it cannot reach. Least recently used bodies go first once the total passes
 * `maxBytes`; a body larger than that is never held.
 */
export class VerifiedBodies {
  readonly maxBytes: number;
  #bytes = 0;
  /** Hex digest -> body, least recently used first. */
  readonly #bodies = new Map<string, Blob>();

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The body whose BLAKE3 (its first `digest.length` bytes) is `digest`, if held. */
  get(digest: Uint8Array): Blob | undefined {
    const key = bytesToHex(digest);
    const body = this.#bodies.get(key);
    if (body) {
      this.#bodies.delete(key);
      this.#bodies.set(key, body);
    }
    return body;
  }

  /** Holds `bytes` (an array as a Blob of its own copy), which the caller hashed and found to be `digest`. */
  remember(digest: Uint8Array, bytes: Blob | Uint8Array): void {
    const size = bytes instanceof Blob ? bytes.size : bytes.length;
    if (size > this.maxBytes) return;
    const body = bytes instanceof Blob ? bytes : new Blob([bytes as BlobPart]);
    const key = bytesToHex(digest);
    const old = this.#bodies.get(key);
    if (old) {
      this.#bodies.delete(key);
      this.#bytes -= old.size;
    }
    for (const [k, b] of this.#bodies) {
      if (this.#bytes + body.size <= this.maxBytes) break;
      this.#bodies.delete(k);
      this.#bytes -= b.size;
    }
    this.#bodies.set(key, body);
    this.#bytes += body.size;
  }
}
