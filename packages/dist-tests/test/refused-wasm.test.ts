// The refusal path as Node reproduces it exactly: a vm context created with WebAssembly code
// generation disabled, as Cloudflare Workers run code. The core (bundled as one
// script) falls back to JS quietly without generating its kernel, and takes the package's
// kernel.wasm compiled outside the context (another realm) through ready({ module }).
import { officialVectors } from '@blake3-web/testkit';
import { build } from 'esbuild';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { before, describe, it } from 'node:test';
import vm from 'node:vm';

const require = createRequire(import.meta.url);
const kernelPath = require.resolve('@blake3-web/core/kernel.wasm');
let coreScript: string;

/** A fresh context that refuses WebAssembly code generation, with the core loaded as `core` and compile attempts counted. */
function refusingContext(): vm.Context {
  // A bare context has no TextEncoder or TextDecoder, which every edge runtime has.
  const context = vm.createContext({ TextEncoder, TextDecoder }, { codeGeneration: { wasm: false } });
  vm.runInContext(
    `globalThis.kernelCompiles = 0;
     const count = (b) => { if (ArrayBuffer.isView(b) && b.byteLength > 1024) kernelCompiles++; };
     const { compile } = WebAssembly;
     WebAssembly.Module = new Proxy(WebAssembly.Module, { construct(t, a) { count(a[0]); return new t(...a); } });
     WebAssembly.compile = (b) => { count(b); return compile(b); };`,
    context,
  );
  vm.runInContext(coreScript, context);
  return context;
}

/** Runs an async function body in the context with `core` and `vectors`; returns its result. */
async function inContext<T>(context: vm.Context, body: string): Promise<T> {
  context.vectors = officialVectors;
  return JSON.parse(
    await vm.runInContext(`(async () => JSON.stringify(await (async () => { ${body} })()))()`, context),
  ) as T;
}

const officialCheck = `
  const key = new TextEncoder().encode(vectors.key);
  const paint = (n) => Uint8Array.from({ length: n }, (_, i) => i % 251);
  const outLen = vectors.cases[0].hash.length / 2;
  const wrong = vectors.cases.filter((c) => {
    const input = paint(c.input_len);
    return core.bytesToHex(core.blake3(input, { dkLen: outLen })) !== c.hash ||
      core.bytesToHex(core.blake3(input, { key, dkLen: outLen })) !== c.keyed_hash ||
      core.bytesToHex(core.blake3(input, { context: vectors.context_string, dkLen: outLen })) !== c.derive_key;
  }).map((c) => c.input_len);`;

describe('WebAssembly code generation refused (vm context, codeGeneration.wasm false)', () => {
  before(async () => {
    const out = await build({
      entryPoints: ['@blake3-web/core'],
      bundle: true,
      format: 'iife',
      globalName: 'core',
      platform: 'neutral',
      write: false,
      logLevel: 'silent',
    });
    coreScript = out.outputFiles[0].text;
  });

  it('the context refuses what the library would compile', () => {
    const context = vm.createContext({ TextEncoder, TextDecoder }, { codeGeneration: { wasm: false } });
    assert.throws(
      () => vm.runInContext('new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))', context),
      /disallowed by embedder/,
    );
  });

  it('js quietly, official vectors, and the kernel neither generated nor compiled', async () => {
    const got = await inContext<unknown[]>(
      refusingContext(),
      `
      const first = core.backend();
      await core.ready();
      ${officialCheck}
      return [first, core.backend(), core.isBackendAvailable('wasm-simd'), kernelCompiles, wrong];`,
    );
    assert.deepEqual(got, ['js', 'js', false, 0, []]);
  });

  it('ready({ module }) with kernel.wasm compiled in another realm: wasm-simd, official vectors', async () => {
    const context = refusingContext();
    context.kernel = new WebAssembly.Module(readFileSync(kernelPath));
    const got = await inContext<unknown[]>(
      context,
      `
      const first = core.backend();
      await core.ready({ module: kernel });
      ${officialCheck}
      return [first, core.backend(), kernelCompiles, wrong];`,
    );
    assert.deepEqual(got, ['js', 'wasm-simd', 0, []]);
  });
});
