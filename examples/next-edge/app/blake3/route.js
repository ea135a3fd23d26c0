// app/blake3/route.js: the request body's BLAKE3, on the edge runtime.
import { backend, blake3, bytesToHex, ready } from '@blake3-web/core';
import kernel from '@blake3-web/core/kernel.wasm';

export const runtime = 'edge';

/** @param {Request} request */
export async function POST(request) {
  await ready({ module: kernel }); // backend() is 'wasm-simd' from here on
  const digest = blake3(new Uint8Array(await request.arrayBuffer()));
  return new Response(`${bytesToHex(digest)} ${backend()}`);
}
