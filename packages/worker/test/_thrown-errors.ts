// The errors the boundary tests throw in a worker, and how the caller must see each of them.

/** An error class of another package, with a field of its own: the worker package does not know it. */
export class ShelfError extends Error {
  override name = 'ShelfError';
  readonly reason: 'corrupt' | 'foreign';
  readonly shelf: number;
  constructor(reason: 'corrupt' | 'foreign', shelf: number, message: string) {
    super(message);
    this.reason = reason;
    this.shelf = shelf;
  }
}

export type ThrownKind = 'TypeError' | 'RangeError' | 'AbortError' | 'NotReadableError' | 'ShelfError' | 'Error';

export function thrownInWorker(kind: ThrownKind): never {
  switch (kind) {
    case 'TypeError':
      throw new TypeError('opts.key must be a Uint8Array, got a string');
    case 'RangeError':
      throw new RangeError('offset must be at most 1000, got 2000');
    case 'AbortError':
    case 'NotReadableError':
      throw new DOMException(`it was a ${kind}`, kind);
    case 'ShelfError':
      throw new ShelfError('foreign', 7, 'shelf 7 belongs to another upload');
    case 'Error':
      throw Object.assign(new Error('plain, with a code'), { code: 'E_SHELF' });
  }
}
