// The published types resolve and check for a TypeScript user under moduleResolution bundler,
// node16 and nodenext (each entry point; under nodenext also require() from CommonJS).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const tsc = fileURLToPath(new URL('../../../node_modules/.bin/tsc', import.meta.url));
const dir = fileURLToPath(new URL('types/', import.meta.url));
const RESOLUTIONS = ['bundler', 'node16', 'nodenext'];

describe('types of the published packages', () => {
  for (const resolution of RESOLUTIONS) {
    it(`moduleResolution ${resolution} (types/tsconfig.${resolution}.json)`, () => {
      const r = spawnSync(tsc, ['-p', `tsconfig.${resolution}.json`], { cwd: dir, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stdout + r.stderr);
    });
  }
});
