// b3web beside the real b3sum (installed by `node scripts/bootstrap.mjs --test`): the same
// command lines over the same files, standard output compared byte for byte, the exit status,
// and standard error line by line except where packages/cli/README.md says why not.
import { Random, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
// @ts-expect-error: plain .mjs
import { B3SUM_VERSION, installedB3sumVersion } from '../setup/b3sum-setup.mjs';
import { runTool, type Arg } from './run-tool.ts';
// @ts-expect-error: plain .mjs
import { generatedTokens, KEY, makeFiles, scenarios } from './scenarios.mjs';

type Scenario = {
  name: string;
  args: Arg[];
  stdin?: Uint8Array;
  checkfiles?: Record<string, string | Uint8Array>;
  stdinCheck?: string;
};

/**
 * Standard error as compared: the tool's name made one, and without what clap adds after an
 * error line (the usage line names the arguments given; tips suggest spellings), which b3web
 * words generically.
 */
const comparable = (stderr: string) =>
  stderr
    .replaceAll('b3sum', 'b3web')
    .split('\n')
    .filter((l) => !l.startsWith('Usage: ') && !l.startsWith('  tip: '))
    .join('\n')
    .replace(/\n{2,}/g, '\n');

let dir: string;
const hashes = new Map<string, string>();
before(async () => {
  assert.equal(
    installedB3sumVersion(),
    `b3sum ${B3SUM_VERSION}`,
    `b3sum ${B3SUM_VERSION} is not installed: run node scripts/bootstrap.mjs --test`,
  );
  dir = makeFiles();
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function hashOf(name: string): Promise<string> {
  if (!hashes.has(name))
    hashes.set(name, (await runTool('b3sum', ['--no-names', name], { cwd: dir })).stdout.toString().trim());
  return hashes.get(name)!;
}

async function fill(text: string | Uint8Array): Promise<string | Uint8Array> {
  if (typeof text !== 'string') return text;
  let out = text;
  for (const m of text.matchAll(/\{hash:([^}]*)\}/g)) out = out.replace(m[0], await hashOf(m[1]));
  return out;
}

async function compare(s: Scenario) {
  for (const [file, text] of Object.entries(s.checkfiles ?? {})) writeFileSync(join(dir, file), await fill(text));
  const stdin = s.stdinCheck !== undefined ? Buffer.from(await fill(s.stdinCheck)) : s.stdin;
  const [want, got] = await Promise.all([
    runTool('b3sum', s.args, { cwd: dir, stdin }),
    runTool('b3web', s.args, { cwd: dir, stdin }),
  ]);
  const shown = s.args
    .map((a) => JSON.stringify(typeof a === 'string' ? a : Buffer.from(a).toString('latin1')))
    .join(' ');
  assert.equal(
    got.stdout.toString('latin1'),
    want.stdout.toString('latin1'),
    `stdout of ${shown}\nb3web stderr:\n${got.stderr}`,
  );
  assert.equal(
    got.status,
    want.status,
    `exit status of ${shown}; b3sum said:\n${want.stderr}\nb3web said:\n${got.stderr}`,
  );
  assert.equal(comparable(got.stderr), comparable(want.stderr), `stderr of ${shown}`);
}

describe(`b3web and b3sum ${B3SUM_VERSION} on the same command lines`, () => {
  for (const s of scenarios as Scenario[]) it(s.name, () => compare(s));
});

describe('b3web and b3sum on generated command lines', () => {
  const seed = testSeed();
  const rng = new Random(seed);
  const tokens = generatedTokens as Arg[];
  const lines = Array.from({ length: 100 }, () => Array.from({ length: rng.int(0, 5) }, () => rng.pick(tokens)));
  it(`100 command lines from seed ${seed}`, async () => {
    writeFileSync(
      join(dir, 'sums'),
      `${await hashOf('one')}  one\n\\${await hashOf('cr\r')}  cr\\r\n${'0'.repeat(64)}  small\n`,
    );
    const failures: string[] = [];
    for (const args of lines)
      await compare({ name: args.join(' '), args, stdin: KEY }).catch((e: Error) => failures.push(e.message));
    assert.deepEqual(failures, []);
  });
});
