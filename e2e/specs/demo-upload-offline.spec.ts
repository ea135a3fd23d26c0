// The demo's Upload page when the browser goes offline mid-upload for 3 s: tus-js-client does not
// retry while `navigator.onLine` is false and gives up; the page must say the upload is waiting
// for the network (never tus's `[object ProgressEvent]` or a raw response), offer Retry, and go
// on by itself once the browser is back online. Offline is the context's network emulation in
// Chromium and Firefox; WebKitGTK has none over classic WebDriver, so there the page's
// `navigator.onLine` and `offline`/`online` events are emulated and every request sent while
// down fails as a network error (see fixtures/upload-network.ts). And a server that does not
// answer while the browser is online: once tus's retries are spent, the page says the upload
// stopped and its Retry goes on from what the server holds.
import { oracle, paint } from '@blake3-web/testkit';

import { expect, test } from '../fixtures/demo-page.ts';
import {
  CHUNK,
  FINAL,
  OFFLINE,
  openUploadPage,
  pick,
  shown,
  waitForVerdict,
  writeFileToPick,
} from '../fixtures/demo-upload-page.ts';
import { heldPatch, holdPatch, releasePatch, setUnreachable } from '../fixtures/upload-network.ts';

const SIZE = 2 * CHUNK + 4321;
const [ROOT] = oracle([{ data: paint(SIZE), length: 32 }]);

test.describe('demo: upload offline, then online', () => {
  test.beforeEach(async ({ demoPage }) => openUploadPage(demoPage));

  test('offline for 3 s mid-upload: the page waits, says so plainly, and resumes by itself', async ({
    demoPage,
  }, info) => {
    // The second PATCH (from offset CHUNK) is sent only once the browser is offline.
    await holdPatch(demoPage, 1);
    await pick(demoPage, writeFileToPick(info, 'a', `demo-offline-${info.project.name}.bin`, paint(SIZE)));
    await heldPatch(demoPage);
    await demoPage.setOffline(true);
    await releasePatch(demoPage);
    const offline = await waitForVerdict(demoPage, new RegExp(`${OFFLINE.source}|${FINAL.source}`), 30_000);
    expect(offline.verdict, 'no request dump').not.toMatch(/\[object |response (code|text)|originated from/);
    expect(offline.verdict, offline.status).toMatch(OFFLINE);
    expect(offline.state).toBe('offline');
    const buttons = await demoPage.evaluate(() => ({
      pause: (document.getElementById('pause') as HTMLButtonElement).disabled,
      retry: (document.getElementById('resume') as HTMLButtonElement).disabled,
      retryLabel: document.getElementById('resume')!.textContent,
    }));
    expect(buttons, 'Pause is off, Retry is on').toEqual({ pause: true, retry: false, retryLabel: 'Retry' });
    await new Promise((r) => setTimeout(r, 3000));
    expect((await shown(demoPage)).verdict, 'still waiting for the network').toMatch(OFFLINE);
    await demoPage.setOffline(false);
    const done = await waitForVerdict(demoPage);
    expect(done.verdict, done.status).toBe(`Verified: ${ROOT}`);
  });

  test('the server unreachable while the browser is online: after the retries, Stopped, and Retry goes on', async ({
    demoPage,
  }, info) => {
    await holdPatch(demoPage, 1);
    await pick(demoPage, writeFileToPick(info, 'a', `demo-unreachable-${info.project.name}.bin`, paint(SIZE)));
    await heldPatch(demoPage);
    await setUnreachable(demoPage, true);
    await releasePatch(demoPage);
    // tus-js-client retries after 0, 1, 3 and 5 s (the page's retryDelays) before it gives up.
    const stopped = await waitForVerdict(demoPage, new RegExp(`^Stopped\\b|${FINAL.source}`), 60_000);
    expect(stopped.verdict, 'no request dump').not.toMatch(/\[object |response (code|text)|originated from/);
    expect(stopped.verdict, stopped.status).toMatch(/^Stopped: the server did not answer/);
    await setUnreachable(demoPage, false);
    await demoPage.evaluate(() => {
      const retry = document.getElementById('resume') as HTMLButtonElement;
      if (retry.disabled || retry.textContent !== 'Retry') throw new Error(`no Retry to press: ${retry.outerHTML}`);
      retry.click();
    });
    const done = await waitForVerdict(demoPage);
    expect(done.verdict, done.status).toBe(`Verified: ${ROOT}`);
  });
});
