import { blake3 } from '@blake3-web/core';
import { hashSubtree } from '@blake3-web/core/hazmat';
import { paint } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { reviveError, toWireError } from '../src/_errors.ts';
import { hashRange } from '../src/_hash-range.ts';
import { readFileRange } from '../src/_read-file-range-node.ts';
import type { HashTask } from '../src/protocol.ts';

/** What the caller sees: comlink's own deserializer assigns the wire fields to a new Error. */
function acrossComlink(e: Error): unknown {
  const wire = toWireError(e);
  return reviveError(Object.assign(new Error(wire.message), wire));
}

describe('errors across the worker boundary', () => {
  it('come back as the class they were thrown as, with name, message and stack', () => {
    for (const e of [new TypeError('opts.key must be a Uint8Array'), new RangeError('end out of range'), new Error('plain')]) {
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
    const e = (await readFile('/nonexistent/blake3-web').then(() => assert.fail('the file exists'), (x: unknown) => x)) as NodeJS.ErrnoException;
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

describe("a worker's task (run on this thread)", () => {
  const input = paint(5000);
  const blob = new Blob([input]);
  const noFiles = () => Promise.reject(new Error('no files here'));

  it('hashes a subtree of a Blob, of bytes, and a whole input as the root', async () => {
    const sub: HashTask = { source: { kind: 'blob', blob }, start: 2048, end: 4096, output: 'subtree', opts: { context: 'c' } };
    assert.deepEqual(await hashRange(sub, noFiles), hashSubtree(input.subarray(2048, 4096), 2048, { context: 'c' }));
    const bytes: HashTask = { source: { kind: 'bytes', bytes: input.slice(4096) }, start: 4096, end: 5000, output: 'subtree', opts: {} };
    assert.deepEqual(await hashRange(bytes, noFiles), hashSubtree(input.subarray(4096), 4096));
    const root: HashTask = { source: { kind: 'blob', blob }, start: 0, end: 5000, output: 'root', opts: { dkLen: 77 } };
    assert.deepEqual(await hashRange(root, noFiles), blake3(input, { dkLen: 77 }));
  });

  it('rejects ranges that Blob.slice would clamp into a wrong hash', async () => {
    const task = (start: number, end: number): HashTask => ({ source: { kind: 'blob', blob }, start, end, output: 'subtree', opts: {} });
    await assert.rejects(hashRange(task(4096, 5001), noFiles), { name: 'RangeError', message: /within the 5000-byte input/ });
    await assert.rejects(hashRange(task(1024, 1024), noFiles), { name: 'RangeError', message: /non-empty/ });
    await assert.rejects(hashRange(task(-1024, 10), noFiles), { name: 'RangeError', message: /start/ });
    await assert.rejects(hashRange(task(1000, 2000), noFiles), { name: 'RangeError', message: /inputOffset.*multiple of 1024/ });
    await assert.rejects(hashRange({ ...task(0, 5000), output: 'root', start: 1024 }, noFiles), { name: 'RangeError' });
    const short: HashTask = { source: { kind: 'bytes', bytes: new Uint8Array(10) }, start: 0, end: 11, output: 'subtree', opts: {} };
    await assert.rejects(hashRange(short, noFiles), { name: 'RangeError', message: /11 bytes long, got 10/ });
    const odd = { source: { kind: 'socket' }, start: 0, end: 1, output: 'subtree', opts: {} } as unknown as HashTask;
    await assert.rejects(hashRange(odd, noFiles), { name: 'TypeError', message: /task.source.kind/ });
  });

  it('reads file ranges, and refuses a file that changed since the hash started', async (t) => {
    const { writeFileSync, statSync, utimesSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tempDir } = await import('./_helpers.ts');
    const path = join(tempDir(), 'f.bin');
    writeFileSync(path, input);
    const info = statSync(path);
    const file = { path, size: info.size, mtimeMs: info.mtimeMs };
    assert.deepEqual(await readFileRange(file, 1024, 3072), input.subarray(1024, 3072));
    utimesSync(path, info.atime, new Date(info.mtimeMs + 5000));
    await assert.rejects(readFileRange(file, 0, 1024), { name: 'NotReadableError', message: /changed while it was being hashed/ });
    writeFileSync(path, input.subarray(0, 3000));
    await assert.rejects(readFileRange({ ...file, mtimeMs: statSync(path).mtimeMs }, 2048, 4096), { name: 'NotReadableError' });
    t.diagnostic('a vanished file fails with ENOENT');
    await assert.rejects(readFileRange({ ...file, path: path + '.gone' }, 0, 1024), { code: 'ENOENT' });
  });
});
