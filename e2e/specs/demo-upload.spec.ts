// The demo's Upload page through its UI, in all three engines, against the demo's own tus server
// (the fixture server mounts it at /demo/dist/files/): a file picked in the input uploads, and the
// page shows the server's verdict. Refusals: with the tamper switch on, the server flips a byte
// as it arrives; and a byte of the stored partial upload changed on disk between two PATCHes
// (as another process, a bad disk or a restore would) must be refused too, since the demo's
// server checks the bytes as stored when the upload finishes.
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';

import { oracle, paint } from '@blake3-web/testkit';

import { expect, test } from '../fixtures/demo-page.ts';
import {
  CHUNK,
  openUploadPage,
  pick,
  storedUpload,
  waitForVerdict,
  writeFileToPick,
} from '../fixtures/demo-upload-page.ts';
import { heldPatch, holdPatch, releasePatch } from '../fixtures/upload-network.ts';

const SIZE = 3 * 1024 * 1024 + 777;
const [ROOT] = oracle([{ data: paint(SIZE), length: 32 }]);
/** Two PATCHes: the first leaves a partial upload of CHUNK bytes on the server. */
const TWO_PATCHES = CHUNK + 1024 * 1024 + 333;

/** Flips one bit of the byte at `at` of the file, in place, as another process would. */
function flipByte(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = new Uint8Array(1);
    readSync(fd, byte, 0, 1, at);
    byte[0]! ^= 1;
    writeSync(fd, byte, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}

test.describe('demo: upload while hashing', () => {
  test.beforeEach(async ({ demoPage }) => openUploadPage(demoPage));

  test('an upload ends with the server verdict "Verified" and the root of the file', async ({ demoPage }, info) => {
    await pick(demoPage, writeFileToPick(info, 'a', `demo-${info.project.name}.bin`, paint(SIZE)));
    const { verdict, state, status, look, meters } = await waitForVerdict(demoPage);
    expect(verdict, status).toBe(`Verified: ${ROOT}`);
    expect(state).toBe('verified');
    expect(look).toMatchObject({ tone: 'ok', mark: '"✓"' });
    expect(status, 'the root is shown once, in the verdict').not.toContain(ROOT);
    expect(meters).toEqual([
      expect.stringMatching(/^100% · 3\.0 MiB of 3\.0 MiB · [\d.]+ MB\/s$/),
      expect.stringMatching(/^100% · 3\.0 MiB of 3\.0 MiB · [\d.]+ MB\/s$/),
    ]);
  });

  test('with the tamper switch on, the server refuses the upload and the page says so', async ({ demoPage }, info) => {
    await demoPage.evaluate(() => void ((document.getElementById('tamper') as HTMLInputElement).checked = true));
    await pick(demoPage, writeFileToPick(info, 'a', `demo-tamper-${info.project.name}.bin`, paint(SIZE)));
    const { verdict, state, status, look } = await waitForVerdict(demoPage);
    expect(verdict, status).toMatch(/^Refused \(460\): the bytes received do not have the root the client sent\./);
    expect(state).toBe('refused');
    // A refusal must not look like a success: another mark, another colour.
    expect(look).toMatchObject({ tone: 'bad', mark: '"✗"' });
    const verified = await demoPage.evaluate(() => {
      const probe = document.createElement('p');
      probe.className = 'status-box';
      probe.dataset.tone = 'ok';
      probe.textContent = 'probe';
      document.body.append(probe);
      const color = getComputedStyle(probe).color;
      probe.remove();
      return color;
    });
    expect(look.color).not.toBe(verified);
  });

  test('with the stored-byte switch on, the server changes its copy between two requests and refuses it', async ({
    demoPage,
  }, info) => {
    await demoPage.evaluate(() => void ((document.getElementById('tamper-stored') as HTMLInputElement).checked = true));
    await pick(demoPage, writeFileToPick(info, 'a', `demo-stored-${info.project.name}.bin`, paint(TWO_PATCHES)));
    const { verdict, state, status } = await waitForVerdict(demoPage);
    expect(verdict, status).toMatch(/^Refused \(460\): the bytes stored are not the bytes received\b/);
    expect(state).toBe('refused');
  });

  test('a byte of the partial upload changed on disk between two PATCHes: refused, not "Verified"', async ({
    demoPage,
  }, info) => {
    await holdPatch(demoPage, 1);
    await pick(demoPage, writeFileToPick(info, 'a', `demo-on-disk-${info.project.name}.bin`, paint(TWO_PATCHES)));
    // The first PATCH is stored and hashed as received; the second waits in the page.
    const stored = storedUpload(await heldPatch(demoPage));
    expect(statSync(stored).size, 'the server holds the first PATCH').toBe(CHUNK);
    flipByte(stored, 12_345);
    await releasePatch(demoPage);
    const { verdict, state, status } = await waitForVerdict(demoPage);
    expect(verdict, status).toMatch(/^Refused \(460\): the bytes stored are not the bytes received\b/);
    expect(state).toBe('refused');
  });
});
