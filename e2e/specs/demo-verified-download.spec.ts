// The demo's "Verified download" section through its UI, in all three engines: the service
// worker path (Blake3IntegrityPlugin) and the Bao path (fetchVerified), good and tampered.
import { expect, test, type DemoPage } from '../fixtures/demo-page.ts';

type Outcome = { state: string; text: string; released: string | null; size: number };

function download(page: DemoPage, method: 'plugin' | 'bao', tamper: boolean): Promise<Outcome> {
  return page.evaluate(
    async ({ method, tamper }) => {
      const select = document.getElementById('blob') as HTMLSelectElement;
      // The largest blob: several Bao subtrees before and after the flipped byte.
      select.selectedIndex = select.options.length - 1;
      const size = Number(/^([\d,]+) bytes/.exec(select.options[select.selectedIndex].text)![1].replace(/,/g, ''));
      (document.querySelector(`input[name="method"][value="${method}"]`) as HTMLInputElement).click();
      (document.getElementById('tamper') as HTMLInputElement).checked = tamper;
      const status = document.getElementById('download-status')!;
      (document.getElementById('download') as HTMLButtonElement).click();
      while (status.dataset.state === 'busy') await new Promise((r) => setTimeout(r, 20));
      return {
        state: status.dataset.state ?? '',
        text: status.textContent ?? '',
        released: status.dataset.released ?? null,
        size,
      };
    },
    { method, tamper },
  );
}

test.describe('demo: verified download', () => {
  test.beforeEach(async ({ demoPage }) => {
    await demoPage.goto('/demo/dist/index.html');
    await demoPage.waitForFunction(
      () => {
        const button = document.getElementById('download') as HTMLButtonElement | null;
        return (button && !button.disabled) || document.getElementById('download-status')?.dataset.state === 'error';
      },
      { timeout: 30_000 },
    );
  });

  test('through the service worker: verified, and refused with the mismatch when tampered', async ({ demoPage }) => {
    expect(await download(demoPage, 'plugin', false)).toMatchObject({
      state: 'ok',
      text: expect.stringMatching(/^verified: 3000000 bytes, BLAKE3 [0-9a-f]{64}$/),
    });
    expect(await download(demoPage, 'plugin', true)).toMatchObject({
      state: 'error',
      text: expect.stringMatching(/^refused: BLAKE3 mismatch, expected [0-9a-f]{64}, got [0-9a-f]{64}$/),
    });
  });

  test('as Bao: verified as it streams; tampered, exactly the chunks before the flipped byte are released', async ({
    demoPage,
  }) => {
    const good = await download(demoPage, 'bao', false);
    expect(good).toMatchObject({
      state: 'ok',
      released: String(good.size),
      text: expect.stringMatching(/^verified \(Bao\): 3000000 bytes, BLAKE3 [0-9a-f]{64}$/),
    });
    const bad = await download(demoPage, 'bao', true);
    // The server flips the content byte at size/2; every whole 1 KiB chunk before it verifies.
    const before = Math.floor(Math.floor(bad.size / 2) / 1024) * 1024;
    expect(bad).toMatchObject({ state: 'error', released: String(before) });
    expect(bad.text).toMatch(
      new RegExp(`^refused \\(Bao\\) after ${before} verified bytes were released: IntegrityError: `),
    );
    await demoPage.screenshot('verified-download-bao-tampered');
  });
});
