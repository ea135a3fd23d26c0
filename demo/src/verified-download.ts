import { blake3, bytesToHex } from '@blake3-web/core';

type BlobInfo = { hex: string; size: number };
type Mismatch = { type: 'blake3-mismatch'; url: string; expected: string; actual: string };

const select = document.getElementById('blob') as HTMLSelectElement;
const tamper = document.getElementById('tamper') as HTMLInputElement;
const button = document.getElementById('download') as HTMLButtonElement;
const status = document.getElementById('download-status') as HTMLElement;

function report(text: string, state: 'ok' | 'error' | 'busy'): void {
  status.textContent = text;
  status.dataset.state = state;
}

const mismatches = new Map<string, Mismatch>();
navigator.serviceWorker?.addEventListener('message', (e: MessageEvent<Mismatch>) => {
  if (e.data?.type === 'blake3-mismatch') mismatches.set(e.data.url, e.data);
});

async function controlled(): Promise<void> {
  if (!('serviceWorker' in navigator)) throw new Error('this browser has no service workers');
  await navigator.serviceWorker.register('./sw.js', { scope: './' });
  await navigator.serviceWorker.ready;
  // The first load is not controlled until the worker claims it.
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  }
}

async function download(): Promise<void> {
  const hex = select.value;
  const url = new URL(`./blobs/${hex}${tamper.checked ? '?tamper=1' : ''}`, location.href).href;
  report('downloading…', 'busy');
  try {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    // The service worker verified it; checking again here shows the page got exactly those bytes.
    const got = bytesToHex(blake3(bytes));
    if (got !== hex) throw new Error(`page-side check failed: got ${got}`);
    report(`verified: ${bytes.length} bytes, BLAKE3 ${hex}`, 'ok');
  } catch (err) {
    // Give the worker's message a moment to arrive: it is sent as the check fails.
    await new Promise((r) => setTimeout(r, 50));
    const m = mismatches.get(url);
    report(m ? `refused: BLAKE3 mismatch, expected ${m.expected}, got ${m.actual}` : `refused: ${(err as Error).message}`, 'error');
  }
}

async function init(): Promise<void> {
  const list = (await (await fetch('./blobs/index.json')).json()) as BlobInfo[];
  for (const b of list) select.add(new Option(`${b.size.toLocaleString('en')} bytes · ${b.hex.slice(0, 16)}…`, b.hex));
  await controlled();
  button.disabled = false;
  button.addEventListener('click', () => void download());
}

init().catch((err) => report(`unavailable: ${(err as Error).message}`, 'error'));
