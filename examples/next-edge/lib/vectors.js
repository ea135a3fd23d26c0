// The official BLAKE3 test vectors, computed on whatever backend the route chose: each requested
// input length in the three modes, at the requested output length.
import { backend, blake3, bytesToHex } from '@blake3-web/core';

/** The vectors' input: bytes 0, 1, ..., 250, 0, 1, ... */
function paint(length) {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = i % 251;
  return out;
}

/** Answers a POST of `{ key, context, lengths, outLen }` with the backend and each length's hashes. */
export async function vectors(request) {
  const { key, context, lengths, outLen } = await request.json();
  const keyBytes = new TextEncoder().encode(key);
  const outputs = lengths.map((n) => {
    const input = paint(n);
    return {
      hash: bytesToHex(blake3(input, { dkLen: outLen })),
      keyed: bytesToHex(blake3(input, { key: keyBytes, dkLen: outLen })),
      derive: bytesToHex(blake3(input, { context, dkLen: outLen })),
    };
  });
  return Response.json({ backend: backend(), outputs });
}
