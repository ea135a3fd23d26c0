// `@blake3-web/stream` is an optional peer: a verifying store without `outboard` works where it
// is not installed (a process whose module resolution cannot find it), and a store with
// `outboard` there refuses its first request with an error that says what to install, before it
// touches the upload.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

it('a store without outboard works without @blake3-web/stream; one with outboard names what is missing', () => {
  const script = fileURLToPath(new URL('./_without-stream.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 120_000 });
  const result = JSON.parse(out.trim().split('\n').at(-1)!);
  assert.equal(result.root, result.expected);
  assert.equal(result.outboard.name, 'OutboardUnavailableError');
  assert.equal(result.outboard.exported, true, 'the error is the class both server entries export');
  assert.match(result.outboard.message, /opts\.outboard needs @blake3-web\/stream/);
  assert.equal(result.offsetAfterRefusal, 0);
});
