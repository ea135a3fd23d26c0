// The Next.js app's route handlers on the edge runtime, built by `next build` and run by
// `next start`: with the package's kernel.wasm handed over, the wasm-simd backend; without it,
// what the local sandbox allows; forced onto JS, the same bytes. Official vectors in all three.
import { blake3, bytesToHex } from '@blake3-web/core';
import { officialVectors, paint } from '@blake3-web/testkit';
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot } from '../../servers/fixture-server.ts';
import { NEXT_EDGE, URLS_ENV } from './apps.ts';

const url = (JSON.parse(process.env[URLS_ENV] ?? '{}') as Record<string, string>)[NEXT_EDGE.name];
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

type Vectors = { backend: string; outputs: { hash: string; keyed: string; derive: string }[] };

async function post(path: string, body: string | Uint8Array<ArrayBuffer>): Promise<string> {
  expect(url, 'global setup started next start').toBeDefined();
  const r = await fetch(new URL(path, url), { method: 'POST', body });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  return text;
}

async function vectors(route: string): Promise<Vectors> {
  const request = {
    key: officialVectors.key,
    context: officialVectors.context_string,
    lengths: officialVectors.cases.map((c) => c.input_len),
    outLen: officialVectors.cases[0].hash.length / 2,
  };
  const got = JSON.parse(await post(`vectors/${route}`, JSON.stringify(request))) as Vectors;
  expect(got.outputs).toEqual(
    officialVectors.cases.map((c) => ({ hash: c.hash, keyed: c.keyed_hash, derive: c.derive_key })),
  );
  return got;
}

test("the README's Next.js block is the example's app/blake3/route.js", () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block = /<!-- example: examples\/next-edge\/app\/blake3\/route\.js -->\n```js\n([\s\S]*?)```/.exec(readme);
  expect(block, 'the README marks the block').not.toBeNull();
  expect(block![1]).toBe(readFileSync(join(repoRoot, 'examples/next-edge/app/blake3/route.js'), 'utf8'));
});

test('app/blake3 (kernel.wasm handed over): wasm-simd, the hash of the posted bytes', async () => {
  expect(await post('blake3', 'abc')).toBe(`${ABC} wasm-simd`);
  // Many chunks, an odd tail: both of the kernel's lane groups and the parent levels.
  const input = paint(1024 * 1024 + 4321);
  expect(await post('blake3', input)).toBe(`${bytesToHex(blake3(input))} wasm-simd`);
});

test('kernel.wasm handed over: wasm-simd, official vectors in every mode', async () => {
  expect((await vectors('module')).backend).toBe('wasm-simd');
});

// Locally Next runs edge code in a Node vm context that allows compiling WebAssembly (so the
// library compiles its kernel itself); a deployed edge runtime refuses, and the library then
// stays on JS, as the next test has it.
test('without kernel.wasm, in next start: wasm-simd compiled at run time, official vectors', async () => {
  expect((await vectors('runtime')).backend).toBe('wasm-simd');
});

test('the JS backend: official vectors, the same bytes', async () => {
  expect((await vectors('js')).backend).toBe('js');
});
