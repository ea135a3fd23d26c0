// The one guard on every read: of a Blob or File (a stream read, a slice's arrayBuffer(), on a
// worker or the calling thread) and of a file by path in Node. A read that the engine or the file
// system leaves pending for good (Chromium has been seen to) must fail rather than leave a hash or
// an upload waiting for ever: a live worker waiting on a read still answers liveness probes, and
// a read on the calling thread has no probe at all, so nothing else would notice.

/** A read that brings nothing for this long has stalled. */
export const STALL_MS = 30_000;

/**
 * `read`, or a NotReadableError once it has brought nothing for `stallMs`. `what` says which read
 * it was, `from` what should have delivered it.
 */
export function readOrStall<T>(read: Promise<T>, stallMs: number, what: string, from = 'the engine'): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DOMException(`${what}: ${from} delivered nothing for ${stallMs} ms`, 'NotReadableError')),
      stallMs,
    );
  });
  return Promise.race([read, stalled]).finally(() => clearTimeout(timer));
}
