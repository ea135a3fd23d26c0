// The playground's output settings: how many bytes, and from which position of the output (XOF).
export type ParsedXof = { ok: true; length: number; seek: bigint } | { ok: false; error: string };

export const MAX_XOF_BYTES = 1024;
/** An output position is a 64-bit counter of bytes: the last byte read must fit too. */
const SEEK_LIMIT = 2n ** 64n;

export function parseXof(lengthText: string, seekText: string): ParsedXof {
  const length = Number(lengthText);
  if (!Number.isInteger(length) || length < 1 || length > MAX_XOF_BYTES)
    return { ok: false, error: `Output length must be a whole number of bytes from 1 to ${MAX_XOF_BYTES}.` };
  const seekDigits = seekText.trim();
  if (!/^\d+$/.test(seekDigits))
    return { ok: false, error: 'The seek position must be a whole number of bytes (0 or more).' };
  const seek = BigInt(seekDigits);
  if (seek + BigInt(length) > SEEK_LIMIT)
    return {
      ok: false,
      error: `The output ends past byte 2^64: seek at most ${SEEK_LIMIT - BigInt(length)} for ${length} bytes.`,
    };
  return { ok: true, length, seek };
}
