import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
// @ts-expect-error: the generator is a plain .mjs script without types
import { generateCompress } from '../scripts/generate-compress.mjs';

it('src/_compress.ts is what scripts/generate-compress.mjs makes today', () => {
  const committed = readFileSync(new URL('../src/_compress.ts', import.meta.url), 'utf8');
  assert.equal(committed, generateCompress(), 'run `pnpm generate` and commit the result');
});
