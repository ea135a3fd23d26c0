// Picking files on the demo's Upload page as people do, through the input in all three engines:
// the same file again after a verdict (the input fires `change` only for a selection other than
// the current one), the same file after a reload mid-upload (Firefox restores a form's file and
// buttons on reload), and a different file with the same name, size and modification time (as
// `cp -p`, rsync or unzip make), which must not resume the other file's upload.
import { oracle, paint } from '@blake3-web/testkit';

import { expect, test } from '../fixtures/demo-page.ts';
import {
  CHUNK,
  openUploadPage,
  pick,
  shown,
  waitForVerdict,
  waitUntilReady,
  writeFileToPick,
} from '../fixtures/demo-upload-page.ts';
import { heldPatch, holdPatch } from '../fixtures/upload-network.ts';

const SIZE = 2 * CHUNK + 999;
const A = paint(SIZE);
const B = paint(SIZE, 1);
const [ROOT_A, ROOT_B] = oracle([
  { data: A, length: 32 },
  { data: B, length: 32 },
]);

test.describe('demo: picking files', () => {
  test.beforeEach(async ({ demoPage }) => openUploadPage(demoPage));

  test('after a verdict, picking the same file again uploads it again', async ({ demoPage }, info) => {
    const path = writeFileToPick(info, 'a', `demo-again-${info.project.name}.bin`, A);
    await pick(demoPage, path);
    expect((await waitForVerdict(demoPage)).verdict).toBe(`Verified: ${ROOT_A}`);
    await pick(demoPage, path);
    // A new upload clears the verdict at once; the old page kept it, having seen no `change`.
    const cleared = await demoPage
      .waitForFunction(() => document.getElementById('verdict')?.textContent === '', { timeout: 10_000 })
      .then(
        () => true,
        () => false,
      );
    expect(cleared, 'picking the same file again started a new upload').toBe(true);
    const again = await waitForVerdict(demoPage);
    expect(again.verdict, again.status).toBe(`Verified: ${ROOT_A}`);
  });

  test('after a reload mid-upload, the form starts empty and picking the same file resumes', async ({
    demoPage,
  }, info) => {
    const path = writeFileToPick(info, 'a', `demo-reload-${info.project.name}.bin`, A);
    await holdPatch(demoPage, 1);
    await pick(demoPage, path);
    await heldPatch(demoPage);
    await demoPage.reload();
    await waitUntilReady(demoPage);
    const form = await demoPage.evaluate(() => ({
      files: (document.getElementById('upload-file') as HTMLInputElement).files?.length ?? 0,
      pause: (document.getElementById('pause') as HTMLButtonElement).disabled,
      resume: (document.getElementById('resume') as HTMLButtonElement).disabled,
    }));
    expect(form, 'no file kept, Pause and Resume off').toEqual({ files: 0, pause: true, resume: true });
    await pick(demoPage, path);
    const done = await waitForVerdict(demoPage);
    expect(done.verdict, done.status).toBe(`Verified: ${ROOT_A}`);
  });

  test('a different file with the same name, size and time starts a fresh upload and says so', async ({
    demoPage,
  }, info) => {
    const name = `demo-twin-${info.project.name}.bin`;
    const mtime = 1_700_000_000;
    const a = writeFileToPick(info, 'a', name, A, mtime);
    const b = writeFileToPick(info, 'b', name, B, mtime);
    // A's first PATCH is stored (and its hash state saved); then the page goes away.
    await holdPatch(demoPage, 1);
    await pick(demoPage, a);
    await heldPatch(demoPage);
    await demoPage.reload();
    await waitUntilReady(demoPage);
    await pick(demoPage, b);
    const done = await waitForVerdict(demoPage);
    expect(done.verdict, `${done.status} / ${done.notice}`).toBe(`Verified: ${ROOT_B}`);
    expect(done.notice).toMatch(/fresh upload/i);
    expect((await shown(demoPage)).verdict).not.toContain(ROOT_A);
  });
});
