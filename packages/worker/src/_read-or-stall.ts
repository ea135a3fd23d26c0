// A read of a Blob or File that the engine leaves pending for good (Chromium has been seen to)
// must fail rather than leave a hash waiting for ever (a live worker waiting on a read still
// answers liveness probes, so nothing else would notice).

/** A read that brings nothing for this long has stalled. */
export const STALL_MS = 30_000;

/** `read`, or a NotReadableError once it has brought nothing for `stallMs`. */
export function readOrStall<T>(read: Promise<T>, stallMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DOMException(`${what}: the engine delivered nothing for ${stallMs} ms`, 'NotReadableError')),
      stallMs,
    );
  });
  return Promise.race([read, stalled]).finally(() => clearTimeout(timer));
}
