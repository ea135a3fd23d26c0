// The demo's Download page through its UI, in all three engines, against the demo server's two
// mirrors (servers/download-mirrors.ts, mounted at /demo/dist/mirrors/): with one mirror hostile
// from the start (flipping, too long, 503) or turned hostile mid-download (stalling, gone) the file
// still ends verified (its hash compared with the official implementation's), and the
// map's counts are the server's; a reload mid-download goes on from what the browser stored and
// the mirrors send only the groups that were missing. The specs use the server's 32 MiB asset
// (`?asset=small`); the demo's own is 256 MiB, the same code.
import { readFileSync } from 'node:fs';

import { oracle } from '@blake3-web/testkit';

import { expect, test, type DemoPage } from '../fixtures/demo-page.ts';
import { fixtureUrl } from '../../servers/engine-page.ts';
import { demoAsset } from '../../servers/demo-asset.ts';
import type { MirrorCounts } from '../../servers/download-mirrors.ts';

const PAGE = '/demo/dist/download.html?asset=small';

type MapCounts = {
  groups: number;
  stored: number;
  storedBytes: number;
  mirrors: { requested: number; verified: number; refused: number }[];
};
type Shown = { state: string; text: string; hash: string; counts: MapCounts; resultHidden: boolean; saveHref: string };

async function openPage(page: DemoPage): Promise<void> {
  await page.goto(PAGE);
  await page.waitForFunction(() => document.querySelector('main')?.dataset.ready === 'true', { timeout: 90_000 });
}

/** The page, with nothing stored from an earlier test (WebKit keeps one browser per worker). */
async function openEmpty(page: DemoPage): Promise<void> {
  await openPage(page);
  await page.evaluate(() => {
    localStorage.clear();
    document.querySelectorAll<HTMLButtonElement>('#dl-stored button').forEach((b) => b.click());
  });
  await page.waitForFunction(() => document.getElementById('dl-stored')?.dataset.count === '0', { timeout: 30_000 });
}

function session(page: DemoPage): Promise<string> {
  return page.evaluate(() => document.querySelector('main')!.dataset.session!);
}

