// The Download page's map: one cell per 16 KiB group of the file, on a canvas sized to the file
// and to the page, coloured by what happened to the group last and by the mirror that served it.
// The counts beside it are kept from the same events, so what the map shows and what it counts
// never disagree.

import type { GroupEvent } from '@blake3-web/download';

const WAITING = 0;
const STORED = 1;
const FLIGHT = 2;
const VERIFIED = 3;
const REFUSED = 4;

export type MirrorCounts = { requested: number; verified: number; refused: number };
export type MapCounts = {
  groups: number;
  stored: number;
  /** Content bytes of the stored groups (the final group may be shorter than the others). */
  storedBytes: number;
  mirrors: MirrorCounts[];
};

/** The map's colours, read from the page's CSS (`--dl-mirror-0`, …) so the legend and map agree. */
type Palette = { waiting: string; stored: string; refused: string; again: string; mirrors: string[]; flight: string[] };

export class GroupMap {
  readonly #canvas: HTMLCanvasElement;
  readonly #groups: number;
  readonly #size: number;
  readonly #groupBytes: number;
  readonly #state: Uint8Array;
  readonly #mirror: Uint8Array;
  readonly #refusedBefore: Uint8Array;
  #counts: MapCounts;
  #palette: Palette | undefined;
  #drawing = false;

  /** A map of a file of `size` bytes in groups of `groupBytes`, served by `mirrors` mirrors. */
  constructor(canvas: HTMLCanvasElement, size: number, groupBytes: number, mirrors: number) {
    this.#canvas = canvas;
    this.#size = size;
    this.#groupBytes = groupBytes;
    this.#groups = Math.max(1, Math.ceil(size / groupBytes));
    this.#state = new Uint8Array(this.#groups);
    this.#mirror = new Uint8Array(this.#groups);
    this.#refusedBefore = new Uint8Array(this.#groups);
    this.#counts = this.#zero(mirrors);
    new ResizeObserver(() => this.#schedule()).observe(canvas);
    this.#schedule();
  }

  #zero(mirrors: number): MapCounts {
    return {
      groups: this.#groups,
      stored: 0,
      storedBytes: 0,
      mirrors: Array.from({ length: mirrors }, () => ({ requested: 0, verified: 0, refused: 0 })),
    };
  }

  /** Every group waiting again, every count zero (what was stored is gone). */
  reset(): void {
    this.#state.fill(WAITING);
    this.#refusedBefore.fill(0);
    this.#counts = this.#zero(this.#counts.mirrors.length);
    this.#schedule();
  }

  get counts(): MapCounts {
    return { ...this.#counts, mirrors: this.#counts.mirrors.map((m) => ({ ...m })) };
  }

  /** One event; `mirror` is the index of the mirror it names (undefined for stored groups). */
  apply(event: GroupEvent, mirror: number | undefined): void {
    const end = Math.min(this.#groups, event.first + event.count);
    const counts = mirror === undefined ? undefined : this.#counts.mirrors[mirror];
    switch (event.kind) {
      case 'stored':
        this.#counts.stored += end - event.first;
        this.#counts.storedBytes += Math.min(this.#size, end * this.#groupBytes) - event.first * this.#groupBytes;
        this.#state.fill(STORED, event.first, end);
        break;
      case 'requested':
        if (counts) counts.requested += event.count;
        this.#state.fill(FLIGHT, event.first, end);
        this.#mirror.fill(mirror ?? 0, event.first, end);
        break;
      case 'verified':
        if (counts) counts.verified += event.count;
        this.#state.fill(VERIFIED, event.first, end);
        this.#mirror.fill(mirror ?? 0, event.first, end);
        break;
      case 'refused':
        // The rest of a range the mirror failed: asked of another mirror next.
        if (counts) counts.refused += event.count;
        this.#state.fill(REFUSED, event.first, end);
        this.#refusedBefore.fill(1, event.first, end);
        break;
    }
    this.#schedule();
  }

  /** Groups left as in flight by a download that ended (paused or failed) are waiting again. */
  settle(): void {
    for (let g = 0; g < this.#groups; g++) if (this.#state[g] === FLIGHT) this.#state[g] = WAITING;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#drawing) return;
    this.#drawing = true;
    requestAnimationFrame(() => {
      this.#drawing = false;
      this.#draw();
    });
  }

  /** Columns twice the rows (a wide band), cells square, the whole file in the canvas's width. */
  #draw(): void {
    const canvas = this.#canvas;
    const width = canvas.clientWidth;
    if (width === 0) return;
    const ratio = devicePixelRatio || 1;
    const cols = Math.max(1, Math.ceil(Math.sqrt(this.#groups * 2)));
    const rows = Math.ceil(this.#groups / cols);
    const cell = width / cols;
    const height = Math.max(1, Math.ceil(rows * cell));
    canvas.style.height = `${height}px`;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const palette = (this.#palette ??= readPalette(canvas, this.#counts.mirrors.length));
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = palette.waiting;
    ctx.fillRect(0, 0, width, height);
    // Cells a hair wider than their share, so no seams show between them.
    const size = cell + 0.5 / ratio;
    const inset = cell / 4;
    for (let g = 0; g < this.#groups; g++) {
      const state = this.#state[g];
      if (state === WAITING) continue;
      const x = (g % cols) * cell;
      const y = Math.floor(g / cols) * cell;
      const m = this.#mirror[g];
      ctx.fillStyle =
        state === STORED
          ? palette.stored
          : state === FLIGHT
            ? palette.flight[m]
            : state === REFUSED
              ? palette.refused
              : palette.mirrors[m];
      ctx.fillRect(x, y, size, size);
      if (state === VERIFIED && this.#refusedBefore[g]) {
        ctx.fillStyle = palette.again;
        ctx.fillRect(x + inset, y + inset, cell - 2 * inset, cell - 2 * inset);
      }
    }
  }
}

function readPalette(canvas: HTMLCanvasElement, mirrors: number): Palette {
  const style = getComputedStyle(canvas);
  const color = (name: string) => style.getPropertyValue(name).trim() || '#888';
  return {
    waiting: color('--dl-waiting'),
    stored: color('--dl-stored'),
    refused: color('--dl-refused'),
    again: color('--dl-again'),
    mirrors: Array.from({ length: mirrors }, (_, i) => color(`--dl-mirror-${i}`)),
    flight: Array.from({ length: mirrors }, (_, i) => color(`--dl-flight-${i}`)),
  };
}
