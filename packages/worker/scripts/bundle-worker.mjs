#!/usr/bin/env node
// The browser worker, ./worker.js with comlink and the core inlined, bundled as the repository's
// scripts/bundle-worker.mjs describes. Run after tsc.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { bundleWorker } from '../../../scripts/bundle-worker.mjs';

await bundleWorker(build, fileURLToPath(new URL('../dist/', import.meta.url)), 'worker', 'The browser worker');
