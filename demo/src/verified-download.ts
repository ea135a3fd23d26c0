// The "Verified download" section: a content-addressed blob fetched either through the service
// worker (Blake3IntegrityPlugin checks the whole body before anything is served or cached) or
// as a Bao encoding verified chunk by chunk as it streams (fetchVerified / BaoVerifyStream).
// Either way the page shows the bytes as they come, and offers the verified file to save.
import { blake3, bytesToHex } from '@blake3-web/core';
import { fetchVerified } from '@blake3-web/stream';

import { formatByteCount, formatSize } from './format.ts';
import { controlled } from './service-worker.ts';
import { bindMeter } from './meter.ts';

type BlobInfo = { hex: string; size: number };
type Mismatch = { type: 'blake3-mismatch'; url: string; expected: string; actual: string };

const select = document.getElementById('blob') as HTMLSelectElement;
const tamper = document.getElementById('tamper') as HTMLInputElement;
const button = document.getElementById('download') as HTMLButtonElement;
const status = document.getElementById('download-status') as HTMLElement;
const meter = bindMeter(document.getElementById('download-meter') as HTMLElement);
const save = document.getElementById('save') as HTMLAnchorElement;
const sizes = new Map<string, number>();

const TONES = { ok: 'ok', error: 'bad', busy: 'busy' } as const;

function report(text: string, state: 'ok' | 'error' | 'busy'): void {
  status.textContent = text;
  status.dataset.state = state;
  status.dataset.tone = TONES[state];
}

/** Offers the verified bytes as a file named for their digest. */
function offer(bytes: Blob, hex: string): void {
  if (save.href) URL.revokeObjectURL(save.href);
  save.href = URL.createObjectURL(bytes);
  save.download = `${hex.slice(0, 16)}.bin`;
  save.textContent = `Save the file (${formatSize(bytes.size)})`;
  save.hidden = false;
}

/**
 * Reads `res`'s body to the end with the meter following it, hashing it on the way: a plain
 * reader loop, since WebKit cannot iterate a ReadableStream with for-await.
 */
async function readAll(
  res: Response,
  total: number,
  onBytes: (released: number) => void,
): Promise<{ parts: Uint8Array<ArrayBuffer>[]; hex: string }> {
  const hasher = blake3.create();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const started = performance.now();
  let released = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    released += value.length;
    hasher.update(value);
    parts.push(value as Uint8Array<ArrayBuffer>);
    onBytes(released);
    meter.update(released, total, performance.now() - started);
  }
  return { parts, hex: bytesToHex(hasher.digest()) };
}

function method(): 'plugin' | 'bao' {
  return (document.querySelector('input[name="method"]:checked') as HTMLInputElement | null)?.value === 'bao'
    ? 'bao'
    : 'plugin';
}

const mismatches = new Map<string, Mismatch>();
navigator.serviceWorker?.addEventListener('message', (e: MessageEvent<Mismatch>) => {
  if (e.data?.type === 'blake3-mismatch') mismatches.set(e.data.url, e.data);
});

/**
 * The worker's report of a mismatch on `url`. It is posted as the check fails, so it may arrive
 * just after the fetch rejects (later still on a busy machine): wait for it, but not forever.
 */
async function mismatchFor(url: string, waitMs = 3000): Promise<Mismatch | undefined> {
  const until = performance.now() + waitMs;
  while (!mismatches.has(url) && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  return mismatches.get(url);
}

async function downloadThroughWorker(hex: string): Promise<void> {
  const url = new URL(`./blobs/${hex}${tamper.checked ? '?tamper=1' : ''}`, location.href).href;
  mismatches.delete(url);
  // The worker answers only once it has checked the whole body: until then there is nothing to count.
  meter.note('the service worker fetches and checks the whole body…');
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`the server answered ${res.status}`);
    const { parts, hex: got } = await readAll(res, sizes.get(hex) ?? 0, () => {});
    // The service worker verified it; checking again here shows the page got exactly those bytes.
    if (got !== hex) throw new Error(`page-side check failed: got ${got}`);
    const file = new Blob(parts);
    meter.settle('ok');
    report(`verified: ${formatSize(file.size)}, BLAKE3 ${hex}`, 'ok');
    offer(file, hex);
  } catch (err) {
    meter.settle('bad');
    const m = await mismatchFor(url);
    report(
      m ? `refused: BLAKE3 mismatch, expected ${m.expected}, got ${m.actual}` : `refused: ${(err as Error).message}`,
      'error',
    );
  }
}

async function downloadBao(hex: string): Promise<void> {
  const url = new URL(`./blobs/${hex}.bao${tamper.checked ? '?tamper=1' : ''}`, location.href).href;
  const total = sizes.get(hex) ?? 0;
  let released = 0;
  meter.update(0, total);
  try {
    const res = await fetchVerified(url, hex);
    const { parts, hex: got } = await readAll(res, total, (n) => {
      released = n;
      status.textContent = `verified ${formatByteCount(n)} of ${formatByteCount(total)}…`;
    });
    if (got !== hex) throw new Error(`page-side check failed: got ${got}`);
    meter.settle('ok');
    report(`verified (Bao): ${formatSize(released)}, BLAKE3 ${hex}`, 'ok');
    offer(new Blob(parts), hex);
  } catch (err) {
    const e = err as Error;
    meter.settle('bad');
    report(
      `refused (Bao) after ${formatByteCount(released)} were verified and released: ${e.name}: ${e.message}`,
      'error',
    );
  }
  status.dataset.released = String(released);
}

async function download(): Promise<void> {
  const hex = select.value;
  report('downloading…', 'busy');
  meter.el.hidden = false;
  meter.settle(undefined);
  meter.update(0, sizes.get(hex) ?? 0);
  save.hidden = true;
  delete status.dataset.released;
  button.disabled = true;
  try {
    await (method() === 'bao' ? downloadBao(hex) : downloadThroughWorker(hex));
  } finally {
    button.disabled = false;
  }
}

const NO_BLOB_STORE =
  'this host has no blob store (it exists on `npm start` and the dev server, not on a static copy of the site)';

async function blobList(): Promise<BlobInfo[]> {
  // The static build knows it has no server; asking would only log a 404.
  if (__DEMO_STATIC__) throw new Error(NO_BLOB_STORE);
  const res = await fetch('./blobs/index.json').catch(() => undefined);
  const type = res?.headers.get('Content-Type') ?? '';
  // A static host answers 404, or its fallback page: either way there is no blob store.
  if (!res?.ok || !type.includes('json')) {
    throw new Error(NO_BLOB_STORE);
  }
  return (await res.json()) as BlobInfo[];
}

async function init(): Promise<void> {
  const list = await blobList();
  for (const b of list) {
    sizes.set(b.hex, b.size);
    const option = new Option(`${formatSize(b.size)} · ${b.hex.slice(0, 16)}…`, b.hex);
    option.dataset.size = String(b.size);
    select.add(option);
  }
  await controlled();
  button.disabled = false;
  button.addEventListener('click', () => void download());
}

init().catch((err) => report(`unavailable: ${(err as Error).message}`, 'error'));
