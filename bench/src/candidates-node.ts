// Candidates that only Node offers: the platform SHA-256, and blake3-jit forced onto its JS path.
import { createHash, hash as nodeHash } from 'node:crypto';
import { createRequire } from 'node:module';

import { build } from 'esbuild';

import type { Candidate } from './candidate.ts';
import { blake3JitCandidate, type Blake3JitApi } from './candidates-blake3.ts';

/** node:crypto SHA-256 (OpenSSL, SHA-NI where the CPU has it): the platform's own fast hash. */
export function nodeSha256Candidate(): Candidate {
  return {
    id: 'node-sha256',
    label: 'node:crypto SHA-256',
    algorithm: 'sha256',
    // crypto.hash skips the Hash object; it is the fastest one-shot form Node offers.
    oneShot: (input) => nodeHash('sha256', input, 'buffer'),
    incremental: (pieces) => {
      const h = createHash('sha256');
      for (const p of pieces) h.update(p);
      return h.digest();
    },
  };
}

/**
 * A second, independent copy of blake3-jit that sees a `WebAssembly` whose `validate` says no, as
 * in an engine without WASM SIMD (or a page whose CSP forbids WASM). Its `hash()` then takes its
 * pure-JS path at every size, which its public API offers no other way to reach. The copy is an
 * ordinary ES module in this realm: a copy in a separate vm context measured 2.4x slower at
 * 64 B than the original, from cross-context calls alone.
 */
export async function blake3JitJsPathCandidate(): Promise<Candidate> {
  const entry = createRequire(import.meta.url).resolve('blake3-jit');
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    // A module-scope binding shadows the global for this copy only.
    banner: { js: 'const WebAssembly = { validate: () => false };' },
    write: false,
    logLevel: 'silent',
  });
  const url = `data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].contents).toString('base64')}`;
  const api = (await import(url)) as Blake3JitApi;
  // Its Hasher is pure JS anyway: the incremental row of the main copy already measures it.
  return { ...blake3JitCandidate(api, 'blake3-jit-js', 'blake3-jit, JS path'), incremental: undefined };
}
