/**
 * `Mode`: a mode of BLAKE3 resolved once, which every hazmat function and the chaining-value
 * stack take in place of options (re-exported by `@blake3-web/core/hazmat`).
 * @module
 */
import { wordsToBytes } from './_bytes.js';
import { DERIVE_KEY_MATERIAL, KEY_LEN, KEYED_HASH } from './_constants.js';
import { resolveMode, type Blake3Opts, type ResolvedMode } from './_options.js';

/** A Mode's resolved mode, which only the core reads (set by the class's static block). */
let resolvedMode: (mode: Mode) => ResolvedMode;
/**
 * Marks a Mode of any copy of this module. Another copy's Mode (two bundles, a second install)
 * fails `instanceof` and, read as options, would be the plain hash mode without a word: it is
 * refused instead.
 */
const MODE_MARK = Symbol.for('@blake3-web/core/hazmat Mode');

/**
 * A mode of BLAKE3 resolved once (the Rust crate's `Mode`): options checked, a key turned into
 * words, a context hashed into its derive_key context key (`hash_derive_key_context`). Every
 * hazmat function takes one in place of options. Its `dkLen` is the length of the hash
 * `mergeSubtreesRoot` and a stack's `digest` give; the functions that return chaining values use
 * its key and flags only.
 */
export class Mode {
  readonly #mode: ResolvedMode;
  readonly #context: string | undefined;

  /**
   * Reads `key`, `context` and `dkLen` of `opts`, which may hold other fields too (a caller's
   * own options): the one place that picks a mode out of options and holds it to key XOR context.
   */
  constructor(opts?: Blake3Opts) {
    this.#mode = resolveMode(opts);
    if (this.#mode.flags === DERIVE_KEY_MATERIAL) this.#context = opts!.context;
  }

  /**
   * The options this mode was made from, as plain data (structured-clone and JSON safe but for
   * the key's bytes): `{ key }`, `{ context }` or neither, and `dkLen`. What to hand to another
   * thread, which makes its own Mode of them. A fresh copy each time.
   */
  get options(): Blake3Opts {
    const { key, flags, dkLen } = this.#mode;
    if (flags === KEYED_HASH) {
      const bytes = new Uint8Array(KEY_LEN);
      wordsToBytes(key, 0, bytes, 0, KEY_LEN);
      return { key: bytes, dkLen };
    }
    if (this.#context !== undefined) return { context: this.#context, dkLen };
    return { dkLen };
  }

  /** The output length of the root hash, in bytes. */
  get dkLen(): number {
    return this.#mode.dkLen;
  }

  static {
    resolvedMode = (m) => m.#mode;
    // On the prototype, as a getter would be, but out of the class's declared shape.
    Object.defineProperty(Mode.prototype, MODE_MARK, { value: true });
  }
}

/** The mode of options or a Mode; `fn`, when given, returns a chaining value and refuses opts.dkLen. */
export function modeOf(opts: unknown, fn?: string): ResolvedMode {
  if (opts instanceof Mode) return resolvedMode(opts);
  if (typeof opts === 'object' && opts !== null && MODE_MARK in opts) {
    throw new TypeError(
      'opts is a Mode made by another copy of @blake3-web/core: pass the options, or a Mode of this copy',
    );
  }
  if (fn !== undefined && typeof opts === 'object' && opts !== null && (opts as Blake3Opts).dkLen !== undefined) {
    throw new TypeError(`${fn} returns a 32-byte chaining value: opts.dkLen is not accepted`);
  }
  return resolveMode(opts);
}