/** Sets a mirror's switches as a person does: the select's value, then its change event. */
function setMirror(page: DemoPage, mirror: 'a' | 'b', mode: string, rate: string): Promise<void> {
  return page.evaluate(
    async ({ mirror, mode, rate }) => {
      for (const [id, value] of [
        [`dl-mode-${mirror}`, mode],
        [`dl-rate-${mirror}`, rate],
      ]) {
        const select = document.getElementById(id) as HTMLSelectElement;
        select.value = value;
        select.dispatchEvent(new Event('change'));
      }
      // The switch is a request to the server; it is in place once the page's fieldset says so.
      const fieldset = document.querySelector<HTMLElement>(`fieldset[data-mirror='${mirror}']`)!;
      const deadline = Date.now() + 30_000;
      while (fieldset.dataset.applied !== `${mode} ${rate}`) {
        if (Date.now() > deadline)
          throw new Error(`mirror ${mirror} still ${fieldset.dataset.applied} after 30 s, not ${mode} ${rate}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    { mirror, mode, rate },
  );
}

function shown(page: DemoPage): Promise<Shown> {
  return page.evaluate(() => {
    const verdict = document.getElementById('dl-verdict')!;
    return {
      state: verdict.dataset.state ?? '',
      text: verdict.textContent ?? '',
      hash: verdict.dataset.hash ?? '',
      counts: JSON.parse(document.getElementById('dl-counts')!.dataset.counts ?? '{}') as MapCounts,
      resultHidden: document.getElementById('dl-result')!.hidden,
      saveHref: (document.getElementById('dl-save') as HTMLAnchorElement).href,
    };
  });
}

/** Waits for the download's end; WebKitGTK's IndexedDB store (a transaction per group) is slow on a loaded machine. */
async function waitForVerdict(page: DemoPage, timeout = 240_000): Promise<Shown> {
  try {
    await page.waitForFunction(
      () => ['verified', 'failed'].includes(document.getElementById('dl-verdict')?.dataset.state ?? ''),
      { timeout },
    );
  } catch (err) {
    const now = await page.evaluate(() =>
      ['dl-status', 'dl-verdict', 'dl-state-a', 'dl-note-a', 'dl-state-b', 'dl-note-b', 'dl-stored']
        .map((id) => `${id}: ${document.getElementById(id)?.textContent ?? ''}`)
        .join('\n'),
    );
    throw new Error(`no verdict; the page shows\n${now}`, { cause: err });
  }
  return shown(page);
}

async function serverCounts(id: string): Promise<{ a: MirrorCounts; b: MirrorCounts }> {
  const res = await fetch(fixtureUrl(`/demo/dist/mirrors/${id}/counts`));
  return (await res.json()) as { a: MirrorCounts; b: MirrorCounts };
}

let reference: { root: string; size: number } | undefined;
/** The asset's hash by the official implementation, from the server's file. */
async function officialRoot(): Promise<{ root: string; size: number }> {
  if (reference) return reference;
  const asset = await demoAsset('small');
  const [root] = oracle([{ data: readFileSync(asset.contentPath), length: 32 }]);
  expect(root, "the server's root is the official one").toBe(asset.root);
  return (reference = { root: root!, size: asset.size });
}

test.describe('demo: the Download page', () => {
  for (const mode of ['flip', 'wrong-length', 'wrong-status']) {
    test(`mirror A ${mode}: the file ends verified, and the map counts what the server counts`, async ({
      demoPage,
    }) => {
      // WebKitGTK's store is IndexedDB, a transaction per group: minutes on a loaded machine.
      test.setTimeout(300_000);
      const { root } = await officialRoot();
      await openEmpty(demoPage);
      await setMirror(demoPage, 'a', mode, '0');
      await setMirror(demoPage, 'b', 'honest', '0');
      const id = await session(demoPage);
      await demoPage.evaluate(() => (document.getElementById('dl-start') as HTMLButtonElement).click());
      const { state, text, hash, counts, resultHidden, saveHref } = await waitForVerdict(demoPage);
      expect(state, text).toBe('verified');
      expect(hash, 'the stored file, hashed again in the page').toBe(root);
      expect(resultHidden).toBe(false);
      expect(saveHref).toMatch(/^blob:/);

      const server = await serverCounts(id);
      const [a, b] = counts.mirrors;
      expect(counts.stored).toBe(0);
      expect(a!.verified + b!.verified, 'every group verified once').toBe(counts.groups);
      expect(a!.requested, "mirror A's groups asked, as the map and the server count them").toBe(server.a.groupsAsked);
      expect(b!.requested, "mirror B's groups asked").toBe(server.b.groupsAsked);
      // The honest mirror: every group it was asked for verified, none refused.
      expect(b!.verified).toBe(server.b.groupsAsked);
      expect(b!.refused).toBe(0);
      expect(server.b.faults).toBe(0);
      expect(server.a.faults, 'mirror A was hostile').toBeGreaterThan(0);
      // Refused: the rest of each range mirror A failed, all of it asked of A, then of B. (A body
      // too long fails a range only after its every group verified: nothing of it is refused.)
      if (mode !== 'wrong-length') expect(a!.refused).toBeGreaterThan(0);
      expect(a!.refused).toBeLessThanOrEqual(a!.requested - a!.verified);
      if (mode === 'flip') expect(server.a.groupsFlipped, 'the server flipped a group A sent').toBeGreaterThan(0);
      const reason = await demoPage.evaluate(() => document.getElementById('dl-note-a')!.textContent);
      if (mode === 'flip') expect(reason).toMatch(/does not match the root/);
      test.info().annotations.push({
        type: mode,
        description: `mirror A asked for ${server.a.groupsAsked} groups, sent ${server.a.contentBytes} bytes, ${a!.verified} groups verified, ${a!.refused} refused; mirror B ${b!.verified} verified`,
      });
      const mirrorA = await demoPage.evaluate(() => document.getElementById('dl-state-a')!.dataset.state);
      expect(['demoted', 'dropped']).toContain(mirrorA);
    });
  }

  test('a reload mid-download goes on from the stored groups: the mirrors send only the missing ones', async ({
    demoPage,
  }) => {
    test.setTimeout(480_000);
    const { root, size } = await officialRoot();
    await openEmpty(demoPage);
    // 20 Mbit/s a mirror: the 32 MiB take several seconds, time to reload half-way.
    await setMirror(demoPage, 'a', 'honest', '2500000');
    await setMirror(demoPage, 'b', 'honest', '2500000');
    await demoPage.evaluate(() => (document.getElementById('dl-start') as HTMLButtonElement).click());
    await demoPage.waitForFunction(() => (document.getElementById('dl-progress') as HTMLProgressElement).value >= 0.3, {
      timeout: 120_000,
    });
    const before = await shown(demoPage);
    expect(before.state, 'the download was still running').toBe('');

    await demoPage.reload();
    await demoPage.waitForFunction(() => document.querySelector('main')?.dataset.ready === 'true', { timeout: 90_000 });
    const id = await session(demoPage);
    const { state, text, hash, counts } = await waitForVerdict(demoPage);
    expect(state, text).toBe('verified');
    expect(hash).toBe(root);
    const server = await serverCounts(id);
    const sent = server.a.contentBytes + server.b.contentBytes;
    expect(sent, 'the stored groups were not sent again').toBeLessThan(size);
    expect(counts.stored, 'the map shows the groups stored before the reload').toBeGreaterThan(0);
    expect(counts.stored).toBeLessThan(counts.groups);
    const verified = counts.mirrors.reduce((n, m) => n + m.verified, 0);
    expect(counts.stored + verified).toBe(counts.groups);

    expect(server.a.groupsAsked + server.b.groupsAsked, 'only the missing groups were asked for').toBe(
      counts.groups - counts.stored,
    );
    test.info().annotations.push({
      type: 'resume',
      description: `${counts.stored} of ${counts.groups} groups stored before the reload; the mirrors then sent ${sent} bytes of ${size}`,
    });
    expect(sent, 'only the missing bytes were sent').toBe(size - counts.storedBytes);
  });

  for (const [mode, why] of [
    ['stall', /sent nothing for 4000 ms/],
    ['gone', /failed: /],
  ] as const) {
    test(`mirror A switched to ${mode} mid-download: B finishes it, verified, and the page shows A demoted and why`, async ({
      demoPage,
    }) => {
      test.setTimeout(300_000);
      const { root } = await officialRoot();
      await openEmpty(demoPage);
      // 20 Mbit/s a mirror: the 32 MiB take several seconds, time to switch A part-way.
      await setMirror(demoPage, 'a', 'honest', '2500000');
      await setMirror(demoPage, 'b', 'honest', '2500000');
      const id = await session(demoPage);
      await demoPage.evaluate(() => (document.getElementById('dl-start') as HTMLButtonElement).click());
      await demoPage.waitForFunction(
        () => (document.getElementById('dl-progress') as HTMLProgressElement).value >= 0.2,
        { timeout: 120_000 },
      );
      await setMirror(demoPage, 'a', mode, '2500000');
      const { state, text, hash, counts } = await waitForVerdict(demoPage);
      expect(state, text).toBe('verified');
      expect(hash, 'the stored file, hashed again in the page').toBe(root);

      const server = await serverCounts(id);
      const [a, b] = counts.mirrors;
      expect(a!.verified + b!.verified, 'every group verified once').toBe(counts.groups);
      // A closed connection without an answer is sent again by the browser itself (each engine
      // resends an idempotent request once or more), so a gone mirror sees more than the page asked.
      if (mode === 'gone') expect(server.a.groupsAsked).toBeGreaterThanOrEqual(a!.requested);
      else
        expect(a!.requested, "mirror A's groups asked, as the map and the server count them").toBe(
          server.a.groupsAsked,
        );
      expect(b!.requested, "mirror B's groups asked").toBe(server.b.groupsAsked);
      expect(b!.verified).toBe(server.b.groupsAsked);
      expect(server.b.faults).toBe(0);
      expect(server.a.faults, `mirror A ${mode} after the switch`).toBeGreaterThan(0);
      // What A verified before the switch stays; what it then failed was refused and fetched from B.
      expect(a!.verified).toBeGreaterThan(0);
      expect(a!.refused).toBeGreaterThan(0);
      const shownA = await demoPage.evaluate(() => ({
        state: document.getElementById('dl-state-a')!.dataset.state,
        note: document.getElementById('dl-note-a')!.textContent ?? '',
        stateB: document.getElementById('dl-state-b')!.dataset.state,
      }));
      expect(['demoted', 'dropped']).toContain(shownA.state);
      expect(shownA.note).toMatch(why);
      expect(shownA.stateB).toBe('active');
      // Honest again, from here: a stalled answer the browser still holds ends now.
      await fetch(fixtureUrl(`/demo/dist/mirrors/${id}/a/behaviour`), {
        method: 'POST',
        body: JSON.stringify({ mode: 'honest', rate: 0 }),
      });
      test.info().annotations.push({
        type: mode,
        description: `mirror A ${shownA.state} (${shownA.note}); the page asked A for ${a!.requested} groups (the server saw ${server.a.groupsAsked}), ${a!.verified} verified, ${a!.refused} refused; B ${b!.verified} verified`,
      });
    });
  }
});
