import { assertConformance, officialVectors } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { runTool } from './run-tool.ts';

it('conformance suite: b3web --length, with --keyed and --derive-key, output lengths 0, 1, 32 and 131', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'b3web-conformance-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const report = await assertConformance({
    // One run per mode and length, every input a file of its own, as b3sum is used.
    hashAll: async (inputs, { mode, key, context, outputLength }) => {
      const files = inputs.map((input, i) => {
        const file = join(dir, `input-${i}`);
        writeFileSync(file, input);
        return file;
      });
      const flags = mode === 'keyed_hash' ? ['--keyed'] : mode === 'derive_key' ? ['--derive-key', context!] : [];
      const { status, stdout, stderr } = await runTool(
        'b3web',
        [...flags, '--length', String(outputLength), '--no-names', ...files],
        { stdin: key },
      );
      assert.equal(status, 0, stderr);
      return stdout.toString('utf8').split('\n').slice(0, -1);
    },
  });
  assert.equal(report.planned, officialVectors.cases.length * 3 * 4);
});
