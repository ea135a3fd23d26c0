// The JavaScript backend, where a deployed edge runtime refuses to compile WebAssembly at run time.
import { setBackend } from '@blake3-web/core';

import { vectors } from '../../../lib/vectors.js';

export const runtime = 'edge';

export async function POST(request) {
  setBackend('js');
  return vectors(request);
}
