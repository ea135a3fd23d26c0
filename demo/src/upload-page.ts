// The "Upload" page: tus-js-client with the BLAKE3 adapter, against the demo's tus server.
import { bytesToHex } from '@blake3-web/core';
import { blake3Tus, type Blake3Tus, type Blake3TusDiscard } from '@blake3-web/upload';
import { Upload } from 'tus-js-client';

import { formatBytes } from './format.ts';
import { describeStop, OFFLINE_MESSAGE, type Outcome } from './upload-outcome.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('upload-file');
const dropZone = $<HTMLElement>('upload-drop');
const tamper = $<HTMLInputElement>('tamper');
const tamperStored = $<HTMLInputElement>('tamper-stored');
const pause = $<HTMLButtonElement>('pause');
const resume = $<HTMLButtonElement>('resume');
const sent = $<HTMLProgressElement>('sent');
const hashed = $<HTMLProgressElement>('hashed');
const status = $<HTMLElement>('upload-status');
const verdict = $<HTMLElement>('verdict');
const notice = $<HTMLElement>('upload-notice');
const instances = $<HTMLElement>('upload-instances');

const CHUNK_SIZE = 8 * 1024 * 1024;
/** The header naming the server instance that answered (the demo's fleet sets it, `npm run demo:fleet`). */
const INSTANCE_HEADER = 'Blake3-Instance';

/**
 * Where the current upload stands; the buttons follow from it. `offline` goes on by itself when
 * the browser is back online; `stopped` (no answer, or an error status) waits for Retry; `done`
 * has the server's verdict, or failed in the page: only picking a file again goes on from there.
 */
type Phase = 'uploading' | 'paused' | 'offline' | 'stopped' | 'done';
type Current = { upload: Upload; b3: Blake3Tus; file: File; phase: Phase; timer: ReturnType<typeof setInterval> };
let current: Current | undefined;

function setPhase(upload: Current, phase: Phase): void {
  upload.phase = phase;
  pause.disabled = phase !== 'uploading';
  resume.disabled = phase === 'uploading' || phase === 'done';
  resume.textContent = phase === 'offline' || phase === 'stopped' ? 'Retry' : 'Resume';
  if (phase === 'done') clearInterval(upload.timer);
}

function showVerdict(state: 'verified' | Outcome['kind'] | '', text: string): void {
  verdict.dataset.state = state;
  verdict.textContent = text;
}

/**
 * Saved state the adapter set aside, in words: a fresh upload in place of another file's must
 * not read as tampering when the verdict comes.
 */
function describeDiscard(event: Blake3TusDiscard): string {
  switch (event.reason) {
    case 'other-file':
      return 'A fresh upload was started: the unfinished upload this browser had for a file of this name, size and date holds other bytes.';
    case 'refused':
      // Not fresh: the verdict says it all (refused, discarded, pick the file again).
      return event.fresh
        ? 'A fresh upload was started: the server refused the resumed upload, part of which this page had not sent.'
        : '';
    default:
      return "This browser's saved hash state of the upload could not be used and was deleted: the file is hashed from its first byte.";
  }
}

