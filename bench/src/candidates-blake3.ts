// Adapters for every BLAKE3 implementation that runs in both Node and browsers. Each is called
// the way its documentation suggests for speed, always returning a fresh 32-byte Uint8Array.
import { blake3, isBackendAvailable, setBackend, type Backend } from '@blake3-web/core';
import { Blake3Hasher, hash as officialHash, init as officialInit } from '@fuzdev/blake3_wasm';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { createHasher as jitCreateHasher, hash as jitHash } from 'blake3-jit';
import { createBLAKE3 } from 'hash-wasm';

import type { Candidate } from './candidate.ts';

/** Our backends in order of preference; every available one is measured as its own row. */
export const CORE_BACKENDS: readonly Backend[] = ['wasm-simd', 'js'];

export function coreCandidates(): Candidate[] {
  return CORE_BACKENDS.filter(isBackendAvailable).map((b) => ({
    id: `core-${b}`,
    label: `@blake3-web/core (${b})`,
    algorithm: 'blake3',
    // The backend is process-wide, so every sample re-selects the one this row measures.
    select: () => setBackend(b),
    oneShot: (input) => blake3(input),
    incremental: (pieces) => {
      const h = blake3.create();
      for (const p of pieces) h.update(p);
      return h.digest();
    },
  }));
}

/**
 * Incremental only: one hasher for the whole run, `reset()` before each message, on the default
 * backend. hash-wasm's rows are measured this way (its documented `init()` per message), so this
 * row is the like-for-like comparison with them; the rows above create a hasher per message.
 */
export function coreReusedHasherCandidate(): Candidate {
  const b: Backend = CORE_BACKENDS.find(isBackendAvailable)!;
  let h: ReturnType<typeof blake3.create> | undefined;
  return {
    id: 'core-reused-hasher',
    label: `@blake3-web/core (${b}), one hasher, reset() per message`,
    algorithm: 'blake3',
    select: () => setBackend(b),
    incremental: (pieces) => {
      h = (h ?? blake3.create()).reset();
      for (const p of pieces) h.update(p);
      return h.digest();
    },
  };
}

/** The part of blake3-jit's API the benchmark uses; also fits a copy loaded in another realm. */
export interface Blake3JitApi {
  hash(input: Uint8Array): Uint8Array;
  createHasher(): { update(input: Uint8Array): unknown; finalize(): Uint8Array };
}

/**
 * blake3-jit's `hash()` switches itself: pure JS below 4 KiB, its runtime-generated WASM SIMD
 * kernel from 4 KiB. Its `Hasher` (incremental) is pure JS at every size.
 */
export function blake3JitCandidate(
  api: Blake3JitApi = { hash: jitHash, createHasher: jitCreateHasher },
  id = 'blake3-jit',
  label = 'blake3-jit',
): Candidate {
  return {
    id,
    label,
    algorithm: 'blake3',
    oneShot: (input) => api.hash(input),
    incremental: (pieces) => {
      const h = api.createHasher();
      for (const p of pieces) h.update(p);
      return h.finalize();
    },
  };
}

/**
 * hash-wasm's `blake3()` is async and returns hex; its documented fast path is a hasher created
 * once (creation is async) and re-initialised per message, returning binary. Both modes use it.
 */
export async function hashWasmCandidate(): Promise<Candidate> {
  const h = await createBLAKE3();
  return {
    id: 'hash-wasm',
    label: 'hash-wasm',
    algorithm: 'blake3',
    oneShot: (input) => h.init().update(input).digest('binary'),
    incremental: (pieces) => {
      h.init();
      for (const p of pieces) h.update(p);
      return h.digest('binary');
    },
  };
}

export function nobleCandidate(): Candidate {
  return {
    id: 'noble',
    label: '@noble/hashes',
    algorithm: 'blake3',
    oneShot: (input) => nobleBlake3(input),
    incremental: (pieces) => {
      const h = nobleBlake3.create();
      for (const p of pieces) h.update(p);
      return h.digest();
    },
  };
}

/** The npm package that carries the official crate's WASM build; its version goes into the results. */
export const OFFICIAL_WASM_PACKAGE = '@fuzdev/blake3_wasm';

/**
 * The official `blake3` Rust crate built for wasm32 with its SIMD backend (wasm-bindgen glue):
 * the reference point for what a WASM SIMD BLAKE3 reaches. `init()` fetches the module in
 * browsers and is a no-op in runtimes that loaded it on import. Its `update` copies each piece
 * into the module's memory, as its `hash` copies the whole input.
 */
export async function officialWasmCandidate(): Promise<Candidate> {
  await officialInit();
  return {
    id: 'official-wasm',
    label: 'BLAKE3 crate, wasm32 SIMD',
    algorithm: 'blake3',
    oneShot: (input) => officialHash(input),
    incremental: (pieces) => {
      const h = new Blake3Hasher();
      try {
        for (const p of pieces) h.update(p);
        return h.finalize();
      } finally {
        h.free();
      }
    },
  };
}
