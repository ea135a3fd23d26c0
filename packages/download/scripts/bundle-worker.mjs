#!/usr/bin/env node
// The OPFS store's worker, ./opfs-worker.js with the core inlined, bundled as the repository's
// scripts/bundle-worker.mjs describes. Run after tsc.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { bundleWorker } from '../../../scripts/bundle-worker.mjs';

await bundleWorker(
  build,
  fileURLToPath(new URL('../dist/', import.meta.url)),
  'opfs-worker',
  "The OPFS store's worker",
);
