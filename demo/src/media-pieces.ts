// How the Video page's service worker asks the CDN for the clip, in one place for the worker and
// for the tests that count what the CDN sends.

/** The most the worker asks the CDN for at once: 4 s of the demo clip. */
export const MEDIA_PIECE_BYTES = 256 * 1024;
/** Each piece is checked, and handed to the player, a window of this many bytes at a time. */
export const MEDIA_WINDOW_BYTES = 64 * 1024;
