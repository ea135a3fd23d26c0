// The demo's "Hash files" section in all three engines: files made in the page are hashed on the
// worker pool and the digest shown must be blake3() of the same bytes computed here; cancelling
// shows "cancelled" and leaves the pool working.
import { blake3, bytesToHex, type Blake3Opts } from '@blake3-web/core';

import { expect, test, type DemoPage } from '../fixtures/demo-page.ts';

/** The bytes both sides make: a multiply-with-carry pattern, no two nearby blocks equal. */
function fileBytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let s = seed >>> 0;
  for (let i = 0; i < size; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = s >>> 16;
  }
  return out;
}

type HashRequest = {
  size: number;
  seed: number;
  mode: string;
  key: string;
  context: string;
  dkLen: string;
  cancel: boolean;
};
type HashOutcome = {
  state: string;
  digest: string;
  stats: string;
  progress: number;
  /** The row's controls at the end, by class: what a settled row still offers. */
  controls: string[];
};

/** Sets the options, hands the file input a File made in the page and waits for its row to settle. */
async function hashInPage(page: DemoPage, req: HashRequest): Promise<HashOutcome> {
  return page.evaluate(async (r) => {
    const bytes = new Uint8Array(r.size);
    let s = r.seed >>> 0;
    for (let i = 0; i < r.size; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      bytes[i] = s >>> 16;
    }
    const set = (id: string, value: string) => {
      const el = document.getElementById(id) as HTMLInputElement | HTMLSelectElement;
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    };
    set('mode', r.mode);
    set('key', r.key);
    set('context', r.context);
    set('dklen', r.dkLen);
    const input = document.getElementById('file') as HTMLInputElement;
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], `test-${r.seed}.bin`, { type: 'application/octet-stream' }));
    input.files = dt.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
    // The newest row is first; its hashing has started by now.
    const row = document.querySelector('#results > li') as HTMLLIElement;
    if (r.cancel) (row.querySelector('button.cancel') as HTMLButtonElement).click();
    while (row.dataset.state === 'queued' || row.dataset.state === 'hashing')
      await new Promise((res) => setTimeout(res, 20));
    return {
      state: row.dataset.state ?? '',
      digest: (row.querySelector('output.digest') as HTMLOutputElement | null)?.value ?? '',
      stats: row.querySelector('.stats')!.textContent ?? '',
      progress: (row.querySelector('progress') as HTMLProgressElement).value,
      controls: Array.from(row.querySelectorAll('button, input'), (c) => c.className),
    };
  }, req);
}

const plain = { mode: 'hash', key: '', context: '', dkLen: '32', cancel: false };

test.describe('demo: hash files', () => {
  test.use({ demoViewport: { width: 390, height: 844 } });

  test.beforeEach(async ({ demoPage }) => {
    await demoPage.goto('/demo/dist/index.html');
    await demoPage.waitForFunction(() => document.getElementById('backend')?.textContent !== '');
  });

  test('a multi-MB file: the digest shown is blake3() of its bytes, and "verify against" says match or mismatch', async ({
    demoPage,
  }) => {
    const size = 5 * 1024 * 1024 + 12_345;
    const got = await hashInPage(demoPage, { ...plain, size, seed: 7 });
    const want = bytesToHex(blake3(fileBytes(size, 7)));
    expect(got.state).toBe('done');
    expect(got.digest).toBe(want);
    expect(got.progress).toBe(1);
    expect(got.stats).toMatch(/^done: 5\.0 MiB in [\d.]+ m?s · [\d.]+ MB\/s$/);
    expect(got.controls, 'a finished row offers Copy and "verify against", no Cancel').toEqual(['copy', 'mono verify']);
    const verdicts = await demoPage.evaluate(async (hex) => {
      const row = document.querySelector('#results > li')!;
      const input = row.querySelector('input.verify') as HTMLInputElement;
      const verdict = row.querySelector('.verdict') as HTMLElement;
      const out: string[] = [];
      for (const v of [hex.toUpperCase(), hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0')]) {
        input.value = v;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        out.push(`${verdict.dataset.verdict}: ${verdict.textContent}`);
      }
      input.value = hex;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      return out;
    }, want);
    expect(verdicts).toEqual(['match: ✓ match', 'mismatch: ✗ mismatch: the pasted digest differs']);
    await demoPage.screenshot('hash-files');
  });

  test('keyed and derive_key modes with other output lengths give blake3() with those options', async ({
    demoPage,
  }) => {
    const size = 3 * 1024 * 1024 + 1;
    const key = Array.from({ length: 32 }, (_, i) => (i * 7 + 1).toString(16).padStart(2, '0')).join('');
    const cases: { req: Partial<HashRequest>; opts: Blake3Opts }[] = [
      {
        req: { mode: 'keyed', key, dkLen: '64' },
        opts: { key: Uint8Array.from(key.match(/../g)!, (h) => parseInt(h, 16)), dkLen: 64 },
      },
      {
        req: { mode: 'derive', context: 'blake3-web demo 2026 test context', dkLen: '17' },
        opts: { context: 'blake3-web demo 2026 test context', dkLen: 17 },
      },
    ];
    for (const [i, c] of cases.entries()) {
      const got = await hashInPage(demoPage, { ...plain, ...c.req, size, seed: 100 + i });
      expect(got.state).toBe('done');
      expect(got.digest).toBe(bytesToHex(blake3(fileBytes(size, 100 + i), c.opts)));
    }
  });

  test('cancel shows cancelled, and the pool hashes the next file correctly', async ({ demoPage }) => {
    const cancelled = await hashInPage(demoPage, { ...plain, size: 64 * 1024 * 1024, seed: 3, cancel: true });
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.stats).toMatch(/^cancelled/);
    expect(cancelled.digest).toBe('');
    expect(cancelled.controls, 'a cancelled row offers nothing more to do').toEqual([]);
    const size = 2 * 1024 * 1024 + 999;
    const next = await hashInPage(demoPage, { ...plain, size, seed: 4 });
    expect(next.state).toBe('done');
    expect(next.digest).toBe(bytesToHex(blake3(fileBytes(size, 4))));
    await demoPage.screenshot('hash-files-cancelled');
  });
});
