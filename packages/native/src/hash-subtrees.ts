/**
 * `hashSubtrees` of `@blake3-web/core/hazmat` computed by the official Rust crate (AVX-512, AVX2,
 * SSE4.1 or NEON, chosen at run time; one thread): the same arguments, the same checks and
 * errors, the same bytes.
 * @module
 */
import { abytes } from '@blake3-web/core/_assert';
import { subtreesArgs } from '@blake3-web/core/_subtree-args';
import { Mode, type SubtreeOpts } from '@blake3-web/core/hazmat';
import { loadAddon } from './_addon.js';

const OUT_LEN = 32;
/** Marks a Mode of any copy of the core (mode.ts); its public `options` work across copies. */
const MODE_MARK = Symbol.for('@blake3-web/core/hazmat Mode');
const HASH = 0;
const KEYED = 1;
const DERIVE_KEY_MATERIAL = 2;

type NativeMode = { kind: number; key: Uint8Array };
const PLAIN: NativeMode = { kind: HASH, key: new Uint8Array(32) };
/** A Mode's native form, made once per Mode: a context is hashed into its key once. */
const modes = new WeakMap<object, NativeMode>();

function nativeOf(mode: Mode): NativeMode {
  let m = modes.get(mode);
  if (m === undefined) {
    const { key, context } = mode.options;
    if (key !== undefined) m = { kind: KEYED, key: Uint8Array.from(key) };
    else if (context !== undefined) m = { kind: DERIVE_KEY_MATERIAL, key: loadAddon().contextKey(context) };
    else m = PLAIN;
    modes.set(mode, m);
  }
  return m;
}

function modeOf(opts: unknown): NativeMode {
  if (opts === undefined) return PLAIN;
  if (opts instanceof Mode || (typeof opts === 'object' && opts !== null && MODE_MARK in opts)) {
    return nativeOf(opts as Mode);
  }
  if (typeof opts === 'object' && opts !== null && (opts as SubtreeOpts & { dkLen?: unknown }).dkLen !== undefined) {
    throw new TypeError('hashSubtrees returns a 32-byte chaining value: opts.dkLen is not accepted');
  }
  // The core checks the options (key XOR context, their types and lengths).
  return nativeOf(new Mode(opts as SubtreeOpts));
}

/**
 * The non-root chaining values of the consecutive subtrees of `subtreeLen` bytes that make up
 * `input` (the last may be shorter), the first starting at byte `inputOffset` of the whole input:
 * 32 bytes each, in order. `subtreeLen` is a power of two times 1024, and `inputOffset` a
 * multiple of it. With `out`, the values are written there (it must hold 32 bytes per subtree)
 * and its first bytes are returned; else into a new array.
 */
export function hashSubtrees(
  input: Uint8Array | ArrayBufferView | ArrayBufferLike | string,
  inputOffset: number | bigint,
  subtreeLen: number,
  opts?: SubtreeOpts | Mode,
  out?: Uint8Array,
): Uint8Array {
  const [bytes, firstChunk, subtreeChunks, mode] = subtreesArgs(input, inputOffset, subtreeLen, opts, modeOf);
  const len = OUT_LEN * Math.ceil(bytes.length / subtreeLen);
  let into: Uint8Array;
  if (out === undefined) into = new Uint8Array(len);
  else {
    into = abytes(out, 'out');
    if (into.length < len) throw new RangeError(`out must hold at least ${len} bytes, got ${into.length}`);
    if (
      into.buffer === bytes.buffer &&
      into.byteOffset < bytes.byteOffset + bytes.length &&
      bytes.byteOffset < into.byteOffset + len
    )
      throw new RangeError('out must not overlap input');
  }
  loadAddon().hashSubtreesInto(bytes, firstChunk, subtreeChunks, mode.kind, mode.key, into);
  return into.length === len ? into : into.subarray(0, len);
}
