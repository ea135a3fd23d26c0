// The "Upload" page: tus-js-client with the BLAKE3 adapter, against the demo's tus server.
import { bytesToHex } from '@blake3-web/core';
import { blake3Tus, type Blake3Tus } from '@blake3-web/upload';
import { Upload } from 'tus-js-client';

import { formatBytes } from './format.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('upload-file');
const dropZone = $<HTMLElement>('upload-drop');
const tamper = $<HTMLInputElement>('tamper');
const pause = $<HTMLButtonElement>('pause');
const resume = $<HTMLButtonElement>('resume');
const sent = $<HTMLProgressElement>('sent');
const hashed = $<HTMLProgressElement>('hashed');
const status = $<HTMLElement>('upload-status');
const verdict = $<HTMLElement>('verdict');

const CHUNK_SIZE = 8 * 1024 * 1024;
let current: { upload: Upload; b3: Blake3Tus; timer: ReturnType<typeof setInterval> } | undefined;

function start(file: File): void {
  if (current) {
    void current.upload.abort();
    clearInterval(current.timer);
  }
  verdict.textContent = '';
  const b3 = blake3Tus();
  const showRead = () => (hashed.value = file.size === 0 ? 1 : Math.min(1, b3.bytesRead / file.size));
  const upload = new Upload(file, {
    endpoint: new URL('./files/', location.href).href,
    chunkSize: CHUNK_SIZE,
    retryDelays: [0, 1000, 3000, 5000],
    // A finished upload is not resumed: picking the same file again uploads and hashes it anew.
    removeFingerprintOnSuccess: true,
    metadata: { filename: file.name, ...(tamper.checked ? { tamper: '1' } : {}) },
    ...b3.options,
    onProgress(bytesSent, total) {
      sent.value = total ? bytesSent / total : 0;
      showRead();
      status.textContent = `Uploaded ${formatBytes(bytesSent)} of ${formatBytes(total ?? 0)}; read ${formatBytes(b3.bytesRead)}.`;
    },
    onSuccess({ lastResponse }) {
      showRead();
      finish();
      const root = lastResponse.getHeader('Upload-Blake3-Verified');
      verdict.textContent = root ? `Verified: ${root}` : 'The server did not say it verified the upload.';
      void b3.root.then(
        (mine) =>
          (status.textContent = `Done: ${formatBytes(file.size)} hashed once (${formatBytes(b3.bytesRead)} read for the hash in all); this page's root ${bytesToHex(mine)}.`),
      );
    },
    onError(error) {
      finish();
      const res = (error as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
      verdict.textContent = res ? `Refused (${res.getStatus()}): ${res.getBody()}` : `Failed: ${error.message}`;
    },
  });
  const timer = setInterval(showRead, 250);
  const finish = () => {
    clearInterval(timer);
    pause.disabled = resume.disabled = true;
  };
  current = { upload, b3, timer };
  pause.disabled = false;
  resume.disabled = true;
  status.textContent = 'Starting…';
  void upload.findPreviousUploads().then((previous) => {
    if (previous.length > 0) {
      upload.resumeFromPreviousUpload(previous[0]);
      status.textContent = 'Resuming the previous upload of this file…';
    }
    upload.start();
  });
}

pause.addEventListener('click', () => {
  void current?.upload.abort();
  pause.disabled = true;
  resume.disabled = false;
  status.textContent += ' Paused.';
});
resume.addEventListener('click', () => {
  current?.upload.start();
  pause.disabled = false;
  resume.disabled = true;
});
fileInput.addEventListener('change', () => {
  const file = fileInput.files?.[0];
  if (file) start(file);
});
dropZone.addEventListener('dragover', (e) => e.preventDefault());
dropZone.addEventListener('drop', (e) => {
  e.preventDefault();
  const file = e.dataTransfer?.files[0];
  if (file) start(file);
});
// Ready only now: module scripts run after the page is shown, and a file picked before the
// listeners above were attached would be ignored.
fileInput.disabled = false;
status.textContent = 'Pick a file.';
