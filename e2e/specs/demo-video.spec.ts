// The demo's Video page: a WebM clip from the demo's CDN (another origin, servers/media-cdn.ts)
// played through the service worker's verified ranges. It plays; a seek fetches only the bytes
// around the new position (counted by the CDN); and when the CDN flips a byte or serves a stale
// region, exactly the ranges over it are refused, playback stops there with the named error, no
// refused byte reaches the player, and seeking past the region plays again.
import { MEDIA_PIECE_BYTES } from '../../demo/src/media-pieces.ts';
import type { DemoPage } from '../fixtures/demo-page.ts';
import { expect, test } from '../fixtures/demo-page.ts';

type Manifest = {
  url: string;
  size: number;
  flipAt: number;
  stale: { start: number; end: number };
  controlUrl: string;
};
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

/**
 * Plays until the clock passes `until` seconds (reached), or stops moving for 3 s short of it.
 * A player just loaded afresh may take longer than that to start on a busy machine: until it
 * has moved once, it has 15 s.
 */
function playUntil(page: DemoPage, until: number): Promise<{ reached: boolean; at: number }> {
  return page.evaluate(async (until) => {
    const video = document.getElementById('video') as HTMLVideoElement;
    // Not awaited: a player waiting for data that was refused may never start.
    void video.play().catch(() => {});
    let last = video.currentTime;
    let still = 0;
    let moved = false;
    while (video.currentTime < until && still < (moved ? 3000 : 15_000)) {
      await new Promise((r) => setTimeout(r, 100));
      moved ||= video.currentTime !== last;
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

/**
 * WebKitGTK plays the clip through the worker (since the worker's request to the CDN stopped
 * carrying the player's Icy-MetaData): it gets metadata, seeks, and stops at a tampered region
 * with the reason. But here its playback after a seek or a fresh load of the player sometimes
 * stalls for good (no 'seeked', or a clock that stays put), so the tests that play skip it:
 * docs/media.md.
 */
const WEBKIT_PLAYBACK = 'WebKitGTK: playback after a seek or a reload of the player stalls at times';

test.describe('demo: a video from a hostile CDN', () => {
  test('plays, and seeks', async ({ demoPage, engine }) => {
    test.skip(engine === 'webkit', WEBKIT_PLAYBACK);
    await openVideo(demoPage);
    for (const to of [45, 20, 8]) expect(await seekTo(demoPage, to)).toBeCloseTo(to, 0);
    const played = await playUntil(demoPage, 10.5);
    expect(played.reached).toBe(true);
    const all = await rows(demoPage);
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((r) => r.outcome === 'refused' || r.outcome === 'failed')).toEqual([]);
    expect(await status(demoPage)).toMatchObject({ state: 'ok' });
    await demoPage.screenshot('video-playing');
  });

  test('a seek far from anything buffered fetches only the bytes around the new position', async ({
    demoPage,
    engine,
  }, testInfo) => {
    test.skip(engine === 'webkit', WEBKIT_PLAYBACK);
    const media = await openVideo(demoPage);
    // A slow CDN (about 8 times the clip's bit rate) and a fresh load: the player's read-ahead
    // cannot have reached the seek targets, which Firefox's does on this short clip when the
    // CDN is fast (it reads a paused clip up to a minute ahead).
    await cdn(demoPage, '&rate=500000');
    const seeks = await demoPage.evaluate(async () => {
      const video = document.getElementById('video') as HTMLVideoElement;
      const { controlUrl, url } = (await (await fetch('./media.json')).json()) as { controlUrl: string; url: string };
      const control = `${controlUrl}?s=${document.body.dataset.session}`;
      const sent = async () => (await (await fetch(control)).json()).counters.contentBytes as number;
      const loaded = new Promise((resolve) => video.addEventListener('loadedmetadata', resolve, { once: true }));
      video.src = `${url}?s=${document.body.dataset.session}&load=slow`;
      await loaded;
      const out: { to: number; at: number; bytes: number; buffered: string }[] = [];
      // Far from each other and from the start, each taken only if nothing around it is buffered.
      for (const to of [45, 25, 10, 35, 55]) {
        if (out.length === 3) break;
        const near = Array.from({ length: video.buffered.length }, (_, i) => [
          video.buffered.start(i),
          video.buffered.end(i),
        ]);
        if (near.some(([a, b]) => a! <= to + 2 && to - 2 <= b!)) continue;
        await fetch(`${control}&reset`, { method: 'POST' });
        const seeked = new Promise((resolve) => video.addEventListener('seeked', resolve, { once: true }));
        video.currentTime = to;
        await seeked;
        out.push({ to, at: video.currentTime, bytes: await sent(), buffered: JSON.stringify(near) });
      }
      return out;
    });
    await cdn(demoPage, '&rate=0');
    testInfo.annotations.push({
      type: 'content bytes the CDN sent from a seek to its seeked event',
      description: `${seeks.map((s) => `${s.to} s: ${s.bytes}`).join(', ')} (of ${media.size})`,
    });
    expect(seeks.length, `three seek targets away from the buffered ranges ${seeks.at(-1)?.buffered}`).toBe(3);
    // The worker answers a seek's bytes=N- in full, but asks the CDN for it a piece at a time as
    // the player reads. A piece starts on a 16 KiB group, the unit the outboard proves.
    const piece = MEDIA_PIECE_BYTES + 16 * 1024;
    for (const { to, at, bytes } of seeks) {
      expect(at).toBeCloseTo(to, 0);
      // Never the rest of the file.
      const rest = media.size * (1 - to / 60);
      expect(bytes, `the seek to ${to} s`).toBeLessThan(rest);
      // The frame is there after one or two pieces and the final chunk that proves the length (a
      // chunk and a byte); a third may be the previous position's read-ahead, still in flight
      // when the counter was reset.
      expect(bytes, `the seek to ${to} s`).toBeLessThanOrEqual(3 * piece + 1025);
    }
    // Three seeks together: well under half the file.
    expect(seeks.reduce((sum, s) => sum + s.bytes, 0)).toBeLessThan(media.size / 2);
  });

  test("the worker serves a page's range requests verified, and refuses a tampered range", async ({ demoPage }) => {
    const media = await openVideo(demoPage);
    await cdn(demoPage, '&mode=flip');
    const got = await demoPage.evaluate(async ({ url, flipAt }) => {
      const clip = `${url}?s=${document.body.dataset.session}&load=fetch`;
      const ask = async (from: number, to: number) => {
        try {
          const res = await fetch(clip, { headers: { range: `bytes=${from}-${to}` } });
          const body = new Uint8Array(await res.arrayBuffer());
          return {
            status: res.status,
            range: res.headers.get('content-range'),
            length: body.length,
            head: Array.from(body.subarray(0, 4)),
          };
        } catch (e) {
          return { failed: String(e) };
        }
      };
      return {
        start: await ask(0, 99),
        far: await ask(flipAt - 200_000, flipAt - 100_000),
        bad: await ask(flipAt - 10, flipAt + 10),
      };
    }, media);
    await cdn(demoPage, '&mode=none');
    // WebM's EBML magic, verified, from the worker.
    expect(got.start).toEqual({
      status: 206,
      range: `bytes 0-99/${media.size}`,
      length: 100,
      head: [0x1a, 0x45, 0xdf, 0xa3],
    });
    expect(got.far).toMatchObject({ status: 206, length: 100_001 });
    // The range over the flipped byte is a network error, never bytes.
    expect(got.bad).toHaveProperty('failed');
    // Once, or as often as the engine tries again (Firefox does), each naming a changed chunk.
    const refused = (await rows(demoPage)).filter((r) => r.outcome === 'refused');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      const [, from, to] = /content bytes (\d+)\.\.(\d+)/.exec(r.why) ?? [];
      expect(Number(from)).toBeLessThanOrEqual(media.flipAt);
      expect(Number(to)).toBeGreaterThan(media.flipAt);
    }
  });

  for (const mode of ['flip', 'stale'] as const) {
    test(`the CDN ${mode === 'flip' ? 'flips a byte' : 'serves a stale region'}: playback stops there with the reason, only that region is refused, and seeking past it plays`, async ({
      demoPage,
      engine,
    }) => {
      test.skip(engine === 'webkit', WEBKIT_PLAYBACK);
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
