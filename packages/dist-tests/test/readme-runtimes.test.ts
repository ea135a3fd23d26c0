// The README's runtime examples, run as written: each fenced block after a
// `<!-- runtime-example: ... -->` marker runs in every runtime the marker names.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startWorkerd } from './workerd/serve.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const bin = fileURLToPath(new URL('../../../node_modules/.bin/', import.meta.url));
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

const examples = [...readme.matchAll(/<!-- runtime-example: ([\w ]+) -->\n```js\n([\s\S]*?)```/g)].map((m) => ({
  runtimes: m[1].trim().split(/\s+/),
  code: m[2],
}));
const example = (runtime: string) => {
  const found = examples.filter((e) => e.runtimes.includes(runtime));
  assert.equal(found.length, 1, `one README example for ${runtime}`);
  return found[0].code;
};

/** Runs `code` as an ES module file in this package (so it imports the workspace's packages). */
function runModule(command: string, args: readonly string[], code: string): string {
  const file = join(packageDir, `.readme-example-${process.pid}.mjs`);
  writeFileSync(file, code);
  try {
    const r = spawnSync(command, [...args, file], { cwd: packageDir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `${command}: ${r.stderr}`);
    return r.stdout.trim();
  } finally {
    rmSync(file, { force: true });
  }
}

describe('README runtime examples', () => {
  it('the README marks one example for each runtime tested here', () => {
    assert.deepEqual(examples.flatMap((e) => e.runtimes).sort(), ['bun', 'deno', 'node', 'workerd']);
  });

  it('Node', () => assert.equal(runModule(process.execPath, [], example('node')), ABC));
  it('Deno', () =>
    assert.equal(
      runModule(join(bin, 'deno'), ['run', '--quiet', '--allow-read', '--allow-env'], example('deno')),
      ABC,
    ));
  it('Bun', () => assert.equal(runModule(join(bin, 'bun'), ['run'], example('bun')), ABC));

  it('Cloudflare Workers (workerd): the example answers with the hash on wasm-simd', async () => {
    const w = await startWorkerd({ contents: example('workerd') }, ['readme']);
    try {
      const r = await fetch(w.url.readme, { method: 'POST', body: 'abc' });
      assert.equal(await r.text(), `${ABC} wasm-simd`);
    } finally {
      await w.stop();
    }
  });
});
