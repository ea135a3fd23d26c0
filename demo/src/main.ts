import { backend, blake3, bytesToHex, ready } from '@blake3-web/core';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('file');

function show(id: string, text: string): void {
  $(id).textContent = text;
}

function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) (n /= 1024), i++;
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

// Streams the file through the incremental hasher, so memory stays flat for large files.
async function hashFile(file: File): Promise<Uint8Array> {
  const hasher = blake3.create();
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return hasher.digest();
    hasher.update(value);
  }
}

fileInput.addEventListener('change', async () => {
  const file = fileInput.files?.[0];
  if (!file) return;
  show('digest', 'hashing…');
  await ready();
  const start = performance.now();
  try {
    const digest = await hashFile(file);
    const ms = performance.now() - start;
    show('digest', bytesToHex(digest));
    show('size', formatBytes(file.size));
    show('time', `${ms.toFixed(1)} ms`);
    show('speed', ms > 0 ? `${(file.size / 1e6 / (ms / 1e3)).toFixed(0)} MB/s` : '–');
  } catch (err) {
    show('digest', `error: ${(err as Error).message}`);
  }
  show('backend', backend());
});

show('backend', backend());
