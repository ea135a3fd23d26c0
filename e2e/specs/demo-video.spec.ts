// The demo's Video page: a WebM clip from the demo's CDN (another origin, servers/media-cdn.ts)
// played through the service worker's verified ranges. It plays; a seek fetches only the bytes
// around the new position (counted by the CDN); and when the CDN flips a byte or serves a stale
// region, exactly the ranges over it are refused, playback stops there with the named error, no
// refused byte reaches the player, and seeking past the region plays again.
import type { DemoPage } from '../fixtures/demo-page.ts';
import { expect, test } from '../fixtures/demo-page.ts';

type Manifest = { size: number; flipAt: number; stale: { start: number; end: number }; controlUrl: string };
type Row = { load: string; asked: string; answered: string; outcome: string; bytes: number; why: string };
type CdnLog = { what: string; range: string | null; bytes: number; tampered?: string }[];

async function openVideo(page: DemoPage): Promise<Manifest> {
  await page.goto('/demo/dist/video.html');
  await page.waitForFunction(
    () => document.body.dataset.ready === 'true' || document.getElementById('video-status')?.dataset.state === 'error',
    { timeout: 30_000 },
  );
  // The clip's metadata, through the worker: the player knows the duration.
  await page.waitForFunction(() => (document.getElementById('video') as HTMLVideoElement).readyState >= 1, {
    timeout: 30_000,
  });
  return page.evaluate(async () => (await fetch('./media.json')).json() as Promise<Manifest>);
}

/** The CDN's view of this page's session: bytes sent and its log (`query` set: a POST to it). */
function cdn(
  page: DemoPage,
  query = '',
): Promise<{ counters: { contentBytes: number; outboardBytes: number }; log: CdnLog }> {
  return page.evaluate(async (query) => {
    const { controlUrl } = (await (await fetch('./media.json')).json()) as { controlUrl: string };
    const res = await fetch(`${controlUrl}?s=${document.body.dataset.session}${query}`, {
      method: query ? 'POST' : 'GET',
    });
    return res.json();
  }, query);
}

/** Seeks (with the page's own button for 'skip') and resolves when the player has the frame there. */
function seekTo(page: DemoPage, to: number | 'skip'): Promise<number> {
  return page.evaluate(async (to) => {
    const video = document.getElementById('video') as HTMLVideoElement;
    const seeked = new Promise((resolve) => video.addEventListener('seeked', resolve, { once: true }));
    if (to === 'skip') (document.getElementById('skip') as HTMLButtonElement).click();
    else video.currentTime = to;
    await Promise.race([seeked, new Promise((r) => setTimeout(r, 30_000))]);
    for (let i = 0; i < 300 && video.readyState < 2; i++) await new Promise((r) => setTimeout(r, 50));
    return video.currentTime;
  }, to);
}

/** Plays until the clock passes `until` seconds (reached), or stops moving for 3 s short of it. */
function playUntil(page: DemoPage, until: number): Promise<{ reached: boolean; at: number }> {
  return page.evaluate(async (until) => {
    const video = document.getElementById('video') as HTMLVideoElement;
    // Not awaited: a player waiting for data that was refused may never start.
    void video.play().catch(() => {});
    let last = video.currentTime;
    let still = 0;
    while (video.currentTime < until && still < 3000) {
      await new Promise((r) => setTimeout(r, 100));
      still = video.currentTime === last ? still + 100 : 0;
      last = video.currentTime;
    }
    video.pause();
    return { reached: video.currentTime >= until, at: video.currentTime };
  }, until);
}

function rows(page: DemoPage): Promise<Row[]> {
  return page.evaluate(() =>
    Array.from((document.getElementById('ranges') as HTMLTableElement).tBodies[0]!.rows, (r) => ({
      load: r.dataset.load ?? '',
      asked: r.cells[1]!.textContent ?? '',
      answered: r.cells[2]!.textContent ?? '',
      outcome: r.cells[3]!.textContent ?? '',
      bytes: Number((r.cells[4]!.textContent ?? '').replace(/,/g, '')),
      why: r.cells[5]!.textContent ?? '',
    })),
  );
}

/** The content bytes [from, to) a row handed to the player. */
function delivered(row: Row): [number, number] {
  const first = Number(/^bytes (\d+)-/.exec(row.answered)?.[1] ?? -1);
  return [first, first + row.bytes];
}

function status(page: DemoPage): Promise<{ state: string; text: string; from: number; to: number }> {
  return page.evaluate(() => {
    const s = document.getElementById('video-status')!;
    return {
      state: s.dataset.state ?? '',
      text: s.textContent ?? '',
      from: Number(s.dataset.refusedFrom ?? -1),
      to: Number(s.dataset.refusedTo ?? -1),
    };
  });
}

