/**
 * `hashSubtrees` of `@blake3-web/core/hazmat` computed by the official Rust crate (AVX-512, AVX2,
 * SSE4.1 or NEON, chosen at run time; one thread): the same arguments, the same checks and
 * errors, the same bytes.
 * @module
 */
import { abytes, auint, describe, viewBytes, isPlainBytes, aLiveBuffer } from '@blake3-web/core/_assert';
import { maxSubtreeLen, Mode, type SubtreeOpts } from '@blake3-web/core/hazmat';
import { loadAddon } from './_addon.js';

const CHUNK_LEN = 1024;
const OUT_LEN = 32;
const MAX_COUNTER = BigInt(Number.MAX_SAFE_INTEGER);
/** Marks a Mode of any copy of the core (mode.ts); its public `options` work across copies. */
const MODE_MARK = Symbol.for('@blake3-web/core/hazmat Mode');
const HASH = 0;
const KEYED = 1;
const DERIVE_KEY_MATERIAL = 2;

/** A surrogate not part of a pair: in a `u` regex a pair is one code point, not two surrogates. */
const LONE_SURROGATE = /\p{Surrogate}/u;

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

function toBytes(input: unknown, name: string): Uint8Array {
  if (isPlainBytes(input)) return input;
  if (typeof input === 'string') {
    const lone = LONE_SURROGATE.exec(input);
    if (lone !== null) {
      throw new TypeError(
        `${name} must be a well-formed string: a lone surrogate (at index ${lone.index}) has no UTF-8, got a string of length ${input.length}`,
      );
    }
    return new TextEncoder().encode(input);
  }
  if (ArrayBuffer.isView(input)) return viewBytes(input, name);
  if (
    input instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer)
  ) {
    aLiveBuffer(input, name);
    return new Uint8Array(input);
  }
  throw new TypeError(
    `${name} must be a Uint8Array, an ArrayBufferView, an ArrayBuffer or a string, got ${describe(input)}`,
  );
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
  const bytes = toBytes(input, 'input');
  const offset = auint(inputOffset, 'inputOffset');
  maxSubtreeLen(offset); // a multiple of 1024, else its RangeError
  const counter = offset / BigInt(CHUNK_LEN);
  if (counter > MAX_COUNTER) throw new RangeError(`inputOffset is too large, got ${inputOffset}`);
  const mode = modeOf(opts);
  const chunks = Number.isSafeInteger(subtreeLen) && subtreeLen > 0 ? subtreeLen / CHUNK_LEN : 0;
  if (!Number.isInteger(chunks) || chunks < 1 || (chunks & (chunks - 1)) !== 0 || chunks > 2 ** 30)
    throw new RangeError(`subtreeLen must be a power of two times ${CHUNK_LEN}, at most 2^40, got ${subtreeLen}`);
  if (counter % BigInt(chunks) !== 0n)
    throw new RangeError(`inputOffset must be a multiple of subtreeLen (${subtreeLen}), got ${inputOffset}`);
  if (bytes.length === 0) throw new RangeError('input must not be empty: empty subtrees are never valid');
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
  loadAddon().hashSubtreesInto(bytes, Number(counter), chunks, mode.kind, mode.key, into);
  return into.length === len ? into : into.subarray(0, len);
}
