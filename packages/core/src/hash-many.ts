import { abytes, describe } from './_assert.js';
import { toBytes, type Input } from './_bytes.js';
import { HasherState } from './_hasher-state.js';
import { resolveMode, type Blake3Opts } from './_options.js';
import { Output } from './_output.js';

function assertInputs(inputs: unknown): asserts inputs is readonly Input[] {
  if (!Array.isArray(inputs)) throw new TypeError(`inputs must be an array, got ${describe(inputs)}`);
}

let state: HasherState | undefined;
const output = new Output();

/**
 * Hashes each input into `out` at `i * dkLen`, after validating everything (so a bad input leaves
 * `out` untouched). One mode for the whole batch.
 */
function hashEach(inputs: readonly Input[], opts: Blake3Opts | undefined, out: Uint8Array | undefined): Uint8Array[] | undefined {
  const mode = resolveMode(opts);
  const bytes = inputs.map((x, i) => toBytes(x, `inputs[${i}]`));
  const s = (state ??= new HasherState());
  const digests: Uint8Array[] | undefined = out ? undefined : [];
  for (let i = 0; i < bytes.length; i++) {
    const d = out ? out.subarray(i * mode.dkLen, (i + 1) * mode.dkLen) : new Uint8Array(mode.dkLen);
    s.init(mode.key, mode.flags).finalizeWith(bytes[i], output).rootBytes(d);
    digests?.push(d);
  }
  return digests;
}

/**
 * The BLAKE3 of each of many inputs, in one call: `hashMany(xs, opts)[i]` equals `blake3(xs[i], opts)`.
 * For batches of small messages (records, Merkle leaves, cache keys).
 */
export function hashMany(inputs: readonly Input[], opts?: Blake3Opts): Uint8Array[] {
  assertInputs(inputs);
  return hashEach(inputs, opts, undefined)!;
}

/** Like hashMany, writing the digests one after another into `out`, which must hold `inputs.length * dkLen` bytes. */
export function hashManyInto(inputs: readonly Input[], out: Uint8Array, opts?: Blake3Opts): void {
  assertInputs(inputs);
  const bytes = abytes(out, 'out');
  const dkLen = resolveMode(opts).dkLen;
  if (bytes.length !== inputs.length * dkLen) {
    throw new RangeError(`out must be ${inputs.length * dkLen} bytes (${inputs.length} digests of ${dkLen}), got ${bytes.length}`);
  }
  hashEach(inputs, opts, bytes);
}
