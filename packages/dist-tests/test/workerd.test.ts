// The core in workerd, the Cloudflare Workers runtime, which refuses to compile WebAssembly from
// bytes: with the package's kernel.wasm handed over, the wasm-simd backend; without it, JS and the
// same bytes. Official vectors at their full extended length in both.
import { officialVectors } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startWorkerd, type Workerd } from './workerd/serve.ts';
import type { VectorsRequest, VectorsResponse } from './workerd/worker.ts';

const OUT_LEN = officialVectors.cases[0].hash.length / 2;
const request: VectorsRequest = {
  key: officialVectors.key,
  context: officialVectors.context_string,
  lengths: officialVectors.cases.map((c) => c.input_len),
  outLen: OUT_LEN,
};

async function vectors(url: string): Promise<VectorsResponse> {
  const r = await fetch(`${url}/vectors`, { method: 'POST', body: JSON.stringify(request) });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()) as VectorsResponse;
}

function assertOfficial(got: VectorsResponse): void {
  assert.equal(got.outputs.length, officialVectors.cases.length);
  officialVectors.cases.forEach((c, i) => {
    assert.deepEqual(
      got.outputs[i],
      { hash: c.hash, keyed: c.keyed_hash, derive: c.derive_key },
      `input_len ${c.input_len}`,
    );
  });
}

describe('workerd (Cloudflare Workers runtime)', () => {
  let w: Workerd<'module' | 'fallback'>;
  before(async () => {
    w = await startWorkerd({ file: fileURLToPath(new URL('workerd/worker.ts', import.meta.url)) }, [
      'module',
      'fallback',
    ]);
  });
  after(() => w?.stop());

  it('ready({ module: kernel.wasm }): wasm-simd, official vectors, nothing compiled from bytes', async () => {
    const got = await vectors(w.url.module);
    assert.equal(got.backend, 'wasm-simd');
    assert.equal(got.kernelCompiles, 0);
    assertOfficial(got);
  });

  it('without the module: js before and after ready(), official vectors, the kernel never generated for a refused compile', async () => {
    const got = await vectors(w.url.fallback);
    assert.deepEqual([got.before, got.backend, got.kernelCompiles], ['js', 'js', 0]);
    assertOfficial(got);
  });
});
