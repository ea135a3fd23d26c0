// The demo's "Verified download" section through its UI, in all three engines: the service
// worker path (Blake3IntegrityPlugin) and the Bao path (fetchVerified), good and tampered.
import { expect, test, type DemoPage } from '../fixtures/demo-page.ts';

type Outcome = {
  state: string;
  text: string;
  released: string | null;
  size: number;
  /** The bar and its words at the end. */
  meter: { value: number; text: string };
  /** The file offered to save: its name and length, or null when none is offered. */
  saved: { name: string; length: number } | null;
};

function download(page: DemoPage, method: 'plugin' | 'bao', tamper: boolean): Promise<Outcome> {
  return page.evaluate(
    async ({ method, tamper }) => {
      const select = document.getElementById('blob') as HTMLSelectElement;
      // The largest blob: several Bao subtrees before and after the flipped byte.
      select.selectedIndex = select.options.length - 1;
      const size = Number(select.options[select.selectedIndex].dataset.size);
      (document.querySelector(`input[name="method"][value="${method}"]`) as HTMLInputElement).click();
      (document.getElementById('tamper') as HTMLInputElement).checked = tamper;
      const status = document.getElementById('download-status')!;
      (document.getElementById('download') as HTMLButtonElement).click();
      while (status.dataset.state === 'busy') await new Promise((r) => setTimeout(r, 20));
      const save = document.getElementById('save') as HTMLAnchorElement;
      const saved = save.hidden
        ? null
        : { name: save.download, length: (await (await fetch(save.href)).arrayBuffer()).byteLength };
      return {
        state: status.dataset.state ?? '',
        text: status.textContent ?? '',
        released: status.dataset.released ?? null,
        size,
        meter: {
          value: (document.getElementById('download-progress') as HTMLProgressElement).value,
          text: document.querySelector('#download-meter .meter-text')!.textContent ?? '',
        },
        saved,
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
    const good = await download(demoPage, 'plugin', false);
    expect(good).toMatchObject({
      state: 'ok',
      text: expect.stringMatching(/^verified: 2\.9 MiB \(3,000,000 bytes\), BLAKE3 [0-9a-f]{64}$/),
      meter: { value: 1, text: expect.stringMatching(/^100% · 2\.9 MiB of 2\.9 MiB · [\d.]+ MB\/s$/) },
    });
    expect(good.saved, 'the verified file is offered to save').toEqual({
      name: expect.stringMatching(/^[0-9a-f]{16}\.bin$/),
      length: good.size,
    });
    expect(await download(demoPage, 'plugin', true)).toMatchObject({
      state: 'error',
      text: expect.stringMatching(/^refused: BLAKE3 mismatch, expected [0-9a-f]{64}, got [0-9a-f]{64}$/),
      saved: null,
    });
  });

  test('as Bao: verified as it streams; tampered, exactly the chunks before the flipped byte are released', async ({
    demoPage,
  }) => {
    const good = await download(demoPage, 'bao', false);
    expect(good).toMatchObject({
      state: 'ok',
      released: String(good.size),
      text: expect.stringMatching(/^verified \(Bao\): 2\.9 MiB \(3,000,000 bytes\), BLAKE3 [0-9a-f]{64}$/),
      meter: { value: 1, text: expect.stringMatching(/^100% · 2\.9 MiB of 2\.9 MiB · [\d.]+ MB\/s$/) },
    });
    expect(good.saved, 'the verified file is offered to save').toMatchObject({ length: good.size });
    const bad = await download(demoPage, 'bao', true);
    // The server flips the content byte at size/2; every whole 1 KiB chunk before it verifies.
    const before = Math.floor(Math.floor(bad.size / 2) / 1024) * 1024;
    expect(bad).toMatchObject({ state: 'error', released: String(before), saved: null });
    expect(bad.text).toMatch(
      new RegExp(
        `^refused \\(Bao\\) after ${before.toLocaleString('en')} bytes were verified and released: IntegrityError: `,
      ),
    );
    await demoPage.screenshot('verified-download-bao-tampered');
  });
});
