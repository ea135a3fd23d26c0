// Without the kernel file: the backend the library selects on its own in this runtime.
import { ready } from '@blake3-web/core';

import { vectors } from '../../../lib/vectors.js';

export const runtime = 'edge';

export async function POST(request) {
  await ready();
  return vectors(request);
}
