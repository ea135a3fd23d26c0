/**
 * What the pool and its workers say to each other through comlink. Types and one constant:
 * both sides can import it without pulling in the other's code.
 */
import type { Blake3Opts } from '@blake3-web/core';

/** A file on disk as the main thread saw it when the hash started (Node only). */
export type FileSnapshot = {
  readonly path: string;
  readonly size: number;
  /** Modification time in ns; a worker that sees another one knows the file changed. */
  readonly mtimeNs: bigint;
  /**
   * Which file it is: a worker opens the path anew, and another file renamed over it (same size
   * and mtime, as `cp -p`, `rsync -t` or `tar x` leave them) has another device or inode.
   */
  readonly dev: bigint;
  readonly ino: bigint;
};

/** Where a task's bytes come from. */
export type TaskSource =
  /** A Blob the worker slices and reads itself: structured clone shares it, nothing is copied. */
  | {
      readonly kind: 'blob';
      readonly blob: Blob;
      /** Its size when the hash started: a Blob that now says otherwise is not the one planned for. */
      readonly size: number;
    }
  /** Bytes the main thread already read, transferred (Node: file-backed Blobs cannot be posted). */
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  /** A file the worker opens and reads with fs (Node). */
  | { readonly kind: 'file'; readonly file: FileSnapshot };

/** One task: hash bytes [start, end) of the source's input. */
export type HashTask = {
  readonly source: TaskSource;
  /** Where the range starts in the whole input (for 'bytes', the bytes are that range already). */
  readonly start: number;
  readonly end: number;
  /**
   * 'subtree': the 32-byte non-root chaining value of a subtree starting at `start`.
   * 'root': the hash of the whole input (start is 0, end is its length), `opts.dkLen` bytes.
   */
  readonly output: 'subtree' | 'root';
  /** The mode (key or context), and dkLen for 'root'. */
  readonly opts: Blake3Opts;
};

/**
 * What a browser worker posts once it serves requests: the pool's proof that its default worker
 * started (its script loaded and ran), as opposed to an 'error' event from a script that did not.
 * comlink ignores it (it has no id).
 */
export const WORKER_READY = 'blake3-web/worker: ready';

/** The worker's whole surface. */
export interface WorkerApi {
  hashRange(task: HashTask): Promise<Uint8Array>;
  /** Answers as soon as the worker's event loop is free: the pool's liveness probe. */
  ping(): 'pong';
}
