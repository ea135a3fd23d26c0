import { prepare } from './_engine.js';
import { discardStore } from './_discard-store.js';
import type { DownloadOpts, SourceInput } from './download-options.js';
import type { LeafHashes } from './_leaf-hashes.js';
import type { GroupRun, StoredContent } from './store.js';

/** Bytes read back from the store per read, for groups stored before the stream started. */
const STORED_READ = 1 << 20;
/** Ranges that may start past the first group not yet read, per range in flight. */
const RUN_AHEAD = 2;

/**
 * `download()` as a stream: verified bytes in content order, each released as soon as it and
 * everything before it are verified. Ranges start at most a few ranges past what was read
 * (memory stays near `concurrency` x `rangeSize` x 2 whatever the size), so a reader that stops
 * reading stops the download. With `opts.store` the groups also go to the store, and groups it
 * held before are read back from it (checked again first); without one nothing is kept.
 *
 * Bad arguments throw now; the stream errors as `download()` rejects; cancelling it ends the
 * download.
 */
export function downloadStream(
  sources: SourceInput | readonly SourceInput[],
  opts: DownloadOpts,
): ReadableStream<Uint8Array> {
  const cancel = new AbortController();
  /** Verified bytes not yet read, by their first group. */
  const ready = new Map<number, Uint8Array>();
  let tree: { leaves: LeafHashes; stored: StoredContent; runs: readonly GroupRun[]; window: number } | undefined;
  /** The first group not yet read. */
  let next = 0;
  let state: 'running' | 'done' | { error: unknown } = 'running';
  let wakeReader: (() => void) | undefined;
  let wakeEngine: (() => void) | undefined;
  const notifyReader = () => {
    wakeReader?.();
    wakeReader = undefined;
  };
  const start = prepare(sources, opts, {
    defaultStore: discardStore,
    signal: cancel.signal,
    opened({ runs, stored, leaves, opts: o }) {
      tree = { leaves, stored, runs, window: o.concurrency * RUN_AHEAD * (o.rangeSize / leaves.groupBytes) };
      notifyReader();
    },
    verified(first, bytes) {
      // A copy: the download reads into `bytes` again once this returns.
      ready.set(first, bytes.slice());
      notifyReader();
    },
    // The final group comes first (it proves the size) and is small: it may always start.
    mayStart: (first) => tree === undefined || first === tree.leaves.groups - 1 || first < next + tree.window,
    wake: () => new Promise<void>((resolve) => (wakeEngine = resolve)),
  });
  const running = start().then(
    () => {
      state = 'done';
      notifyReader();
    },
    (error: unknown) => {
      state = { error };
      notifyReader();
    },
  );
  const release = async () => {
    await running;
    await tree?.stored.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (typeof state === 'object') throw state.error;
          if (tree) {
            const { leaves, stored, runs } = tree;
            if (next >= leaves.groups) {
              await release();
              return controller.close();
            }
            const bytes = ready.get(next);
            if (bytes !== undefined) {
              ready.delete(next);
              next += Math.max(1, Math.ceil(bytes.length / leaves.groupBytes));
              wakeEngine?.();
              if (bytes.length > 0) return controller.enqueue(bytes);
              continue;
            }
            const run = runs.find((r) => r.first <= next && next < r.first + r.count);
            if (run) {
              const n = Math.min(
                run.first + run.count - next,
                Math.max(1, Math.floor(STORED_READ / leaves.groupBytes)),
              );
              const from = next * leaves.groupBytes;
              const to = Math.min(leaves.size, (next + n) * leaves.groupBytes);
              next += n;
              wakeEngine?.();
              return controller.enqueue(await stored.read(from, to - from));
            }
          }
          await new Promise<void>((resolve) => (wakeReader = resolve));
        }
      },
      async cancel(reason) {
        cancel.abort(reason);
        await release();
      },
    },
    { highWaterMark: 0 },
  );
}
