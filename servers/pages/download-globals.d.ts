// What servers/pages/download.html puts on the page for the specs' in-page functions.
import type * as core from '@blake3-web/core';
import type * as download from '@blake3-web/download';

declare global {
  type DownloadRun = {
    sources: string[];
    root: string;
    size: number;
    salt?: number;
    /** A fresh memoryStore() instead of the default store. */
    memory?: boolean;
    rangeSize?: number;
    concurrency?: number;
    stallTimeout?: number;
    strategy?: 'fastest' | 'round-robin' | 'in-order';
  };
  type DownloadOutcome =
    | { ok: true; size: number; same: boolean }
    | {
        ok: false;
        name: string;
        message: string;
        failures: { url: string; dropped: boolean; faults: number }[] | null;
      };
  var blake3Download:
    | {
        core: typeof core;
        download: typeof download;
        /** Byte i is i % 251, XOR salt. */
        paint(size: number, salt?: number): Uint8Array;
        /** The files in the OPFS store's directory, sorted; null where the engine has no OPFS. */
        opfsFiles(directory?: string): Promise<string[] | null>;
        run(opts: DownloadRun): Promise<DownloadOutcome>;
        /**
         * One timed download (the benchmark's): 'verified' into `store`, or the ranges by fetch
         * alone: 'plain' (each body read whole), 'fresh' or 'reuse' (read in the download's
         * batches into a fresh or a reused buffer).
         */
        bench(opts: {
          variant: 'verified' | 'plain' | 'fresh' | 'reuse';
          sources: string[];
          root: string;
          size: number;
          concurrency: number;
          rangeSize: number;
          store?: 'memory' | 'opfs' | 'discard';
        }): Promise<{ ms: number; bytes: number }>;
        /** Whatever a spec keeps on the page between calls; `progress` is the latest download's. */
        state: { progress?: { verifiedBytes: number; totalBytes: number } | null } & Record<string, unknown>;
      }
    | undefined;
}

export {};
