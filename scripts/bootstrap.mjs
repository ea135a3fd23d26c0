#!/usr/bin/env node
// Everything a fresh machine with only Node 20 and npm needs: the pinned pnpm, the workspace
// dependencies and, with --test, the reference implementations the differential tests use and
// the servers the tests upload to.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { PNPM_VERSION, toolsDir, root, must, hasPinnedPnpm, pnpmBin } from './tools.mjs';

const forTests = process.argv.includes('--test');

if (!hasPinnedPnpm()) {
  mkdirSync(toolsDir, { recursive: true });
  const pkg = join(toolsDir, 'package.json');
  if (!existsSync(pkg)) writeFileSync(pkg, '{ "private": true }\n');
  console.log(`installing pnpm ${PNPM_VERSION} into .tools/`);
  must('npm', ['install', '--prefix', toolsDir, '--no-audit', '--no-fund', `pnpm@${PNPM_VERSION}`]);
}

must(pnpmBin, ['install', '--frozen-lockfile=' + (process.env.CI ? 'true' : 'false')]);

if (forTests) {
  const { ensureOracle } = await import(join(root, 'packages/testkit/setup/oracle-setup.mjs'));
  ensureOracle();
  const { ensureB3sum } = await import(join(root, 'packages/cli/setup/b3sum-setup.mjs'));
  ensureB3sum();
  const { ensureBao } = await import(join(root, 'packages/stream/setup/bao-setup.mjs'));
  ensureBao();
  // tusd, the Go tus server the upload tests run the hook of go/tusd-blake3 in.
  const { ensureTusd } = await import(join(root, 'go/tusd-blake3/setup/tusd.mjs'));
  ensureTusd();
  const { ensureFleetServices } = await import(join(root, 'packages/upload/setup/fleet-services.mjs'));
  ensureFleetServices();
  // The e2e tests drive Debian's Chromium, Firefox ESR and WebKitGTK.
  const { ensureBrowsers } = await import('./browsers.mjs');
  ensureBrowsers();
}
