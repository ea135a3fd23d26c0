// Runs bench/*.measure.ts in Chromium, Firefox and WebKit with the engine fixtures of servers/ (build first):
//   node_modules/.bin/playwright test -c packages/worker/bench/browsers.config.ts
// A measurement, not a test: it prints one JSON line per engine and asserts only that hashes agree.
import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';

import base from '../../../playwright.config.ts';

const repo = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

export default defineConfig({
  ...base,
  testDir: fileURLToPath(new URL('.', import.meta.url)),
  testMatch: /\.measure\.ts$/,
  globalSetup: repo('servers/global-setup.ts'),
  outputDir: repo('test-results/worker-bench'),
  reporter: 'list',
  timeout: 900_000,
  // One engine at a time: the pool measures how well it uses the machine's cores.
  workers: 1,
});
