/// <reference types="vite/client" />

/** Versions of the peer libraries the benchmark page measures, read at build time. */
declare const __BENCH_PEERS__: readonly { name: string; version: string }[];
