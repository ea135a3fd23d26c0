#!/usr/bin/env node
// Renames the properties of the package's internal objects in dist (run after tsc): the hasher
// state, nodes, kernel tables and the module writer. Bundlers leave property names as written,
// so these names were most of what minifying could not shorten (about 200 bytes gzipped of
// `{ blake3 }`). Only names no public type, option or WebAssembly export uses are listed: the
// renaming is by name across every file of dist, and the declarations get the same names so that
// they still describe the JavaScript. Sources and their tests keep the readable names.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const INTERNAL = [
  // HasherState
  'init',
  'copyFrom',
  'chunkCounter',
  'initialChunkCounter',
  'cvStack',
  'cvStackLen',
  'singleChunkDigest',
  'finalize',
  'finalizeWith',
  // Node and Output (KernelNode)
  'cv',
  'block',
  'block8',
  'counter',
  'blockLen',
  'flags',
  'setChunk',
  'setParent',
  'chainingValue',
  'rootWords',
  'rootBytes',
  'rootBytesAt',
  // Kernels (not `chunks` or `name`: the kernel's exports and the backend's name are read by those names)
  'singleChunk',
  'rootBlocks',
  // ManyJobs
  'inputLen',
  'maxJobs',
  'maxMessages',
  'cvSlots',
  'inputParent',
  'moveCv',
  'outputInto',
  'outputs',
  // The module writer: FunctionBody (not `get`, `set`, `encode`: typed arrays and TextEncoder have them), Template, FuncDef, KernelOptions
  'local',
  'locals',
  'op',
  'br',
  'tee',
  'i32',
  'mem',
  'simd',
  'simdMem',
  'v128i32x4',
  'shuffle',
  'replay',
  'template',
  'code',
  'slots',
  'body',
  'arity',
  'scalar',
  'order',
  'rotate',
];

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const src = fileURLToPath(new URL('../src/', import.meta.url));
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => `${e.parentPath}/${e.name}`.replace(/\/+/g, '/'));

// What tsc just wrote: a file of an earlier build whose source is gone (tsc leaves it) would
// import names that no longer exist.
const emitted = (f) => existsSync(src + f.slice(dist.length).replace(/\.(js|d\.ts)$/, '.ts'));
const entryPoints = files(dist).filter((f) => f.endsWith('.js') && emitted(f));
const mangleProps = new RegExp(`^(${INTERNAL.join('|')})$`);
// One name per property across every file: a build of files one by one would pick names per
// file, so the names come from a bundle of them all first.
const { mangleCache } = await build({
  entryPoints,
  outdir: dist,
  bundle: true,
  write: false,
  mangleProps,
  mangleCache: {},
});
const missing = INTERNAL.filter((name) => typeof mangleCache[name] !== 'string');
if (missing.length > 0) throw new Error(`internal names not found in dist: ${missing.join(', ')}`);
await build({
  entryPoints,
  outdir: dist,
  outbase: dist,
  allowOverwrite: true,
  format: 'esm',
  target: 'es2022',
  sourcemap: true,
  sourcesContent: false,
  mangleProps,
  mangleCache,
  logLevel: 'warning',
});

// The declarations name the same properties as the JavaScript.
const renamed = Object.entries(mangleCache);
// Members only (a line of their own in tsc's declarations), not parameters of the same name.
const pattern = new RegExp(
  `^(\\s+(?:readonly |static |get |set )*)(${renamed.map(([from]) => from).join('|')})(?=\\??[(:<])`,
  'gm',
);
const to = Object.fromEntries(renamed);
for (const file of files(dist).filter((f) => f.endsWith('.d.ts') && emitted(f))) {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(pattern, (_, head, name) => head + to[name]);
  if (next !== text) writeFileSync(file, next);
}
