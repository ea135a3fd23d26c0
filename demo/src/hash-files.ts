// One card per picked or dropped file: a meter (percentage, bytes, speed) and Cancel while it
// hashes; when done, the digest with Copy and "verify against"; when cancelled or failed, only
// what happened. Files are hashed one after another, each on the whole worker pool, so the first
// result comes as early as possible and a cancelled file does not hold up the others.
import { bytesToHex, constantTimeEqual, hexToBytes, type Blake3Opts } from '@blake3-web/core';

import { formatBytes, formatElapsed, formatSpeed } from './format.ts';
import { createHexDigest } from './hex-digest.ts';
import { createMeter, type Meter } from './meter.ts';
import { pagePool } from './pool.ts';

type RowState = 'queued' | 'hashing' | 'done' | 'cancelled' | 'error';

interface Row {
  readonly file: File;
  readonly opts: Blake3Opts;
  readonly controller: AbortController;
  readonly li: HTMLLIElement;
  readonly meter: Meter;
  readonly badge: HTMLElement;
  readonly stats: HTMLElement;
  readonly cancel: HTMLButtonElement;
}

const BADGES: Record<RowState, { text: string; tone?: 'ok' | 'bad' | 'warn' | 'busy' }> = {
  queued: { text: 'queued' },
  hashing: { text: 'hashing', tone: 'busy' },
  done: { text: 'done', tone: 'ok' },
  cancelled: { text: 'cancelled', tone: 'warn' },
  error: { text: 'error', tone: 'bad' },
};

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
  const badge = BADGES[state];
  row.badge.textContent = badge.text;
  if (badge.tone) row.badge.dataset.tone = badge.tone;
  else delete row.badge.dataset.tone;
  row.stats.textContent = text;
}

function announce(text: string): void {
  const status = document.getElementById('hash-status');
  if (status) status.textContent = text;
}

/** The pasted text as digest bytes, or undefined when it is not hex of whole bytes. */
function pastedBytes(text: string): Uint8Array | undefined {
  const hex = text.trim().toLowerCase().replace(/^0x/, '');
  return /^(?:[0-9a-f]{2})+$/.test(hex) ? hexToBytes(hex) : undefined;
}

/** The "verify against" box of a finished row: match or mismatch, compared in constant time. */
function verifyBox(row: Row, digest: Uint8Array): HTMLElement {
  const id = `${row.li.id}-verify`;
  const input = el('input', {
    id,
    type: 'text',
    className: 'mono verify',
    autocomplete: 'off',
    spellcheck: false,
    placeholder: 'paste a hex digest',
  });
  const verdict = el('span', { className: 'verdict', role: 'status' });
  input.addEventListener('input', () => {
    if (input.value.trim() === '') {
      verdict.textContent = '';
      delete verdict.dataset.verdict;
      return;
    }
    const pasted = pastedBytes(input.value);
    const match = pasted !== undefined && constantTimeEqual(pasted, digest);
    verdict.dataset.verdict = match ? 'match' : 'mismatch';
    verdict.textContent = match
      ? '✓ match'
      : pasted === undefined
        ? '✗ mismatch: that is not a hex digest'
        : '✗ mismatch: the pasted digest differs';
  });
  return el(
    'div',
    { className: 'result-verify' },
    el('label', { htmlFor: id, textContent: 'Verify against' }),
    input,
    verdict,
  );
}

function makeRow(file: File, opts: Blake3Opts, summary: string): Row {
  const id = `f${nextId++}`;
  const name = file.name || '(unnamed)';
  const meter = createMeter('Hashed', `${id}-progress`);
  meter.progress.setAttribute('aria-label', `Progress for ${name}`);
  const badge = el('span', { className: 'badge state' });
  const stats = el('span', { className: 'stats' });
  const cancel = el('button', { type: 'button', className: 'cancel', textContent: 'Cancel' });
  cancel.setAttribute('aria-label', `Cancel hashing ${name}`);
  const li = el(
    'li',
    { id, className: 'result card' },
    el('div', { className: 'card-head result-head' }, el('strong', { className: 'name', textContent: name }), badge),
    el('div', { className: 'meta', textContent: `${formatBytes(file.size)} · ${summary}` }),
    el('div', { className: 'result-progress' }, meter.el, cancel),
    stats,
  );
  const row: Row = { file, opts, controller: new AbortController(), li, meter, badge, stats, cancel };
  cancel.addEventListener('click', () => row.controller.abort(new DOMException('cancelled by the user', 'AbortError')));
  setState(row, 'queued', 'waiting for the files before it');
  return row;
}

/** A settled row keeps only what still means something: no Cancel, and a digest only if done. */
function settle(row: Row): void {
  row.cancel.remove();
}

async function hashRow(row: Row): Promise<void> {
  if (row.controller.signal.aborted) {
    setState(row, 'cancelled', 'cancelled before it started');
    row.meter.settle('warn');
    settle(row);
    return;
  }
  const { file, meter } = row;
  setState(row, 'hashing', '');
  meter.update(0, file.size);
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
        const ms = now - started;
        meter.update(done, total, ms);
        row.stats.textContent = formatElapsed(ms);
      },
    });
    const ms = performance.now() - started;
    const hex = bytesToHex(digest);
    meter.update(file.size, file.size, ms);
    meter.settle('ok');
    const shown = createHexDigest(`BLAKE3 of ${file.name}`, `${row.li.id}-digest`);
    shown.output.classList.add('digest');
    shown.set(hex);
    setState(row, 'done', `done: ${formatBytes(file.size)} in ${formatElapsed(ms)} · ${formatSpeed(file.size, ms)}`);
    row.li.append(shown.el, verifyBox(row, digest));
    announce(`${file.name} hashed: ${hex}`);
  } catch (err) {
    const e = err as Error;
    meter.settle(row.controller.signal.aborted ? 'warn' : 'bad');
    if (row.controller.signal.aborted) {
      setState(row, 'cancelled', `cancelled after ${formatElapsed(performance.now() - started)}`);
      announce(`${file.name}: cancelled`);
    } else {
      setState(row, 'error', `error: ${e.name}: ${e.message}`);
      announce(`${file.name}: ${e.message}`);
    }
  } finally {
    settle(row);
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