test.describe('demo: a video from a hostile CDN', () => {
  // WebKitGTK says it plays WebM (VP8, Opus), but here its player's first request reaches the
  // service worker without a Range header and the worker's fetch of the clip fails ("Load
  // failed"), so it never has metadata: not yet understood, see docs/media.md.
  test.skip(({ engine }) => engine === 'webkit', 'WebKitGTK: the worker cannot fetch the clip for its player yet');
  test('plays, and a seek fetches only the bytes around the new position', async ({ demoPage }, testInfo) => {
    const media = await openVideo(demoPage);
    const seeks: Record<string, number> = {};
    for (const to of [45, 20, 8]) {
      // Counted from a quiet start: the player's reading after the previous load or seek has ended.
      for (let last = -1, i = 0; i < 20; i++) {
        const now = (await cdn(demoPage)).counters.contentBytes;
        if (now === last) break;
        last = now;
        await new Promise((r) => setTimeout(r, 1000));
      }
      await cdn(demoPage, '&reset');
      // Counted when the player has the frame at the new position: what the seek needed, before
      // the player reads ahead (Firefox reads on while paused, up to a minute of the clip).
      const { at, bytes } = await demoPage.evaluate(async (to) => {
        const video = document.getElementById('video') as HTMLVideoElement;
        const { controlUrl } = (await (await fetch('./media.json')).json()) as { controlUrl: string };
        const seeked = new Promise((resolve) => video.addEventListener('seeked', resolve, { once: true }));
        video.currentTime = to;
        await seeked;
        const state = await (await fetch(`${controlUrl}?s=${document.body.dataset.session}`)).json();
        return { at: video.currentTime, bytes: state.counters.contentBytes as number };
      }, to);
      expect(at).toBeCloseTo(to, 0);
      seeks[`${to} s`] = bytes;
    }
    testInfo.annotations.push({
      type: 'content bytes the CDN sent per seek (paused)',
      description: `${JSON.stringify(seeks)} of ${media.size}`,
    });
    // The worker's answers are 256 KiB each (its maxRangeBytes), each with the final chunk that
    // proves the length: a seek takes one or two of them, far below the 3.6 MB clip.
    for (const bytes of Object.values(seeks)) expect(bytes).toBeLessThan(media.size / 4);

    const played = await playUntil(demoPage, 10.5);
    expect(played.reached).toBe(true);
    const all = await rows(demoPage);
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((r) => r.outcome === 'refused' || r.outcome === 'failed')).toEqual([]);
    expect(await status(demoPage)).toMatchObject({ state: 'ok' });
    await demoPage.screenshot('video-playing');
  });

  for (const mode of ['flip', 'stale'] as const) {
    test(`the CDN ${mode === 'flip' ? 'flips a byte' : 'serves a stale region'}: playback stops there with the reason, only that region is refused, and seeking past it plays`, async ({
      demoPage,
    }) => {
      const media = await openVideo(demoPage);
      const [badFrom, badTo] =
        mode === 'flip' ? [media.flipAt, media.flipAt + 1] : [media.stale.start, media.stale.end];
      await demoPage.evaluate((mode) => {
        (document.querySelector(`input[name="tamper"][value="${mode}"]`) as HTMLInputElement).click();
      }, mode);
      // The page reloads the player on a change of mode; wait for the new load's metadata.
      await demoPage.waitForFunction(
        () => /load=1(#|$)/.test((document.getElementById('video') as HTMLVideoElement).src),
        {
          timeout: 10_000,
        },
      );
      await demoPage.waitForFunction(() => (document.getElementById('video') as HTMLVideoElement).readyState >= 1, {
        timeout: 30_000,
      });
      const duration = await demoPage.evaluate(() => (document.getElementById('video') as HTMLVideoElement).duration);
      const badTime = (badFrom / media.size) * duration;
      // From a few seconds before the region, through it.
      await seekTo(demoPage, Math.max(0, Math.floor(badTime - 4)));
      const played = await playUntil(demoPage, badTime + 3);
      expect(played.reached, `playback went on past the ${mode} region at ${badTime.toFixed(1)} s`).toBe(false);
      // It stopped at the region: after the seek, and no later than the region's second.
      expect(played.at).toBeGreaterThan(badTime - 12);
      expect(played.at).toBeLessThan(badTime + 1);

      const shown = await status(demoPage);
      expect(shown.state).toBe('error');
      expect(shown.text).toMatch(/IntegrityError: Bao mismatch at the chunk of content bytes \d+\.\.\d+/);
      // The chunk named is one the CDN changed.
      expect(shown.from).toBeLessThan(badTo);
      expect(shown.to).toBeGreaterThan(badFrom);

      const { log, counters } = await cdn(demoPage);
      // The player asked for the refused ranges again and again; the outboard, proven whole when
      // it came, was kept: one outboard's worth per load of the player (before and after the switch).
      const outboardSize = 8 + 64 * (Math.ceil(media.size / 1024) - 1);
      expect(counters.outboardBytes).toBeLessThanOrEqual(2 * outboardSize);
      // The first load's requests were answered honestly (Firefox may have read ahead into the region).
      const seen = (await rows(demoPage)).filter((r) => r.load !== '0');
      // Every range the worker refused was refused for a chunk; nothing it handed over covers changed bytes.
      const refused = seen.filter((r) => r.outcome === 'refused');
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect(r.why).toMatch(/^IntegrityError: Bao mismatch at the chunk of content bytes/);
      for (const r of seen) {
        const [from, to] = delivered(r);
        expect(from < badTo && badFrom < to, `${r.asked} handed bytes ${from}-${to} over the ${mode} region`).toBe(
          false,
        );
      }
      expect(log.some((e) => e.tampered === mode)).toBe(true);

      // Past the region, it plays again.
      const at = await seekTo(demoPage, 'skip');
      expect(at).toBeGreaterThan(badTime);
      const again = await playUntil(demoPage, at + 1.5);
      expect(again.reached, `no playback after the skip to ${at.toFixed(1)} s`).toBe(true);
      await demoPage.screenshot(`video-${mode}`);
    });
  }
});
