// One row per picked or dropped file: progress, speed, cancel, digest, copy and "verify against".
// Files are hashed one after another, each on the whole worker pool, so the first result comes
// as early as possible and a cancelled file does not hold up the others.
import { bytesToHex, type Blake3Opts } from '@blake3-web/core';

import { formatBytes, formatElapsed, formatSpeed } from './format.ts';
import { pagePool } from './pool.ts';

type RowState = 'queued' | 'hashing' | 'done' | 'cancelled' | 'error';

interface Row {
  readonly file: File;
  readonly opts: Blake3Opts;
  readonly controller: AbortController;
  readonly li: HTMLLIElement;
  readonly progress: HTMLProgressElement;
  readonly stats: HTMLElement;
  readonly digest: HTMLOutputElement;
  readonly cancel: HTMLButtonElement;
  readonly copy: HTMLButtonElement;
  readonly verify: HTMLInputElement;
  readonly verdict: HTMLElement;
  hex: string;
}

let nextId = 0;
const queue: Row[] = [];
let running = false;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function setState(row: Row, state: RowState, text: string): void {
  row.li.dataset.state = state;
  row.stats.textContent = text;
}

function announce(text: string): void {
  const status = document.getElementById('hash-status');
  if (status) status.textContent = text;
}

/** Compares the pasted digest with the computed one; empty input shows nothing. */
function checkVerify(row: Row): void {
  const pasted = row.verify.value.trim().toLowerCase().replace(/^0x/, '');
  if (pasted === '' || row.hex === '') {
    row.verdict.textContent = '';
    delete row.verdict.dataset.verdict;
    return;
  }
  const match = pasted === row.hex;
  row.verdict.dataset.verdict = match ? 'match' : 'mismatch';
  row.verdict.textContent = match ? '✓ match' : '✗ mismatch: the pasted digest differs';
}

function makeRow(file: File, opts: Blake3Opts, summary: string): Row {
  const id = `f${nextId++}`;
  const progress = el('progress', { id: `${id}-progress`, max: 1, value: 0 });
  const stats = el('span', { className: 'stats' });
  const digest = el('output', { id: `${id}-digest`, className: 'mono digest' });
  const cancel = el('button', { type: 'button', className: 'cancel', textContent: 'Cancel' });
  const copy = el('button', { type: 'button', className: 'copy', textContent: 'Copy', disabled: true });
  const verify = el('input', {
    id: `${id}-verify`,
    type: 'text',
    className: 'mono verify',
    autocomplete: 'off',
    spellcheck: false,
    placeholder: 'paste a hex digest',
  });
  const verdict = el('span', { className: 'verdict', role: 'status' });
  progress.setAttribute('aria-label', `Progress for ${file.name}`);
  digest.setAttribute('aria-label', `BLAKE3 of ${file.name}`);
  cancel.setAttribute('aria-label', `Cancel hashing ${file.name}`);
  copy.setAttribute('aria-label', `Copy the digest of ${file.name}`);
  const li = el(
    'li',
    { className: 'result' },
    el(
      'div',
      { className: 'result-head' },
      el('strong', { className: 'name', textContent: file.name || '(unnamed)' }),
      ` ${formatBytes(file.size)} · ${summary}`,
    ),
    el('div', { className: 'result-progress' }, progress, cancel),
    stats,
    el('div', { className: 'result-digest' }, digest, copy),
    el(
      'div',
      { className: 'result-verify' },
      el('label', { htmlFor: verify.id, textContent: 'Verify against' }),
      verify,
      verdict,
    ),
  );
  const row: Row = {
    file,
    opts,
    controller: new AbortController(),
    li,
    progress,
    stats,
    digest,
    cancel,
    copy,
    verify,
    verdict,
    hex: '',
  };
  cancel.addEventListener('click', () => row.controller.abort(new DOMException('cancelled by the user', 'AbortError')));
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(row.hex).then(
      () => (copy.textContent = 'Copied'),
      () => {
        // No clipboard permission (e.g. an insecure origin): select the text for a manual copy.
        getSelection()?.selectAllChildren(digest);
        copy.textContent = 'Selected';
      },
    );
    setTimeout(() => (copy.textContent = 'Copy'), 1500);
  });
  verify.addEventListener('input', () => checkVerify(row));
  setState(row, 'queued', 'queued');
  return row;
}

async function hashRow(row: Row): Promise<void> {
  if (row.controller.signal.aborted) {
    setState(row, 'cancelled', 'cancelled before it started');
    row.cancel.disabled = true;
    return;
  }
  const { file, progress } = row;
  setState(row, 'hashing', 'starting…');
  const started = performance.now();
  let lastPaint = 0;
  try {
    const digest = await pagePool().hashBlob(file, {
      ...row.opts,
      signal: row.controller.signal,
      onProgress: (done, total) => {
        const now = performance.now();
        // Progress arrives per subtree; painting more often than every 50 ms only costs time.
        if (now - lastPaint < 50 && done < total) return;
        lastPaint = now;
        progress.value = total === 0 ? 1 : done / total;
        const ms = now - started;
        row.stats.textContent = `${formatBytes(done)} of ${formatBytes(total)} · ${formatSpeed(done, ms)} · ${formatElapsed(ms)}`;
      },
    });
    const ms = performance.now() - started;
    row.hex = bytesToHex(digest);
    progress.value = 1;
    row.digest.value = row.hex;
    row.copy.disabled = false;
    setState(row, 'done', `done: ${formatBytes(file.size)} in ${formatElapsed(ms)} · ${formatSpeed(file.size, ms)}`);
    checkVerify(row);
    announce(`${file.name} hashed: ${row.hex}`);
  } catch (err) {
    const e = err as Error;
    if (row.controller.signal.aborted) {
      setState(row, 'cancelled', `cancelled after ${formatElapsed(performance.now() - started)}`);
      announce(`${file.name}: cancelled`);
    } else {
      setState(row, 'error', `error: ${e.name}: ${e.message}`);
      announce(`${file.name}: ${e.message}`);
    }
  } finally {
    row.cancel.disabled = true;
  }
}

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (let row = queue.shift(); row; row = queue.shift()) await hashRow(row);
  } finally {
    running = false;
  }
}

/** Adds a row per file, newest first, and starts hashing them in order. */
export function enqueueFiles(list: HTMLOListElement, files: Iterable<File>, opts: Blake3Opts, summary: string): void {
  for (const file of files) {
    const row = makeRow(file, opts, summary);
    list.prepend(row.li);
    queue.push(row);
  }
  void drain();
}
