// The "Verified download" section: a content-addressed blob fetched either through the service
// worker (Blake3IntegrityPlugin checks the whole body before anything is served or cached) or
// as a Bao encoding verified chunk by chunk as it streams (fetchVerified / BaoVerifyStream).
import { blake3, bytesToHex } from '@blake3-web/core';
import { fetchVerified } from '@blake3-web/stream';

import { formatBytes } from './format.ts';

type BlobInfo = { hex: string; size: number };
type Mismatch = { type: 'blake3-mismatch'; url: string; expected: string; actual: string };

const select = document.getElementById('blob') as HTMLSelectElement;
const tamper = document.getElementById('tamper') as HTMLInputElement;
const button = document.getElementById('download') as HTMLButtonElement;
const status = document.getElementById('download-status') as HTMLElement;
const progress = document.getElementById('download-progress') as HTMLProgressElement;
const sizes = new Map<string, number>();

function report(text: string, state: 'ok' | 'error' | 'busy'): void {
  status.textContent = text;
  status.dataset.state = state;
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

async function controlled(): Promise<void> {
  if (!('serviceWorker' in navigator)) throw new Error('this browser has no service workers');
  await navigator.serviceWorker.register('./sw.js', { scope: './' });
  await navigator.serviceWorker.ready;
  // The first load is not controlled until the worker claims it.
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) =>
      navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
}

async function downloadThroughWorker(hex: string): Promise<void> {
  const url = new URL(`./blobs/${hex}${tamper.checked ? '?tamper=1' : ''}`, location.href).href;
  mismatches.delete(url);
  try {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    // The service worker verified it; checking again here shows the page got exactly those bytes.
    const got = bytesToHex(blake3(bytes));
    if (got !== hex) throw new Error(`page-side check failed: got ${got}`);
    report(`verified: ${bytes.length} bytes, BLAKE3 ${hex}`, 'ok');
  } catch (err) {
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
  const hasher = blake3.create();
  let released = 0;
  progress.hidden = false;
  progress.max = total || 1;
  progress.value = 0;
  try {
    const res = await fetchVerified(url, hex);
    // A plain reader loop: WebKit cannot iterate a ReadableStream with for-await.
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      released += value.length;
      hasher.update(value);
      progress.value = released;
      status.textContent = `verified ${formatBytes(released)} of ${formatBytes(total)}…`;
    }
    const got = bytesToHex(hasher.digest());
    if (got !== hex) throw new Error(`page-side check failed: got ${got}`);
    report(`verified (Bao): ${released} bytes, BLAKE3 ${hex}`, 'ok');
  } catch (err) {
    const e = err as Error;
    report(`refused (Bao) after ${released} verified bytes were released: ${e.name}: ${e.message}`, 'error');
  }
  status.dataset.released = String(released);
}

async function download(): Promise<void> {
  const hex = select.value;
  report('downloading…', 'busy');
  progress.hidden = true;
  delete status.dataset.released;
  button.disabled = true;
  try {
    await (method() === 'bao' ? downloadBao(hex) : downloadThroughWorker(hex));
  } finally {
    button.disabled = false;
  }
}

async function blobList(): Promise<BlobInfo[]> {
  const res = await fetch('./blobs/index.json').catch(() => undefined);
  const type = res?.headers.get('Content-Type') ?? '';
  // A static host answers 404, or its fallback page: either way there is no blob store.
  if (!res?.ok || !type.includes('json')) {
    throw new Error(
      'this host has no blob store (it exists on `npm start` and the dev server, not on a static copy of the site)',
    );
  }
  return (await res.json()) as BlobInfo[];
}

async function init(): Promise<void> {
  const list = await blobList();
  for (const b of list) {
    sizes.set(b.hex, b.size);
    select.add(new Option(`${b.size.toLocaleString('en')} bytes · ${b.hex.slice(0, 16)}…`, b.hex));
  }
  await controlled();
  button.disabled = false;
  button.addEventListener('click', () => void download());
}

init().catch((err) => report(`unavailable: ${(err as Error).message}`, 'error'));
