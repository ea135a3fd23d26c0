// The playground: text or files in, every mode, any output length from any output position,
// the digest redrawn on every keystroke, and a pasted digest compared in constant time.
import { blake3, bytesToHex, constantTimeEqual, hexToBytes, type Blake3Opts, type Hasher } from '@blake3-web/core';

import { formatByteCount, formatBytes, formatPercent } from './format.ts';
import { parseOptions, type ModeName } from './hash-options.ts';
import { createHexDigest, type HexDigest } from './hex-digest.ts';
import { parseXof } from './xof-options.ts';
import { onDroppedFiles } from './drop-zone.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const text = $<HTMLTextAreaElement>('text');
const fileInput = $<HTMLInputElement>('play-files');
const dropZone = $<HTMLElement>('play-drop');
const mode = $<HTMLSelectElement>('mode');
const key = $<HTMLInputElement>('key');
const context = $<HTMLInputElement>('context');
const outLen = $<HTMLInputElement>('out-len');
const seek = $<HTMLInputElement>('seek');
const optionsError = $<HTMLElement>('options-error');
const outputs = $<HTMLOListElement>('outputs');
const outputWhat = $<HTMLElement>('output-what');
const inputSummary = $<HTMLElement>('input-summary');
const expected = $<HTMLInputElement>('expected');
const compare = $<HTMLElement>('compare');

/** One input and what it gave: its row, and its output bytes once known. */
interface Source {
  readonly name: string;
  readonly row: HTMLLIElement;
  readonly digest: HexDigest;
  readonly badge: HTMLElement;
  bytes?: Uint8Array;
}

let files: File[] = [];
let sources: Source[] = [];
/** Bumped on every change: a file's hash that finishes after a newer change is dropped. */
let generation = 0;
/** A file's finished hasher per mode, so that changing only the length or seek reads nothing again. */
const hashed = new Map<File, { mode: string; hasher: Hasher }>();

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  textContent = '',
): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), { className, textContent });
}

function newSource(name: string, id: string): Source {
  const digest = createHexDigest(`Output for ${name}`, id);
  digest.set('');
  const badge = el('span', 'badge');
  const row = el('li', 'output');
  row.append(el('div', 'output-head'), digest.el);
  row.firstElementChild!.append(el('span', 'output-name', name), badge);
  outputs.append(row);
  return { name, row, digest, badge };
}

function show(source: Source, bytes: Uint8Array): void {
  source.bytes = bytes;
  source.digest.set(bytesToHex(bytes));
  source.badge.textContent = '';
  delete source.badge.dataset.tone;
}

/** Reads the output: `length` bytes from position `seek` of the finished hash. */
function readOutput(hasher: Hasher, length: number, at: bigint): Uint8Array {
  const reader = hasher.reader();
  reader.position = at;
  return reader.read(length);
}

/** Feeds a file through a hasher with its row's badge counting; a plain reader loop (WebKit). */
async function hashFile(file: File, opts: Blake3Opts, source: Source, gen: number): Promise<Hasher | undefined> {
  const hasher = blake3.create(opts);
  const reader = file.stream().getReader();
  let done = 0;
  source.badge.dataset.tone = 'busy';
  for (;;) {
    const next = await reader.read();
    if (gen !== generation) {
      void reader.cancel();
      return undefined;
    }
    if (next.done) break;
    hasher.update(next.value);
    done += next.value.length;
    source.badge.textContent = `hashing ${formatPercent(done, file.size)}`;
  }
  return hasher;
}

function modeKey(opts: Blake3Opts): string {
  return opts.key ? `key:${bytesToHex(opts.key)}` : opts.context !== undefined ? `ctx:${opts.context}` : 'hash';
}

