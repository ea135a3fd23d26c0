// The "Video" page: a <video> whose clip comes from the demo's CDN (another origin) through the
// service worker's verified ranges (media-ranges.ts), the CDN's tamper modes, and a log of every
// range request with its outcome.
import type { MediaInfo } from '../../servers/media-manifest.ts';

import { formatBytes } from './format.ts';
import { controlled } from './service-worker.ts';
import type { MediaRangeReport } from './media-report.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const video = $<HTMLVideoElement>('video');
const status = $<HTMLElement>('video-status');
const tamper = $<HTMLFieldSetElement>('tamper');
const skip = $<HTMLButtonElement>('skip');
const counters = $<HTMLElement>('cdn-counters');
const rows = $<HTMLTableElement>('ranges').tBodies[0]!;
const seekButtons = [...document.querySelectorAll<HTMLButtonElement>('button[data-seek]')];

/** This tab's session on the CDN: its own tamper mode and counts. */
const session = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
let media: MediaInfo;
let loads = 0;
/** Where the last refusal was, in content bytes, once there is one. */
let refusedAt: { from: number; to: number } | undefined;

type CdnState = { mode: string; counters: { contentBytes: number; outboardBytes: number; requests: number } };

function setStatus(state: 'ok' | 'wait' | 'error', text: string): void {
  status.dataset.state = state;
  status.textContent = text;
}

function clock(seconds: number): string {
  const s = Math.max(0, seconds);
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}

/** About when the clip reaches content byte `at` (its bit rate is nearly constant). */
function timeOfByte(at: number): number {
  const duration = Number.isFinite(video.duration) ? video.duration : 60;
  return (at / media.size) * duration;
}

