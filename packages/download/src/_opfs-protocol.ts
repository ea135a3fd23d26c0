// What the page and the OPFS worker say to each other: types and one string, so both sides
// import it without pulling in the other's code.
import type { ContentShape, GroupRun, StoredDownloadInfo } from './store.js';

/** What the worker posts once it serves requests (before that, an 'error' event is a failed start). */
export const OPFS_READY = 'blake3-web/download: OPFS worker ready';

/** The calls, by name: arguments and result. `id` is a download the worker holds open. */
export type OpfsCalls = {
  open: [args: [directory: string, root: string, shape: ContentShape], result: { id: number; recorded: GroupRun[] }];
  /** The bytes come back (transferred both ways) to carry a later write. */
  write: [args: [id: number, offset: number, bytes: Uint8Array], result: Uint8Array];
  commit: [args: [id: number, runs: readonly GroupRun[]], result: void];
  rewriteRecord: [args: [id: number, runs: readonly GroupRun[]], result: void];
  read: [args: [id: number, offset: number, length: number], result: Uint8Array];
  readOutboard: [args: [id: number], result: Uint8Array | undefined];
  writeOutboard: [args: [id: number, outboard: Uint8Array], result: void];
  blob: [args: [id: number], result: File];
  close: [args: [id: number], result: void];
  list: [args: [directory: string], result: StoredDownloadInfo[]];
  remove: [args: [directory: string, root: string], result: boolean];
  /** Whether files can be kept here: the directory opens and files have sync access handles. */
  probe: [args: [directory: string], result: void];
};
export type OpfsCall = keyof OpfsCalls;

export type OpfsRequest = { [K in OpfsCall]: { seq: number; call: K; args: OpfsCalls[K][0] } }[OpfsCall];

/** An error as it crosses the boundary: its name decides the class it becomes again. */
export type CrossedError = { name: string; message: string; stack?: string };

export type OpfsResponse = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; error: CrossedError };