async function recompute(): Promise<void> {
  const gen = ++generation;
  $('key-field').hidden = mode.value !== 'keyed';
  $('context-field').hidden = mode.value !== 'derive';
  const parsed = parseOptions(mode.value as ModeName, key.value, context.value, '32');
  const xof = parseXof(outLen.value, seek.value);
  const error = !parsed.ok ? parsed.error : !xof.ok ? xof.error : '';
  optionsError.textContent = error;
  outputs.replaceChildren();
  sources = [];
  if (!parsed.ok || !xof.ok) {
    outputWhat.textContent = '';
    updateCompare();
    return;
  }
  // The length and position are the reader's business, not the hasher's.
  const { dkLen: _, ...opts } = parsed.opts;
  const where = xof.seek === 0n ? '' : ` from byte ${xof.seek}`;
  outputWhat.textContent = `${parsed.summary} · ${formatByteCount(xof.length)}${where}`;

  if (files.length === 0) {
    const source = newSource('text', 'out-hex');
    sources = [source];
    const bytes = new TextEncoder().encode(text.value);
    inputSummary.textContent = `${formatByteCount(bytes.length)} of UTF-8`;
    show(source, readOutput(blake3.create(opts).update(bytes), xof.length, xof.seek));
    updateCompare();
    return;
  }
  inputSummary.textContent = `${files.length === 1 ? '1 file' : `${files.length} files`}, ${formatBytes(files.reduce((n, f) => n + f.size, 0))}`;
  sources = files.map((f, i) => newSource(f.name || '(unnamed)', `out-hex-${i}`));
  updateCompare();
  const wanted = modeKey(opts);
  for (const [i, file] of files.entries()) {
    const source = sources[i]!;
    let hasher = hashed.get(file)?.mode === wanted ? hashed.get(file)!.hasher : undefined;
    if (!hasher) {
      try {
        hasher = await hashFile(file, opts, source, gen);
      } catch (err) {
        source.badge.dataset.tone = 'bad';
        source.badge.textContent = `could not read: ${(err as Error).message}`;
        continue;
      }
      if (!hasher) return;
      hashed.set(file, { mode: wanted, hasher });
    }
    show(source, readOutput(hasher, xof.length, xof.seek));
    updateCompare();
  }
}

/** The pasted text as bytes, or a reason it is not a digest. */
function pastedDigest(): Uint8Array | string | undefined {
  const hex = expected.value.trim().toLowerCase().replace(/^0x/, '');
  if (hex === '') return undefined;
  if (!/^[0-9a-f]*$/.test(hex)) return 'that is not hex (0-9, a-f)';
  if (hex.length % 2 === 1) return `an odd number of hex digits (${hex.length}) is not whole bytes`;
  return hexToBytes(hex);
}

function setCompare(tone: 'ok' | 'bad' | 'busy' | undefined, message: string): void {
  compare.textContent = message;
  if (tone) compare.dataset.tone = tone;
  else delete compare.dataset.tone;
  compare.dataset.verdict = tone === 'ok' ? 'match' : tone === 'bad' ? 'mismatch' : '';
}

/** Compares the pasted digest with every output shown; each is one constant-time comparison. */
function updateCompare(): void {
  const pasted = pastedDigest();
  if (pasted === undefined) return setCompare(undefined, '');
  if (typeof pasted === 'string') return setCompare('bad', `Mismatch: ${pasted}.`);
  const ready = sources.filter((s) => s.bytes);
  const matching = ready.filter((s) => constantTimeEqual(pasted, s.bytes!));
  for (const s of ready) {
    const match = matching.includes(s);
    s.badge.dataset.tone = match ? 'ok' : 'bad';
    s.badge.textContent = match ? 'match' : 'mismatch';
  }
  if (ready.length < sources.length && matching.length === 0)
    return setCompare('busy', 'Comparing once every file is hashed…');
  if (matching.length > 0) {
    const which = files.length === 0 ? 'the output above' : matching.map((s) => s.name).join(', ');
    return setCompare('ok', `Match: the pasted digest is ${which}.`);
  }
  const length = ready[0]?.bytes?.length;
  const why =
    length !== undefined && pasted.length !== length
      ? ` It is ${formatByteCount(pasted.length)} long, the output ${formatByteCount(length)}.`
      : '';
  setCompare(
    'bad',
    `Mismatch: the pasted digest differs from ${files.length === 0 ? 'the output above' : 'every file'}.${why}`,
  );
}

function useFiles(list: FileList | null | undefined): void {
  if (!list || list.length === 0) return;
  files = Array.from(list);
  $('text-input').hidden = true;
  $('file-input').hidden = false;
  $('file-list').replaceChildren(
    ...files.map((f) => el('li', '', `${f.name || '(unnamed)'} · ${formatBytes(f.size)}`)),
  );
  void recompute();
}

for (const input of [text, mode, key, context, outLen, seek]) input.addEventListener('input', () => void recompute());
expected.addEventListener('input', updateCompare);
$('play-options').addEventListener('submit', (e) => e.preventDefault());
$('clear-files').addEventListener('click', () => {
  files = [];
  hashed.clear();
  $('text-input').hidden = false;
  $('file-input').hidden = true;
  void recompute();
  text.focus();
});
fileInput.addEventListener('change', () => {
  useFiles(fileInput.files);
  fileInput.value = '';
});
onDroppedFiles(dropZone, useFiles);

void recompute();
