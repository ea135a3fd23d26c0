/**
 * The official BLAKE3 vectors run against any implementation: every case's input length, every
 * mode (hash, keyed_hash, derive_key), output lengths 0, 1, 32 and 131. An implementation is a
 * hash (one input, or all inputs of a mode and output length at once, for a tool that takes many
 * files per run) or a verifier, which must accept the official digest and refuse it with one bit
 * flipped.
 *
 * Self-contained (no imports, no outer names) so that the e2e specs can send its source text to
 * a page and run it in every engine; the vectors travel as an argument.
 */
export type ConformanceMode = 'hash' | 'keyed_hash' | 'derive_key';

/** One mode and output length; `key` is set for keyed_hash, `context` for derive_key. */
export type ConformanceRequest = { mode: ConformanceMode; key?: Uint8Array; context?: string; outputLength: number };

/** A digest as bytes or hex. */
export type ConformanceDigest = Uint8Array | string;

export type ConformanceTarget =
  | {
      hash(input: Uint8Array<ArrayBuffer>, request: ConformanceRequest): ConformanceDigest | Promise<ConformanceDigest>;
    }
  | { hashAll(inputs: Uint8Array<ArrayBuffer>[], request: ConformanceRequest): Promise<ConformanceDigest[]> }
  | {
      /** True when `expected` is the digest of `input`; false (or a rejection) when it is not. */
      verify(
        input: Uint8Array<ArrayBuffer>,
        request: ConformanceRequest,
        expected: Uint8Array<ArrayBuffer>,
      ): boolean | Promise<boolean>;
    };

export type ConformanceOptions = {
  /** The modes the implementation offers (default: all three). */
  modes?: readonly ConformanceMode[];
  /** Output lengths to check (default 0, 1, 32 and 131); a verifier refuses an empty digest. */
  outputLengths?: readonly number[];
};

/** `planned` checks, `passed` of them right; `failures` says which were not, one line each. */
export type ConformanceReport = { planned: number; passed: number; failures: string[] };

/** The shape of the official vectors file. */
export type ConformanceVectors = {
  key: string;
  context_string: string;
  cases: { input_len: number; hash: string; keyed_hash: string; derive_key: string }[];
};

export async function conformanceSuite(
  vectors: ConformanceVectors,
  target: ConformanceTarget,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const modes = options.modes ?? ['hash', 'keyed_hash', 'derive_key'];
  const outputLengths = options.outputLengths ?? [0, 1, 32, 131];
  const toHex = (d: ConformanceDigest) =>
    typeof d === 'string' ? d.toLowerCase() : Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
  const fromHex = (hex: string) => {
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return out;
  };
  // The vectors' input: bytes 0, 1, ..., 250, 0, 1, ...; a fresh copy per call, which a target may keep or transfer.
  const input = (length: number) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = i % 251;
    return out;
  };
  const why = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  const report: ConformanceReport = { planned: 0, passed: 0, failures: [] };

  for (const mode of modes) {
    for (const outputLength of outputLengths) {
      const request: ConformanceRequest = { mode, outputLength };
      if (mode === 'keyed_hash') request.key = new TextEncoder().encode(vectors.key);
      if (mode === 'derive_key') request.context = vectors.context_string;
      const label = (len: number) => `${mode}, input ${len} bytes, output ${outputLength} bytes`;
      const expected = vectors.cases.map((c) => c[mode].slice(0, 2 * outputLength));
      report.planned += vectors.cases.length;
      const compare = (i: number, got: ConformanceDigest | undefined) => {
        const hex = got === undefined ? 'nothing' : toHex(got);
        if (hex === expected[i]) report.passed++;
        else report.failures.push(`${label(vectors.cases[i].input_len)}: expected ${expected[i]}, got ${hex}`);
      };

      if ('hashAll' in target) {
        try {
          const got = await target.hashAll(
            vectors.cases.map((c) => input(c.input_len)),
            request,
          );
          vectors.cases.forEach((_, i) => compare(i, got[i]));
        } catch (e) {
          report.failures.push(`${mode}, output ${outputLength} bytes, all inputs: threw ${why(e)}`);
        }
        continue;
      }
      for (const [i, c] of vectors.cases.entries()) {
        try {
          if ('hash' in target) {
            compare(i, await target.hash(input(c.input_len), request));
            continue;
          }
          const right = fromHex(expected[i]);
          if (right.length === 0) throw new RangeError('a verifier is checked with digests of 1 byte or more');
          const wrong = right.slice();
          wrong[wrong.length - 1] ^= 1;
          const accepted = await target.verify(input(c.input_len), request, right);
          const refused = !(await Promise.resolve(target.verify(input(c.input_len), request, wrong)).catch(
            () => false,
          ));
          if (accepted && refused) report.passed++;
          else
            report.failures.push(
              `${label(c.input_len)}: ${accepted ? 'a digest with one bit flipped was accepted' : 'the official digest was refused'}`,
            );
        } catch (e) {
          report.failures.push(`${label(c.input_len)}: threw ${why(e)}`);
        }
      }
    }
  }
  return report;
}