function start(file: File): void {
  if (current) {
    void current.upload.abort();
    clearInterval(current.timer);
  }
  showVerdict('', '');
  notice.textContent = '';
  instances.textContent = '';
  const takenBy: string[] = [];
  const b3 = blake3Tus({
    onDiscard(event) {
      if (current === self) notice.textContent = describeDiscard(event);
    },
  });
  const showRead = () => (hashed.value = file.size === 0 ? 1 : Math.min(1, b3.bytesRead / file.size));
  const upload = new Upload(file, {
    endpoint: new URL('./files/', location.href).href,
    chunkSize: CHUNK_SIZE,
    retryDelays: [0, 1000, 3000, 5000],
    // A finished upload is not resumed: picking the same file again uploads and hashes it anew.
    removeFingerprintOnSuccess: true,
    // The demo server's faults: a byte flipped as it arrives, or on disk between two requests.
    metadata: {
      filename: file.name,
      ...(tamper.checked ? { tamper: '1' } : tamperStored.checked ? { tamper: 'stored' } : {}),
    },
    ...b3.options,
    onAfterResponse(req, res) {
      const instance = res.getHeader(INSTANCE_HEADER);
      if (current === self && req.getMethod() === 'PATCH' && instance) {
        takenBy.push(instance);
        instances.textContent = `PATCHes taken by: ${takenBy.join(', ')}`;
      }
      return b3.options.onAfterResponse?.(req, res);
    },
    onProgress(bytesSent, total) {
      if (current !== self) return;
      sent.value = total ? bytesSent / total : 0;
      showRead();
      status.textContent = `${file.name}: uploaded ${formatBytes(bytesSent)} of ${formatBytes(total ?? 0)}; read ${formatBytes(b3.bytesRead)}.`;
    },
    onSuccess({ lastResponse }) {
      if (current !== self) return;
      showRead();
      setPhase(self, 'done');
      const root = lastResponse.getHeader('Upload-Blake3-Verified');
      if (root) showVerdict('verified', `Verified: ${root}`);
      else showVerdict('failed', 'The server did not say it verified the upload.');
      void b3.root.then(
        (mine) =>
          (status.textContent = `Done: ${formatBytes(file.size)} hashed once (${formatBytes(b3.bytesRead)} read for the hash in all); this page's root ${bytesToHex(mine)}.`),
      );
    },
    onError(error) {
      if (current !== self) return;
      const outcome = describeStop(error, navigator.onLine);
      showVerdict(outcome.kind, outcome.message);
      setPhase(
        self,
        outcome.kind === 'offline'
          ? 'offline'
          : outcome.kind === 'unreachable' || outcome.kind === 'rejected'
            ? 'stopped'
            : 'done',
      );
    },
  });
  const self: Current = { upload, b3, file, phase: 'uploading', timer: setInterval(showRead, 250) };
  current = self;
  setPhase(self, 'uploading');
  status.textContent = `${file.name}: starting…`;
  void upload.findPreviousUploads().then((previous) => {
    if (current !== self) return;
    if (previous.length > 0) {
      upload.resumeFromPreviousUpload(previous[0]);
      status.textContent = `${file.name}: resuming the previous upload of this file…`;
    }
    upload.start();
  });
}

/** Starts the current upload again from what the server holds (tus asks it first). */
function goOn(why: string): void {
  if (!current) return;
  showVerdict('', '');
  setPhase(current, 'uploading');
  status.textContent = why;
  current.upload.start();
}

pause.addEventListener('click', () => {
  if (current?.phase !== 'uploading') return;
  void current.upload.abort();
  setPhase(current, 'paused');
  status.textContent += ' Paused.';
});
resume.addEventListener('click', () => goOn(`${current?.file.name}: resuming…`));
// tus-js-client does not retry while the browser says it is offline; it stops, and this goes on.
addEventListener('online', () => {
  if (current?.phase === 'offline') goOn(`${current.file.name}: back online, resuming…`);
  else if (verdict.dataset.state === 'offline') showVerdict('', '');
});
addEventListener('offline', () => {
  if (current?.phase === 'uploading') showVerdict('offline', OFFLINE_MESSAGE);
});

fileInput.addEventListener('change', () => {
  const file = fileInput.files?.[0];
  // Emptied at once: picking the same file again must be a change too (a browser fires `cancel`
  // for a selection equal to the current one).
  fileInput.value = '';
  if (file) start(file);
});
dropZone.addEventListener('dragover', (e) => e.preventDefault());
dropZone.addEventListener('drop', (e) => {
  e.preventDefault();
  const file = e.dataTransfer?.files[0];
  if (file) start(file);
});
// A reload can bring back the form as it was (Firefox restores a picked file and the buttons'
// state): the page starts from nothing, whatever was restored.
fileInput.value = '';
pause.disabled = resume.disabled = true;
// Ready only now: module scripts run after the page is shown, and a file picked before the
// listeners above were attached would be ignored.
fileInput.disabled = false;
status.textContent = 'Pick a file.';
