// What the demo's media.json says about the Video page's clip. Types only: the CDN (media-cdn.ts)
// writes it, the page reads it.

export type MediaInfo = {
  /**
   * The clip's URL on the CDN: its BLAKE3 root is part of the path, the outboard is at
   * `<url>.obao`. A viewer adds `?s=<session>` to both (and to `controlUrl`).
   */
  url: string;
  root: string;
  size: number;
  /** The content byte the 'flip' mode changes. */
  flipAt: number;
  /** The content bytes [start, end) the 'stale' mode serves from the previous version. */
  stale: { start: number; end: number };
  controlUrl: string;
};
