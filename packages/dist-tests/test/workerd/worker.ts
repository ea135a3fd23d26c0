// A Cloudflare Worker over the published entry points. The service whose SUPPLY binding is
// "module" hands the library the kernel.wasm that workerd compiled at load; the other runs with
// what the library finds on its own (workerd refuses to compile WebAssembly from bytes).
import { compiles } from './count-compiles.ts';
import { backend, blake3, bytesToHex, ready } from '@blake3-web/core';
import kernel from '@blake3-web/core/kernel.wasm';
// The official vectors' input pattern, from the testkit's module itself (its index also holds Node-only helpers).
import { paint } from '../../../testkit/src/paint.ts';

type Env = { readonly SUPPLY: string };
/** What /vectors computes: the official vectors' inputs and modes. */
export type VectorsRequest = {
  readonly key: string;
  readonly context: string;
  readonly lengths: readonly number[];
  readonly outLen: number;
};
export type VectorsResponse = {
  readonly before: string;
  readonly backend: string;
  readonly kernelCompiles: number;
  readonly outputs: { hash: string; keyed: string; derive: string }[];
};
export type BenchResponse = { readonly backend: string; readonly bytes: number; readonly ms: number };
/** The first backend() of the isolate: how long selecting the backend took. */
export type SelectResponse = { readonly backend: string; readonly ms: number };

let selectMs: number | undefined;

const json = (value: unknown) =>
  new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const started = performance.now();
    const before = backend();
    selectMs ??= performance.now() - started;
    if (env.SUPPLY === 'module') await ready({ module: kernel });
    else await ready();
    const url = new URL(request.url);
    if (url.pathname === '/vectors') {
      const { key, context, lengths, outLen } = (await request.json()) as VectorsRequest;
      const keyBytes = new TextEncoder().encode(key);
      const outputs = lengths.map((n) => {
        const input = paint(n);
        return {
          hash: bytesToHex(blake3(input, { dkLen: outLen })),
          keyed: bytesToHex(blake3(input, { key: keyBytes, dkLen: outLen })),
          derive: bytesToHex(blake3(input, { context, dkLen: outLen })),
        };
      });
      return json({ before, backend: backend(), kernelCompiles: compiles.kernel, outputs } satisfies VectorsResponse);
    }
    if (url.pathname === '/bench') {
      // Hashes `size`-byte messages for at least `ms` milliseconds (timers run during CPU work in local workerd).
      const size = Number(url.searchParams.get('size'));
      const minMs = Number(url.searchParams.get('ms'));
      const input = paint(size);
      let bytes = 0;
      const start = performance.now();
      let now = start;
      while (now - start < minMs) {
        for (let i = 0; i < 64; i++) blake3(input);
        bytes += 64 * size;
        now = performance.now();
      }
      return json({ backend: backend(), bytes, ms: now - start } satisfies BenchResponse);
    }
    if (url.pathname === '/select') return json({ backend: before, ms: selectMs } satisfies SelectResponse);
    return new Response('not found', { status: 404 });
  },
};
