// The "Upload" page: tus-js-client with the BLAKE3 adapter, against the demo's tus server.
import { blake3Tus, type Blake3Tus, type Blake3TusDiscard } from '@blake3-web/upload';
import { Upload } from 'tus-js-client';

import { formatBytes } from './format.ts';
import { bindMeter, type Tone } from './meter.ts';
import { describeStop, OFFLINE_MESSAGE, type Outcome } from './upload-outcome.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('upload-file');
const dropZone = $<HTMLElement>('upload-drop');
const tamper = $<HTMLInputElement>('tamper');
const tamperStored = $<HTMLInputElement>('tamper-stored');
const pause = $<HTMLButtonElement>('pause');
const resume = $<HTMLButtonElement>('resume');
const sent = bindMeter($('sent-meter'));
const hashed = bindMeter($('hashed-meter'));
const faultNote = $<HTMLElement>('fault-note');
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

/** How each verdict looks: success, failure, or a stop that can go on. */
const VERDICT_TONES: Record<'verified' | Outcome['kind'], Tone> = {
  verified: 'ok',
  refused: 'bad',
  failed: 'bad',
  offline: 'warn',
  unreachable: 'warn',
  rejected: 'warn',
};

/** Shows the verdict; `hex`, a root, follows the text in the digests' type. */
function showVerdict(state: 'verified' | Outcome['kind'] | '', text: string, hex?: string): void {
  verdict.dataset.state = state;
  if (state) verdict.dataset.tone = VERDICT_TONES[state];
  else delete verdict.dataset.tone;
  verdict.textContent = text;
  if (hex) {
    const root = document.createElement('span');
    root.className = 'mono';
    root.textContent = hex;
    verdict.append(root);
  }
  const tone = state ? VERDICT_TONES[state] : undefined;
  sent.settle(tone === 'ok' || tone === 'bad' ? tone : undefined);
  hashed.settle(tone === 'ok' || tone === 'bad' ? tone : undefined);
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
  faultNote.textContent = '';
  // Speeds count the bytes of this page's run only, not what a resumed upload sent before.
  const started = performance.now();
  let sentBefore: number | undefined;
  let readBefore: number | undefined;
  const b3 = blake3Tus({
    onDiscard(event) {
      if (current === self) notice.textContent = describeDiscard(event);
    },
  });
  const showRead = () => {
    readBefore ??= b3.bytesRead;
    hashed.update(b3.bytesRead, file.size, performance.now() - started, readBefore);
  };
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
      sentBefore ??= bytesSent;
      sent.update(bytesSent, total ?? file.size, performance.now() - started, sentBefore);
      showRead();
      status.textContent = `${file.name}: uploading…`;
    },
    onSuccess({ lastResponse }) {
      if (current !== self) return;
      showRead();
      setPhase(self, 'done');
      const root = lastResponse.getHeader('Upload-Blake3-Verified');
      if (root) showVerdict('verified', 'Verified: ', root);
      else showVerdict('failed', 'The server did not say it verified the upload.');
      status.textContent = `Done: ${file.name}, ${formatBytes(file.size)}, hashed once (${formatBytes(b3.bytesRead)} read for the hash in all).`;
    },
    onError(error) {
      if (current !== self) return;
      const outcome = describeStop(error, navigator.onLine);
      showVerdict(outcome.kind, outcome.message);
      const over = outcome.kind === 'refused' || outcome.kind === 'failed';
      status.textContent = `${file.name}: ${over ? 'not uploaded.' : 'waiting to go on.'}`;
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
  sent.update(0, file.size);
  hashed.update(0, file.size);
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

// A fault is set when an upload starts: a box changed during one applies to the next pick.
for (const box of [tamper, tamperStored]) {
  box.addEventListener('change', () => {
    faultNote.textContent =
      current && current.phase !== 'done' ? 'This applies to the next file you pick, not to the upload under way.' : '';
  });
}

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
