// A TypeScript user of every published entry point, compiled under each moduleResolution (lib
// WebWorker: the workbox plugin's types need a service worker's globals).
import { backend, blake3, bytesToHex, ready, type Backend, type ReadyOptions } from '@blake3-web/core';
import { hashSubtree, mergeSubtreesRoot } from '@blake3-web/core/hazmat';
import kernel from '@blake3-web/core/kernel.wasm';
import { createPool, hashFile } from '@blake3-web/worker';
import '@blake3-web/worker/worker';
import { Blake3Stream, verifyResponse } from '@blake3-web/stream';
import { Blake3IntegrityPlugin } from '@blake3-web/workbox';
import { main } from '@blake3-web/cli';

const options: ReadyOptions = { module: kernel };
const active: Backend = backend();
const hex: string = bytesToHex(blake3('abc', { dkLen: 64 }));
const left: Uint8Array = hashSubtree(new Uint8Array(1024), 0);
const root: Uint8Array = mergeSubtreesRoot(left, left);
const digest: Promise<Uint8Array> = new Blake3Stream().digest;

export const used = [
  options,
  active,
  hex,
  root,
  digest,
  ready(options),
  createPool,
  hashFile,
  verifyResponse,
  Blake3IntegrityPlugin,
  main,
] as const;
