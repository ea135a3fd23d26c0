// The "Download" page: a large file from the demo server's two mirrors through `download()`,
// every 16 KiB group drawn as it is asked for, verified or refused; the mirrors' switches make
// either hostile mid-download. A reload goes on from the groups this browser stored.
import { browserStore, download, DownloadError, type DownloadProgress, type GroupEvent } from '@blake3-web/download';
import { bytesToHex } from '@blake3-web/core';

import { formatBytes } from './format.ts';
import { bindMeter, type Tone } from './meter.ts';
import { GroupMap, type MapCounts } from './group-map.ts';
import {
  assetInfo,
  DEFAULT_RATE,
  MIRRORS,
  mirrorUrl,
  MODES,
  newSession,
  RATES,
  setBehaviour,
  type AssetInfo,
  type Mirror,
} from './mirror-controls.ts';
import { pagePool } from './pool.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const main = document.querySelector('main')!;
const assetText = $<HTMLElement>('dl-asset');
const startButton = $<HTMLButtonElement>('dl-start');
const pauseButton = $<HTMLButtonElement>('dl-pause');
const meter = bindMeter($('dl-meter'));
const status = $<HTMLElement>('dl-status');
const canvas = $<HTMLCanvasElement>('dl-map');
const countsTable = $<HTMLTableElement>('dl-counts');
const totals = $<HTMLElement>('dl-totals');
const verdict = $<HTMLElement>('dl-verdict');
const result = $<HTMLElement>('dl-result');
const openLink = $<HTMLAnchorElement>('dl-open');
const saveLink = $<HTMLAnchorElement>('dl-save');
const storedList = $<HTMLUListElement>('dl-stored');

/** Which asset: the demo's 256 MiB one, or another the server offers (`?asset=small`). */
const ASSET = new URLSearchParams(location.search).get('asset') ?? 'large';
/** Set while a download runs, so a reload goes on with it. */
const RUNNING_KEY = 'blake3-web-demo-download:running';
/** Shorter than the library's default, so a stalling mirror is seen to be demoted while one watches. */
const STALL_TIMEOUT_MS = 4000;
/** The window throughput per mirror is measured over. */
const RATE_WINDOW_MS = 2000;

const session = newSession();
main.dataset.session = session;
const store = browserStore();

/** A download in progress; `base`: the bytes stored before it, kept out of its speed. */
type Running = { controller: AbortController; started: number; base: number | undefined };
let asset: AssetInfo | undefined;
let map: GroupMap | undefined;
let running: Running | undefined;
let resultUrl: string | undefined;
let leaving = false;
addEventListener('pagehide', () => (leaving = true));
addEventListener('pageshow', () => (leaving = false));
const urls = MIRRORS.map((m) => mirrorUrl(session, m, ASSET));
const mirrorState: { state: string; faults: number; reason: string; arrivals: [number, number][] }[] = MIRRORS.map(
  () => ({ state: 'active', faults: 0, reason: '', arrivals: [] }),
);

/** The mirror a source URL names (the library reports sources by URL). */
function mirrorOf(source: string | undefined): number | undefined {
  if (source === undefined) return undefined;
  const i = urls.indexOf(source);
  return i >= 0 ? i : undefined;
}

type Verdict = '' | 'verified' | 'failed' | 'paused';
const VERDICT_TONES: Record<Exclude<Verdict, ''>, Tone> = { verified: 'ok', failed: 'bad', paused: 'warn' };

/** The verdict box: `data-state` says what happened, its tone how it looks. */
function showVerdict(state: Verdict, text: string): void {
  verdict.dataset.state = state;
  if (state) verdict.dataset.tone = VERDICT_TONES[state];
  else delete verdict.dataset.tone;
  verdict.textContent = text;
  meter.settle(state === 'verified' ? 'ok' : state === 'failed' ? 'bad' : undefined);
}

const STATE_TONES: Record<string, Tone> = { active: 'ok', demoted: 'warn', dropped: 'bad' };

let countsTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleCounts(): void {
  countsTimer ??= setTimeout(showCounts, 100);
}

function showCounts(): void {
  clearTimeout(countsTimer);
  countsTimer = undefined;
  if (!map) return;
  const counts: MapCounts = map.counts;
  countsTable.dataset.counts = JSON.stringify(counts);
  const row = (name: string, cells: number[]) =>
    `<tr><th scope="row">${name}</th>${cells.map((c) => `<td>${c.toLocaleString('en')}</td>`).join('')}</tr>`;
  const sum = (k: 'requested' | 'verified' | 'refused') => counts.mirrors.reduce((n, m) => n + m[k], 0);
  // Four columns, so the table fits a phone's width: the file's totals go on the line above it.
  totals.textContent =
    `${counts.groups.toLocaleString('en')} groups of 16 KiB in the file; ` +
    `${counts.stored.toLocaleString('en')} stored before this run.`;
  countsTable.tBodies[0].innerHTML = [
    ...MIRRORS.map((m, i) => {
      const c = counts.mirrors[i];
      return row(`Mirror ${m.toUpperCase()}`, [c.requested, c.verified, c.refused]);
    }),
    row('All', [sum('requested'), sum('verified'), sum('refused')]),
  ].join('');
}

