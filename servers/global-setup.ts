import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot, startFixtureServer } from './fixture-server.ts';

/** Built files the specs load; without them every test would fail with a 404. */
const REQUIRED = ['packages/core/dist/index.js', 'packages/core/dist/hazmat.js'];

/**
 * Starts the fixture server once for the run; workers find it through BLAKE3_E2E_URL, and the
 * directory of the demo's uploads through BLAKE3_E2E_UPLOADS.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const missing = REQUIRED.filter((f) => !existsSync(join(repoRoot, f)));
  if (missing.length > 0) {
    throw new Error(`missing build output ${missing.join(', ')}: run \`node scripts/pnpm.mjs run build\` first`);
  }
  const server = await startFixtureServer();
  process.env.BLAKE3_E2E_URL = server.url;
  process.env.BLAKE3_E2E_UPLOADS = server.uploads;
  return () => server.close();
}