async function cdn(query = '', method = 'GET'): Promise<CdnState> {
  const res = await fetch(`${media.controlUrl}?s=${session}${query}`, { method });
  if (!res.ok) throw new Error(`the CDN's control answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CdnState;
}

async function showCounters(): Promise<void> {
  const { counters: c } = await cdn();
  counters.textContent =
    `The CDN sent ${formatBytes(c.contentBytes)} of the ${formatBytes(media.size)} clip and ` +
    `${formatBytes(c.outboardBytes)} of outboard, in ${c.requests} requests.`;
  counters.dataset.contentBytes = String(c.contentBytes);
}

/** (Re)loads the clip under a fresh URL, so nothing the player cached from an earlier load is reused; resumes at `at`. */
function load(at: number, play: boolean): void {
  // The media fragment starts the player at `at`: without it Firefox reads ahead from the start,
  // into any refused region between, and gives up on the whole load there.
  video.src = `${media.url}?s=${session}&load=${loads++}${at > 0 ? `#t=${at.toFixed(3)}` : ''}`;
  video.addEventListener(
    'loadedmetadata',
    () => {
      video.currentTime = at;
      if (play) void video.play().catch(() => {});
    },
    { once: true },
  );
}

function seek(to: number): void {
  // After a refusal the player is not to be trusted to move on: Chromium keeps asking for the
  // refused range and holds the seek until it gives up, and a player that gave up needs loading
  // again anyway. A fresh load at the new time asks only for bytes from there.
  if (video.error || refusedAt) load(to, true);
  else video.currentTime = to;
}

// A report per range request: a row, updated as the request goes on.
const rowOf = new Map<number, HTMLTableRowElement>();
navigator.serviceWorker?.addEventListener('message', (e: MessageEvent<MediaRangeReport>) => {
  const r = e.data;
  if (r?.type !== 'blake3-media-range' || !r.url.includes(`s=${session}`)) return;
  let row = rowOf.get(r.id);
  if (!row) {
    row = rows.insertRow(0);
    // Each cell carries its column's name, shown beside it where the row is stacked (narrow screens).
    const headers = Array.from(rows.closest('table')!.tHead!.rows[0]!.cells, (th) => th.textContent ?? '');
    for (let i = 0; i < 6; i++) row.insertCell().dataset.label = headers[i];
    rowOf.set(r.id, row);
    // Which load of the clip asked: each change of the CDN's mode loads it afresh.
    row.dataset.load = new URL(r.url).searchParams.get('load') ?? '';
    row.cells[0]!.textContent = String(r.id);
    row.cells[1]!.textContent = r.range ?? 'all';
  }
  row.dataset.outcome = r.outcome;
  row.cells[2]!.textContent = r.contentRange ?? '';
  row.cells[3]!.textContent = r.outcome;
  row.cells[4]!.textContent = r.bytes.toLocaleString('en');
  row.cells[5]!.textContent = r.reason ?? '';
  if (r.outcome === 'refused') refused(r);
  void showCounters().catch(() => {});
});

function refused(r: MediaRangeReport): void {
  // The verifier names the chunk whose bytes did not match: "... of content bytes a..b".
  const where = /content bytes (\d+)\.\.(\d+)/.exec(r.reason ?? '');
  const first = Number(/bytes=(\d+)-/.exec(r.range ?? '')?.[1] ?? 0);
  refusedAt = where ? { from: Number(where[1]), to: Number(where[2]) } : { from: first + r.bytes, to: first + r.bytes };
  status.dataset.refusedFrom = String(refusedAt.from);
  status.dataset.refusedTo = String(refusedAt.to);
  skip.disabled = false;
  setStatus(
    'error',
    `Refused at about ${clock(timeOfByte(refusedAt.from))} (content bytes ${refusedAt.from.toLocaleString('en')}` +
      `–${refusedAt.to.toLocaleString('en')}): ${r.reason}. Playback stops where the verified bytes end; ` +
      `seek past this point to play on.`,
  );
}

video.addEventListener('timeupdate', () => {
  if (status.dataset.state === 'error') return;
  setStatus(
    'ok',
    `${video.paused ? 'Paused' : 'Playing'} at ${clock(video.currentTime)}: every byte played was verified.`,
  );
});
video.addEventListener('seeked', () => {
  if (refusedAt && video.currentTime > timeOfByte(refusedAt.to)) status.dataset.state = '';
});
video.addEventListener('error', () => {
  const why = video.error ? `${video.error.message || 'MediaError'} (code ${video.error.code})` : 'unknown';
  setStatus(
    'error',
    `${status.dataset.state === 'error' ? `${status.textContent} ` : ''}The player stopped: ${why}.`.trim(),
  );
});

for (const button of seekButtons) button.addEventListener('click', () => seek(Number(button.dataset.seek)));
skip.addEventListener('click', () => {
  if (!refusedAt) return;
  // Three seconds on: the CDN may have changed more than the chunk named, and the player asks
  // for bytes from a block boundary before the keyframe it starts from. A skip that lands in
  // bad bytes again is refused again, and names a later chunk to skip past.
  seek(Math.min(timeOfByte(refusedAt.to) + 3, video.duration - 1));
});
tamper.addEventListener('change', async (e) => {
  const mode = (e.target as HTMLInputElement).value;
  await cdn(`&mode=${mode}`, 'POST');
  refusedAt = undefined;
  skip.disabled = true;
  status.dataset.state = '';
  load(video.currentTime, !video.paused);
});
$<HTMLButtonElement>('reset-counters').addEventListener('click', async () => {
  await cdn('&reset', 'POST');
  await showCounters();
});

async function start(): Promise<void> {
  await controlled();
  const res = await fetch('./media.json');
  if (!res.ok) throw new Error(`./media.json answered ${res.status}: the demo's server has no CDN`);
  media = (await res.json()) as MediaInfo;
  $('flip-at').textContent = `(at about ${clock(timeOfByte(media.flipAt))})`;
  $('stale-at').textContent = `(at about ${clock(timeOfByte(media.stale.start))})`;
  video.addEventListener('loadedmetadata', () => {
    $('flip-at').textContent = `(at about ${clock(timeOfByte(media.flipAt))})`;
    $('stale-at').textContent = `(at about ${clock(timeOfByte(media.stale.start))})`;
  });
  load(0, false);
  tamper.disabled = false;
  for (const b of seekButtons) b.disabled = false;
  await showCounters();
  setStatus('ok', 'Ready: press play, or seek.');
  document.body.dataset.session = session;
  document.body.dataset.ready = 'true';
}

start().catch((err: unknown) =>
  setStatus('error', `Cannot start: ${err instanceof Error ? err.message : String(err)}`),
);