function showMirrors(): void {
  const now = performance.now();
  MIRRORS.forEach((m, i) => {
    const s = mirrorState[i];
    s.arrivals = s.arrivals.filter(([t]) => now - t < RATE_WINDOW_MS);
    const bytes = s.arrivals.reduce((n, [, b]) => n + b, 0);
    const rate = running ? `${((bytes / RATE_WINDOW_MS) * 1e-3).toFixed(1)} MB/s` : '–';
    const badge = $<HTMLElement>(`dl-state-${m}`);
    badge.dataset.state = s.state;
    badge.dataset.tone = STATE_TONES[s.state] ?? 'info';
    badge.textContent = s.state;
    $<HTMLElement>(`dl-note-${m}`).textContent =
      `${rate}, ${s.faults} fault${s.faults === 1 ? '' : 's'}${s.reason ? `; last: ${s.reason}` : ''}`;
  });
}

function onGroups(event: GroupEvent): void {
  if (!map || !asset) return;
  const mirror = mirrorOf(event.source);
  map.apply(event, mirror);
  if (event.kind === 'verified' && mirror !== undefined)
    mirrorState[mirror].arrivals.push([performance.now(), event.count << (10 + asset.chunkGroupLog)]);
  if (event.kind === 'refused' && mirror !== undefined && event.reason) mirrorState[mirror].reason = event.reason;
  scheduleCounts();
}

function onProgress(p: DownloadProgress): void {
  if (running && running.base === undefined) running.base = map?.counts.storedBytes ?? 0;
  meter.update(p.verifiedBytes, p.totalBytes, running ? performance.now() - running.started : undefined, running?.base);
  status.textContent = `Verified ${formatBytes(p.verifiedBytes)} of ${formatBytes(p.totalBytes)}.`;
  p.sources.forEach((s, i) => {
    const m = mirrorState[mirrorOf(s.url) ?? i];
    if (!m) return;
    m.state = s.state;
    m.faults = s.faults;
  });
  showMirrors();
}

async function start(): Promise<void> {
  if (!asset || !map || running) return;
  const controller = new AbortController();
  const self: Running = { controller, started: performance.now(), base: undefined };
  running = self;
  localStorage.setItem(RUNNING_KEY, ASSET);
  // The map and its counts are this run's: what an earlier run of this page verified comes back
  // as stored before, reported by the download itself.
  map.reset();
  for (const s of mirrorState) Object.assign(s, { state: 'active', faults: 0, reason: '', arrivals: [] });
  startButton.disabled = true;
  pauseButton.disabled = false;
  result.hidden = true;
  showVerdict('', '');
  status.textContent = 'Starting…';
  void refreshStored();
  const ticker = setInterval(showMirrors, 500);
  try {
    const blob = await download(urls, {
      root: asset.root,
      chunkGroupLog: asset.chunkGroupLog,
      store,
      signal: controller.signal,
      stallTimeout: STALL_TIMEOUT_MS,
      onProgress,
      onGroups,
    });
    localStorage.removeItem(RUNNING_KEY);
    showCounts();
    status.textContent = `Downloaded ${formatBytes(blob.size)} in ${((performance.now() - self.started) / 1000).toFixed(1)} s; hashing the stored file again…`;
    const again = bytesToHex(await pagePool().hashBlob(blob));
    verdict.dataset.hash = again;
    if (again === asset.root) {
      showVerdict(
        'verified',
        `Verified: every one of the ${map.counts.groups} groups matched the root as it arrived, and the whole stored file hashes to it: ${again}`,
      );
      if (resultUrl) URL.revokeObjectURL(resultUrl);
      resultUrl = URL.createObjectURL(blob);
      openLink.href = saveLink.href = resultUrl;
      saveLink.download = `blake3-web-${ASSET}.bin`;
      result.hidden = false;
    } else showVerdict('failed', `The stored file hashes to ${again}, not to the root ${asset.root}.`);
    status.textContent = `Done: ${formatBytes(blob.size)}.`;
  } catch (err) {
    // A page going away (a reload) ends its requests first: that is no failure, and the download
    // must go on when the page is back.
    if (leaving) return;
    if (controller.signal.aborted) {
      showVerdict('paused', 'Paused: the groups verified so far are stored. Resume goes on from them.');
    } else {
      localStorage.removeItem(RUNNING_KEY);
      if (err instanceof DownloadError)
        for (const f of err.failures) {
          const i = mirrorOf(f.url);
          if (i !== undefined && i >= 0 && f.faults.length > 0) mirrorState[i].reason = f.faults[f.faults.length - 1];
        }
      showVerdict('failed', `Stopped: ${err instanceof Error ? err.message : String(err)}`);
    }
  } finally {
    clearInterval(ticker);
    running = undefined;
    map.settle();
    showCounts();
    showMirrors();
    startButton.disabled = false;
    // A complete download goes again from the store alone, without a request.
    startButton.textContent = verdict.dataset.state === 'verified' ? 'Again, from the store' : 'Resume';
    pauseButton.disabled = true;
    void refreshStored();
  }
}

