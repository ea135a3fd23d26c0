import { bytesToHex, CHUNK_LEN } from '@blake3-web/core';
import { baoOutboardSize, IntegrityError } from '@blake3-web/stream';
import { HEADER_LEN, proveOutboard, readLengthHeader, type ProvenTree } from '@blake3-web/stream/_internal';
import { anInteger, describe } from './_assert.js';
import { ByteReader } from './byte-reader.js';
import type { Fetch } from './fetch-option.js';

/** The largest outboard fetched by default: 64 MiB, the outboard of about 1 GiB of content. */
const DEFAULT_MAX_OUTBOARD = 64 * 1024 * 1024;

/** `opts.maxOutboardBytes`: at least a length header. */
export function maxOutboardOption(value: unknown): number {
  return value === undefined
    ? DEFAULT_MAX_OUTBOARD
    : anInteger(value, 'opts.maxOutboardBytes', HEADER_LEN, Number.MAX_SAFE_INTEGER);
}

/** Where an outboard is: its bytes, or a URL or a Request to fetch it from. */
export type OutboardSource = Uint8Array | RequestInfo | URL;

/** An outboard source (`name` says where it came from). */
export function anOutboardSource(value: unknown, name: string): OutboardSource {
  if (value instanceof Uint8Array || typeof value === 'string' || value instanceof URL || value instanceof Request)
    return value;
  throw new TypeError(`${name} must be a Uint8Array, a URL or a Request, got ${describe(value)}`);
}

/**
 * The outboard, not the content, is what does not match: it does not prove the hash, or its
 * header claims a length the content's final chunk does not have. An IntegrityError like any
 * mismatch, told apart so that the outboard is refused and the content is not blamed.
 */
export class OutboardMismatch extends IntegrityError {}

/** An outboard arrived from the network: a bad one is an OutboardMismatch. */
function badOutboard(hash: Uint8Array): (why: string) => IntegrityError {
  return (why) => new OutboardMismatch(bytesToHex(hash), '', `the Bao outboard ${why}`);
}

/** An outboard's bytes and what proving them whole against the hash gave. */
export type CheckedOutboard = { bytes: Uint8Array; tree: ProvenTree };

/** Outboards given as bytes, proven once per array and hash. */
const provenGiven = new WeakMap<Uint8Array, { hex: string; tree: ProvenTree }>();

/**
 * The outboard proven whole against `hash` (every parent, `proveOutboard`), before any content
 * is checked with it: a mismatch after this is the content's. An OutboardMismatch otherwise.
 * Bytes given are proven once per array (what was proven stays true if the array changes later:
 * the slices cut from it are checked against the hash again).
 */
export function checkOutboard(bytes: Uint8Array, hash: Uint8Array, given = false): CheckedOutboard {
  const hex = bytesToHex(hash);
  const known = given ? provenGiven.get(bytes) : undefined;
  if (known?.hex === hex) return { bytes, tree: known.tree };
  const tree = proveOutboard(bytes, hash, CHUNK_LEN, badOutboard(hash));
  if (given) provenGiven.set(bytes, { hex, tree });
  return { bytes, tree };
}

/**
 * The outboard given, or fetched from where it is (checked by anOutboardSource), at most
 * `maxBytes` of it, proven whole against `hash` (`checkOutboard`).
 */
export async function provenOutboard(
  outboard: OutboardSource,
  doFetch: Fetch,
  hash: Uint8Array,
  maxBytes: number,
): Promise<CheckedOutboard> {
  if (outboard instanceof Uint8Array) return checkOutboard(outboard, hash, true);
  const res = await doFetch(outboard);
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(
      `the Bao outboard ${res.url || String(outboard)} answered ${res.status} ${res.statusText}`.trimEnd(),
      { cause: res },
    );
  }
  return checkOutboard(await readOutboard(new ByteReader(res.body), hash, maxBytes), hash);
}

/**
 * Reads an outboard body: its header, then exactly the size that header calls for, then one
 * more byte, which must not be there. Never more, whatever the server sends.
 */
async function readOutboard(body: ByteReader, hash: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const bad = badOutboard(hash);
  try {
    const header = await body.read(HEADER_LEN);
    const claimed = readLengthHeader(header, bad);
    const size = baoOutboardSize(claimed);
    if (size > maxBytes)
      throw new RangeError(
        `the Bao outboard claims ${claimed} content bytes, whose ${size}-byte outboard exceeds opts.maxOutboardBytes (${maxBytes})`,
      );
    const outboard = new Uint8Array(size);
    outboard.set(header);
    const rest = await body.read(size - HEADER_LEN + 1);
    if (rest.length < size - HEADER_LEN)
      throw bad(`ended after ${HEADER_LEN + rest.length} bytes; its header calls for ${size}`);
    if (rest.length > size - HEADER_LEN) throw bad(`goes on past the ${size} bytes its header calls for`);
    outboard.set(rest, HEADER_LEN);
    return outboard;
  } finally {
    await body.cancel();
  }
}
