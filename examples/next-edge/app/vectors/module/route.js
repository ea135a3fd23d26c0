// The package's kernel.wasm handed over, as in app/blake3.
import { ready } from '@blake3-web/core';
import kernel from '@blake3-web/core/kernel.wasm';

import { vectors } from '../../../lib/vectors.js';

export const runtime = 'edge';

export async function POST(request) {
  await ready({ module: kernel });
  return vectors(request);
}
