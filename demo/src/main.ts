// The "Hash files" section: options, file picker, drop zone.
import { backend, ready } from '@blake3-web/core';

import { enqueueFiles } from './hash-files.ts';
import { parseOptions, type ModeName } from './hash-options.ts';
import { defaultPoolSize } from './pool.ts';
import { onDroppedFiles } from './drop-zone.ts';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('file');
const dropZone = $<HTMLElement>('drop-zone');
const results = $<HTMLOListElement>('results');
const mode = $<HTMLSelectElement>('mode');
const key = $<HTMLInputElement>('key');
const context = $<HTMLInputElement>('context');
const dkLen = $<HTMLInputElement>('dklen');
const optionsError = $<HTMLElement>('options-error');

function currentOptions() {
  return parseOptions(mode.value as ModeName, key.value, context.value, dkLen.value);
}

/** Shows the fields the mode needs and says what is wrong before anything is hashed. */
function refreshOptions(): void {
  $('key-field').hidden = mode.value !== 'keyed';
  $('context-field').hidden = mode.value !== 'derive';
  const parsed = currentOptions();
  optionsError.textContent = parsed.ok ? '' : parsed.error;
}

function hash(files: FileList | null | undefined): void {
  if (!files || files.length === 0) return;
  const parsed = currentOptions();
  if (!parsed.ok) {
    optionsError.textContent = parsed.error;
    return;
  }
  enqueueFiles(results, Array.from(files), parsed.opts, parsed.summary);
}

for (const input of [mode, key, context, dkLen]) input.addEventListener('input', refreshOptions);
$('hash-options').addEventListener('submit', (e) => e.preventDefault());
fileInput.addEventListener('change', () => {
  hash(fileInput.files);
  // Picking the same file again must hash it again.
  fileInput.value = '';
});
onDroppedFiles(dropZone, hash);

refreshOptions();
$('workers').textContent = String(defaultPoolSize());
$('backend').textContent = backend();
void ready().then(() => ($('backend').textContent = backend()));
