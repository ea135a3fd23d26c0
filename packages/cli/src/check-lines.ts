// The lines of a check file, read as b3sum reads them (BufReader::read_line): split after each
// LF, each line valid UTF-8 or the whole check stops. Memory stays bounded whatever the file holds.

/** Longer than any line that can name a file: a path is under 4096 bytes (PATH_MAX), escaped at most 2x. */
export const MAX_LINE_BYTES: number = 64 << 10;

/** A line's text without its LF, or the mark of a line too long to name a file (its bytes are dropped). */
export type CheckFileLine = { text: string } | { tooLong: true };

/** Thrown for a line that is not UTF-8, with the message Rust's read_line gives. */
export class NotUtf8Error extends Error {
  constructor() {
    super('stream did not contain valid UTF-8');
  }
}

const CR = 0x0d;
const LF = 0x0a;

export async function* checkFileLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CheckFileLine> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  // CRs past the limit are kept as a count: trailing ones are dropped by the parser anyway.
  let extraCrs = 0;
  let validator: TextDecoder | undefined;
  const whole = new TextDecoder('utf-8', { fatal: true });
  const decode = (decoder: TextDecoder, bytes: Uint8Array, stream: boolean) => {
    try {
      return decoder.decode(bytes, { stream });
    } catch {
      throw new NotUtf8Error();
    }
  };
  const add = (piece: Uint8Array) => {
    if (validator === undefined && extraCrs === 0 && heldBytes + piece.length <= MAX_LINE_BYTES) {
      held.push(piece.slice());
      heldBytes += piece.length;
      return;
    }
    if (validator === undefined) {
      const room = Math.max(0, MAX_LINE_BYTES - heldBytes);
      const over = piece.subarray(extraCrs === 0 ? room : 0);
      if (over.every((b) => b === CR)) {
        if (extraCrs === 0) add(piece.subarray(0, room));
        extraCrs += over.length;
        return;
      }
      // Too long to name a file: only check that it is UTF-8, as reading it would.
      validator = new TextDecoder('utf-8', { fatal: true });
      for (const part of held) decode(validator, part, true);
      // One CR checks as many: ASCII, it ends any sequence before it the same way.
      if (extraCrs > 0) decode(validator, Uint8Array.of(CR), true);
      held = [];
      heldBytes = 0;
    }
    decode(validator, piece, true);
  };
  const end = (): CheckFileLine => {
    let line: CheckFileLine;
    if (validator !== undefined) {
      decode(validator, new Uint8Array(0), false);
      line = { tooLong: true };
    } else {
      line = { text: decode(whole, Buffer.concat(held, heldBytes), false) };
    }
    held = [];
    heldBytes = 0;
    extraCrs = 0;
    validator = undefined;
    return line;
  };
  let started = false;
  for await (const chunk of chunks) {
    let from = 0;
    for (let lf = chunk.indexOf(LF); lf >= 0; lf = chunk.indexOf(LF, from)) {
      // A line inside one chunk is read in place: no copy, no allocation outside the JS heap.
      if (!started && lf - from <= MAX_LINE_BYTES) {
        const text = decode(whole, chunk.subarray(from, lf), false);
        from = lf + 1;
        yield { text };
        continue;
      }
      add(chunk.subarray(from, lf));
      from = lf + 1;
      started = false;
      yield end();
    }
    if (from < chunk.length) (add(chunk.subarray(from)), (started = true));
  }
  if (started) yield end();
}
