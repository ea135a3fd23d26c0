// b3web against b3sum's recorded behaviour (test/fixtures/b3sum.json, made by
// scripts/generate-b3sum-fixtures.mjs): the same standard output byte for byte, the same exit
// status, and the same error reasons on standard error.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain .mjs shared with the fixture generator
import { makeFiles, scenarios } from './scenarios.mjs';

type Recorded = { status: number; stdout: string; stderr: string; checkfiles: Record<string, string>; stdinCheck?: string };
type Scenario = { name: string; args: string[]; stdin?: Uint8Array };

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/b3sum.json', import.meta.url), 'utf8')) as { tool: string; results: Record<string, Recorded> };
const bin = fileURLToPath(new URL('../bin/b3web.js', import.meta.url));
const dir: string = makeFiles();
after(() => rmSync(dir, { recursive: true, force: true }));

/** The reason in an error line, whatever the tool's prefix (`b3sum: `, `Error: `, `error: `). */
const reasons = (stderr: string) =>
  stderr.split('\n').filter((l) => /^(b3sum|b3web|Error|error): /.test(l)).map((l) => l.replace(/^(b3sum|b3web|Error|error): /, ''));

describe(`b3web matches ${fixtures.tool}`, () => {
  for (const s of scenarios as Scenario[]) {
    it(s.name, () => {
      const want = fixtures.results[s.name];
      assert.ok(want, `no recorded result for "${s.name}": run pnpm --filter @blake3-web/cli fixtures`);
      for (const [file, text] of Object.entries(want.checkfiles)) writeFileSync(join(dir, file), text);
      const input = want.stdinCheck !== undefined ? Buffer.from(want.stdinCheck) : Buffer.from(s.stdin ?? []);
      const got = spawnSync(process.execPath, [bin, ...s.args], { cwd: dir, input, maxBuffer: 1 << 26 });
      assert.equal(got.stdout.toString('base64'), want.stdout, `stdout of b3web ${s.args.join(' ')}:\n${got.stdout}\nstderr:\n${got.stderr}`);
      assert.equal(got.status, want.status, `exit status; stderr: ${got.stderr}`);
      // Each reason b3sum gives appears in b3web's errors, which may also name the file.
      const ours = reasons(got.stderr.toString());
      for (const reason of reasons(want.stderr)) {
        assert.ok(ours.some((r) => r === reason || r.endsWith(`: ${reason}`)), `stderr should give "${reason}", got:\n${got.stderr}`);
      }
    });
  }
});
