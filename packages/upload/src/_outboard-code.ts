// The verifying store's outboard builder, loaded only by a store made with `outboard`: it needs
// `@blake3-web/stream` (the Bao header), an optional peer dependency, so a store without an
// outboard neither loads it nor needs it installed.
import { describe } from './_assert.js';

/** The modules an outboard is built with. */
export type OutboardCode = {
  readonly OutboardBuilder: typeof import('./_outboard-builder.js').OutboardBuilder;
};

/**
 * The largest leaf is 2^16 chunks (64 MiB), as the Bao decoder's: a store keeps one leaf of each
 * upload in memory while its bytes pass.
 */
const MAX_CHUNK_GROUP_LOG = 16;

/** The bytes in one leaf of a tree with `opts` (`{ chunkGroupLog }`), checked now: no module loaded. */
export function outboardLeafBytes(opts: { chunkGroupLog?: unknown }, name: string): number {
  const log = opts.chunkGroupLog ?? 0;
  if (typeof log !== 'number') throw new TypeError(`${name}.chunkGroupLog must be a number, got ${describe(log)}`);
  if (!Number.isInteger(log) || log < 0 || log > MAX_CHUNK_GROUP_LOG)
    throw new RangeError(`${name}.chunkGroupLog must be an integer from 0 to ${MAX_CHUNK_GROUP_LOG}, got ${log}`);
  return 1024 * 2 ** log;
}

let loading: Promise<OutboardCode> | undefined;

/**
 * Loads the outboard's modules once. Rejects with an error that says what to install if
 * `@blake3-web/stream` is missing (and tries again on the next call, once it may be).
 */
export function loadOutboardCode(): Promise<OutboardCode> {
  loading ??= import('./_outboard-builder.js').then(
    ({ OutboardBuilder }) => ({ OutboardBuilder }),
    (e: unknown) => {
      loading = undefined;
      const code = (e as { code?: unknown }).code;
      if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(e).includes('@blake3-web/stream'))
        throw new OutboardUnavailableError(e);
      throw e;
    },
  );
  return loading;
}

/** `outboard` was asked for where `@blake3-web/stream` cannot be loaded. */
export class OutboardUnavailableError extends Error {
  override readonly name = 'OutboardUnavailableError';
  constructor(cause: unknown) {
    super(
      'opts.outboard needs @blake3-web/stream, an optional peer dependency of @blake3-web/upload: install it next to @blake3-web/upload',
      { cause },
    );
  }
}
