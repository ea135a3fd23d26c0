/// <reference types="vite/client" />

/** Versions of the peer libraries the benchmark page measures, read at build time. */
declare const __BENCH_PEERS__: readonly { name: string; version: string }[];

/** True in the build for a static host (`BLAKE3_DEMO_STATIC=1`, see site-shell.ts): no demo server behind the pages. */
declare const __DEMO_STATIC__: boolean;
