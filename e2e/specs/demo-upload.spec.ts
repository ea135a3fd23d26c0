// The demo's Upload page through its UI, in all three engines, against the demo's own tus server
// (the fixture server mounts it at /demo/dist/files/): a file picked in the input uploads, and the
// page shows the server's verdict; with the tamper switch on, the server flips a byte and the
// page shows the refusal. The file is put into the input with a DataTransfer, which every engine
// accepts, so no driver's file chooser is needed.
import { oracle, paint } from '@blake3-web/testkit';

import { expect, test, type DemoPage } from '../fixtures/demo-page.ts';

const SIZE = 3 * 1024 * 1024 + 777;
const [ROOT] = oracle([{ data: paint(SIZE), length: 32 }]);

/** Picks a painted file of `size` bytes named `name`, and resolves to the verdict the page shows. */
function uploadThroughPage(
  page: DemoPage,
  file: { name: string; size: number; tamper: boolean },
): Promise<{ verdict: string; status: string }> {
  return page.evaluate(async ({ name, size, tamper }) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = i % 251;
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], name, { type: 'application/octet-stream', lastModified: Date.now() }));
    (document.getElementById('tamper') as HTMLInputElement).checked = tamper;
    const input = document.getElementById('upload-file') as HTMLInputElement;
    input.files = transfer.files;
    input.dispatchEvent(new Event('change'));
    const verdict = document.getElementById('verdict')!;
    for (let waited = 0; verdict.textContent === '' && waited < 60_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    return { verdict: verdict.textContent ?? '', status: document.getElementById('upload-status')!.textContent ?? '' };
  }, file);
}

test.describe('demo: upload while hashing', () => {
  test.beforeEach(async ({ demoPage }) => {
    await demoPage.goto('/demo/dist/upload.html');
    await demoPage.waitForFunction(() => document.getElementById('upload-status')?.textContent === 'Pick a file.');
  });

  test('an upload ends with the server verdict "Verified" and the root of the file', async ({ demoPage }, info) => {
    const { verdict, status } = await uploadThroughPage(demoPage, {
      name: `demo-${info.project.name}.bin`,
      size: SIZE,
      tamper: false,
    });
    expect(verdict, status).toBe(`Verified: ${ROOT}`);
  });

  test('with the tamper switch on, the server refuses the upload and the page says so', async ({ demoPage }, info) => {
    const { verdict, status } = await uploadThroughPage(demoPage, {
      name: `demo-tamper-${info.project.name}.bin`,
      size: SIZE,
      tamper: true,
    });
    expect(verdict, status).toMatch(
      /^Refused \(460\): BLAKE3 verification failed: the bytes received do not have the root the client sent/,
    );
  });
});