function pause(): void {
  if (!running) return;
  localStorage.removeItem(RUNNING_KEY);
  running.controller.abort(new DOMException('Paused', 'AbortError'));
}

async function refreshStored(): Promise<void> {
  const list = await store.list();
  storedList.replaceChildren(
    ...list.map((d) => {
      const li = document.createElement('li');
      li.dataset.root = d.root;
      const what = d.root === asset?.root ? `this page's file (${ASSET})` : 'another file';
      const text = document.createElement('span');
      text.className = 'mono';
      text.textContent = `${d.root.slice(0, 16)}… ${what}: ${formatBytes(d.recordedBytes)} of ${formatBytes(d.size)}${d.complete ? ', complete' : ''}`;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.disabled = running !== undefined && d.root === asset?.root;
      remove.addEventListener('click', () => {
        remove.disabled = true;
        void store.remove(d.root).then(() => {
          if (d.root !== asset?.root) return refreshStored();
          map?.reset();
          showCounts();
          startButton.textContent = 'Start';
          status.textContent = 'Removed: a download starts from nothing.';
          return refreshStored();
        });
      });
      li.append(text, ' ', remove);
      return li;
    }),
  );
  if (list.length === 0) storedList.textContent = 'Nothing stored.';
  storedList.dataset.count = String(list.length);
}

function fillSelect(
  select: HTMLSelectElement,
  options: readonly (readonly [string | number, string])[],
  value: string,
) {
  select.replaceChildren(
    ...options.map(([v, label]) => {
      const o = document.createElement('option');
      o.value = String(v);
      o.textContent = label;
      return o;
    }),
  );
  select.value = value;
}

/** Each mirror's switches in flight: one request at a time, so the last one made is the one that holds. */
const switching = new Map<Mirror, Promise<void>>();

function applySwitches(mirror: Mirror): Promise<void> {
  // Two quick changes (a mode, then a rate) sent side by side could reach the server in either
  // order and leave it on the first; chained, each request goes after the one before it answered.
  const next = (switching.get(mirror) ?? Promise.resolve())
    .catch(() => {})
    .then(async () => {
      const mode = $<HTMLSelectElement>(`dl-mode-${mirror}`).value;
      const rate = Number($<HTMLSelectElement>(`dl-rate-${mirror}`).value);
      const fieldset = document.querySelector<HTMLElement>(`fieldset[data-mirror='${mirror}']`)!;
      fieldset.dataset.mode = mode;
      await setBehaviour(session, mirror, mode, rate);
      // What the server now does, once it said so (the specs wait for it).
      fieldset.dataset.applied = `${mode} ${rate}`;
    });
  switching.set(mirror, next);
  return next;
}

async function init(): Promise<void> {
  for (const m of MIRRORS) {
    const mode = $<HTMLSelectElement>(`dl-mode-${m}`);
    const rate = $<HTMLSelectElement>(`dl-rate-${m}`);
    fillSelect(mode, MODES, 'honest');
    fillSelect(rate, RATES, String(DEFAULT_RATE));
    const apply = () => void applySwitches(m).catch((e: unknown) => showVerdict('failed', String(e)));
    mode.addEventListener('change', apply);
    rate.addEventListener('change', apply);
  }
  status.textContent = 'Asking the server for the file (it makes it on first use, which takes a few seconds)…';
  asset = await assetInfo(ASSET);
  await Promise.all(MIRRORS.map(applySwitches));
  map = new GroupMap(canvas, asset.size, 1024 << asset.chunkGroupLog, MIRRORS.length);
  assetText.textContent = `${ASSET}: ${formatBytes(asset.size)}, ${map.counts.groups} groups of 16 KiB, root ${asset.root}`;
  showCounts();
  showMirrors();
  await refreshStored();
  const stored = (await store.list()).find((d) => d.root === asset!.root);
  startButton.disabled = false;
  startButton.addEventListener('click', () => void start());
  pauseButton.addEventListener('click', pause);
  if (stored) startButton.textContent = 'Resume';
  status.textContent = stored
    ? `${formatBytes(stored.recordedBytes)} of this file are stored from before${stored.complete ? ' (all of it)' : ''}.`
    : 'Ready.';
  main.dataset.ready = 'true';
  if (localStorage.getItem(RUNNING_KEY) === ASSET) void start();
}

init().catch((e: unknown) => {
  status.textContent = `The page could not start: ${e instanceof Error ? e.message : String(e)}`;
  status.dataset.state = 'error';
});
