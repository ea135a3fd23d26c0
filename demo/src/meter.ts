// The progress meter every long operation shows: a full-width bar, its label, the percentage
// done and the speed so far (the .meter component of style.css).
import { formatBytes, formatPercent, formatSpeed } from './format.ts';

export type Tone = 'ok' | 'bad' | 'warn' | 'busy' | 'info';

export interface Meter {
  readonly el: HTMLElement;
  readonly progress: HTMLProgressElement;
  /**
   * Shows `done` of `total` bytes, and the speed when the time since the start is given:
   * `done - base` bytes in `ms` (`base`: what was done before the start, as in a resumed upload).
   */
  update(done: number, total: number, ms?: number, base?: number): void;
  /** The bar's colour after the end: success or failure (the text beside it says which). */
  settle(tone: Tone | undefined): void;
  /** A note in place of the numbers, e.g. while nothing can be counted yet. */
  note(text: string): void;
}

/** Binds a meter already in the page: `.meter` holding a `progress` and a `.meter-text`. */
export function bindMeter(el: HTMLElement): Meter {
  const progress = el.querySelector('progress')!;
  const text = el.querySelector<HTMLElement>('.meter-text')!;
  return {
    el,
    progress,
    update(done, total, ms, base = 0) {
      progress.max = 1;
      progress.value = total > 0 ? Math.min(1, done / total) : 1;
      const parts = [formatPercent(done, total), `${formatBytes(done)} of ${formatBytes(total)}`];
      if (ms !== undefined && ms > 0 && done > base) parts.push(formatSpeed(done - base, ms));
      text.textContent = parts.join(' · ');
    },
    settle(tone) {
      if (tone) el.dataset.tone = tone;
      else delete el.dataset.tone;
    },
    note(t) {
      text.textContent = t;
    },
  };
}

/** A new meter labelled `label`; `id` names its progress element. */
export function createMeter(label: string, id: string): Meter {
  const el = document.createElement('div');
  el.className = 'meter';
  const head = document.createElement('div');
  head.className = 'meter-head';
  const name = document.createElement('label');
  name.className = 'meter-label';
  name.htmlFor = id;
  name.textContent = label;
  const text = document.createElement('span');
  text.className = 'meter-text';
  text.textContent = '0%';
  head.append(name, text);
  const progress = document.createElement('progress');
  progress.id = id;
  progress.max = 1;
  progress.value = 0;
  el.append(head, progress);
  return bindMeter(el);
}
