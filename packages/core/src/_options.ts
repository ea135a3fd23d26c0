import { abytes, anOutputLen, describe } from './_assert.js';
import { utf8, wordsFromBytes } from './_bytes.js';
import { DERIVE_KEY_CONTEXT, DERIVE_KEY_MATERIAL, IV, KEYED_HASH, KEY_LEN, OUT_LEN } from './_constants.js';
import { HasherState } from './_hasher-state.js';
import { Output } from './_output.js';

export type Blake3Opts = {
  /** Output length in bytes (default 32), at most 2^30; longer outputs come from `reader()`. */
  dkLen?: number;
  /** 32-byte key: keyed hashing (a MAC). */
  key?: Uint8Array;
  /** derive_key context string: a hardcoded, globally unique, application-specific string. */
  context?: string;
};

/** A mode of BLAKE3 resolved from options: the key words and flags every compression of the hash uses, and the output length. */
export type ResolvedMode = { readonly key: Uint32Array; readonly flags: number; readonly dkLen: number };

const IV_WORDS = Uint32Array.from(IV);
/** The mode without options, shared: resolving it allocates nothing. */
const DEFAULT_MODE: ResolvedMode = { key: IV_WORDS, flags: 0, dkLen: OUT_LEN };
let lastContext: { context: string; key: Uint32Array } | undefined;

/** Validates options and resolves them into a mode; `what` names the options in messages. */
export function resolveMode(opts: unknown, what = 'opts'): ResolvedMode {
  if (opts === undefined) return DEFAULT_MODE;
  if (typeof opts !== 'object' || opts === null)
    throw new TypeError(`${what} must be an object, got ${describe(opts)}`);
  const { dkLen, key, context } = opts as Blake3Opts;
  const outLen = dkLen === undefined ? OUT_LEN : anOutputLen(dkLen, `${what}.dkLen`);
  if (key !== undefined && context !== undefined) {
    throw new TypeError(`${what}.key and ${what}.context cannot be used together: choose keyed hashing or derive_key`);
  }
  if (key !== undefined) {
    return { key: wordsFromBytes(abytes(key, `${what}.key`, KEY_LEN)), flags: KEYED_HASH, dkLen: outLen };
  }
  if (context !== undefined) {
    if (typeof context !== 'string') throw new TypeError(`${what}.context must be a string, got ${describe(context)}`);
    return { key: contextKey(context, `${what}.context`), flags: DERIVE_KEY_MATERIAL, dkLen: outLen };
  }
  return { key: IV_WORDS, flags: 0, dkLen: outLen };
}

/** The derive_key context key: the context string hashed in DERIVE_KEY_CONTEXT mode (cached once). */
function contextKey(context: string, name: string): Uint32Array {
  if (lastContext?.context === context) return lastContext.key;
  const state = new HasherState().init(IV_WORDS, DERIVE_KEY_CONTEXT);
  state.update(utf8(context, name));
  const bytes = new Uint8Array(KEY_LEN);
  state.finalize(new Output()).rootBytes(bytes);
  const key = wordsFromBytes(bytes);
  lastContext = { context, key };
  return key;
}
