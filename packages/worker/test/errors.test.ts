import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { reviveError, toWireError, type KnownErrors } from '../src/_errors.ts';

/** What the caller sees: comlink's own deserializer assigns the wire fields to a new Error. */
function acrossComlink(e: Error): unknown {
  const wire = toWireError(e);
  return reviveError(Object.assign(new Error(wire.message), wire));
}

describe('errors across the worker boundary', () => {
  it('come back as the class they were thrown as, with name, message and stack', () => {
    for (const e of [
      new TypeError('opts.key must be a Uint8Array'),
      new RangeError('end out of range'),
      new Error('plain'),
    ]) {
      const back = acrossComlink(e) as Error;
      assert.equal(back.constructor, e.constructor);
      assert.equal(back.name, e.name);
      assert.equal(back.message, e.message);
      assert.equal(back.stack, e.stack);
    }
  });

  it('keep DOMExceptions as DOMExceptions (NotReadableError, NotFoundError, AbortError)', () => {
    for (const name of ['NotReadableError', 'NotFoundError', 'AbortError']) {
      const back = acrossComlink(new DOMException(`it was a ${name}`, name)) as DOMException;
      assert.ok(back instanceof DOMException);
      assert.equal(back.name, name);
      assert.equal(back.message, `it was a ${name}`);
    }
  });

  it("keep a Node system error's code, errno, syscall and path", async () => {
    const e = (await readFile('/nonexistent/blake3-web').then(
      () => assert.fail('the file exists'),
      (x: unknown) => x,
    )) as NodeJS.ErrnoException;
    const back = acrossComlink(e) as NodeJS.ErrnoException;
    assert.equal(back.name, 'Error');
    assert.equal(back.code, 'ENOENT');
    assert.equal(back.errno, e.errno);
    assert.equal(back.syscall, 'open');
    assert.equal(back.path, '/nonexistent/blake3-web');
    assert.match(back.message, /ENOENT/);
  });

  it('keep a custom name on an Error subclass', () => {
    class QuotaError extends Error {
      override name = 'QuotaExceededError';
    }
    const back = acrossComlink(new QuotaError('full')) as Error;
    assert.equal(back.name, 'QuotaExceededError');
    assert.ok(back instanceof Error);
  });

  it('leave errors that did not cross a boundary alone', () => {
    const e = new TypeError('local');
    assert.equal(reviveError(e), e);
    assert.equal(reviveError('a string'), 'a string');
  });
});

describe("another package's error classes across the boundary", () => {
  class ShelfError extends Error {
    override name = 'ShelfError';
    readonly reason: 'corrupt' | 'foreign';
    constructor(reason: 'corrupt' | 'foreign', message: string) {
      super(message);
      this.reason = reason;
    }
  }
  const acrossTo = (e: Error, known: KnownErrors) => {
    const wire = toWireError(e);
    return reviveError(Object.assign(new Error(wire.message), wire), known) as Error;
  };

  it('come back as the class the caller names, with their own fields', () => {
    const back = acrossTo(new ShelfError('foreign', 'not this shelf'), { ShelfError });
    assert.ok(back instanceof ShelfError);
    assert.equal(back.name, 'ShelfError');
    assert.equal(back.message, 'not this shelf');
    assert.equal((back as ShelfError).reason, 'foreign');
  });

  it('unnamed, keep their name and fields on an Error; fields that are not plain values stay behind', () => {
    const e = Object.assign(new ShelfError('corrupt', 'torn'), { detail: { deep: true }, size: 3n });
    const back = acrossTo(e, {}) as Error & Record<string, unknown>;
    assert.ok(!(back instanceof ShelfError));
    assert.equal(back.name, 'ShelfError');
    assert.equal(back.reason, 'corrupt');
    assert.equal(back.size, 3n);
    assert.equal('detail' in back, false);
  });
});
