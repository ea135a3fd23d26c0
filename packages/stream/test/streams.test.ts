import { blake3, bytesToHex } from '@blake3-web/core';
import { Blake3Stream, hashStream, IntegrityError, verifyResponse, VerifyStream } from '@blake3-web/stream';
import { abortOutcome, chunkedStream, Random, readAll as readAllParts, testSeed } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';

const rng = new Random(testSeed());

const chunked = (data: Uint8Array, maxChunk: number) => chunkedStream(rng, data, maxChunk);

async function readAll(readable: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(readable).arrayBuffer());
}

describe('Blake3Stream', () => {
  it('random chunkings of random data pass the bytes through and give blake3()', async () => {
    for (let i = 0; i < 30; i++) {
      const data = rng.bytes(rng.pick([0, 1, 1024, 4097, rng.int(0, 200_000)]));
      const opts = rng.pick([
        {},
        { key: new Uint8Array(32).fill(i) },
        { context: 'stream test' },
        { dkLen: rng.int(0, 200) },
      ]);
      const hashing = new Blake3Stream(opts);
      const out = await readAll(chunked(data, rng.pick([1, 100, 70_000])).pipeThrough(hashing));
      assert.deepEqual(out, data);
      assert.deepEqual(await hashing.digest, blake3(data, opts));
    }
  });

  it('rejects a chunk that is not a Uint8Array with a TypeError, in the stream and the digest', async () => {
    const hashing = new Blake3Stream();
    const writer = hashing.writable.getWriter();
    void hashing.readable
      .getReader()
      .read()
      .catch(() => {});
    await assert.rejects(writer.write('text' as never), { name: 'TypeError', message: /Uint8Array.*string/ });
    await assert.rejects(hashing.digest, { name: 'TypeError' });
  });

  it('an aborted or cancelled stream rejects the digest with the reason', async () => {
    const aborted = new Blake3Stream();
    const writer = aborted.writable.getWriter();
    void writer.write(new Uint8Array(10)).catch(() => {});
    await writer.abort(new Error('connection lost'));
    await assert.rejects(aborted.digest, { message: 'connection lost' });
    const cancelled = new Blake3Stream();
    await cancelled.readable.cancel(new Error('user left'));
    await assert.rejects(cancelled.digest, { message: 'user left' });
  });

  it('respects backpressure: nothing is read ahead of the consumer', async () => {
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull: (c) => {
          pulled++;
          c.enqueue(new Uint8Array(1024));
        },
      },
      { highWaterMark: 0 },
    );
    const reader = source.pipeThrough(new Blake3Stream()).getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 50));
    const afterOne = pulled;
    assert.ok(afterOne <= 4, `pulled ${afterOne} chunks for one read`);
    await reader.cancel();
  });

  it('hashes Blob.stream() and Node Readable.toWeb() through hashStream', async () => {
    const data = rng.bytes(300_000);
    assert.deepEqual(await hashStream(new Blob([data]).stream()), blake3(data));
    assert.deepEqual(
      await hashStream(
        Readable.toWeb(Readable.from([data.subarray(0, 5), data.subarray(5)])) as ReadableStream<Uint8Array>,
      ),
      blake3(data),
    );
    assert.deepEqual(await hashStream(new Blob([data]).stream(), { dkLen: 64 }), blake3(data, { dkLen: 64 }));
  });

  it('validates its arguments', async () => {
    assert.throws(() => new Blake3Stream({ key: new Uint8Array(3) }), {
      name: 'RangeError',
      message: /key must be 32 bytes/,
    });
    await assert.rejects(hashStream('no' as never), {
      name: 'TypeError',
      message: /readable must be a ReadableStream/,
    });
    const bad = new ReadableStream({
      start: (c) => {
        c.enqueue(42);
        c.close();
      },
    });
    await assert.rejects(hashStream(bad as never), {
      name: 'TypeError',
      message: /chunks must be Uint8Arrays, got 42/,
    });
  });
});

describe('VerifyStream', () => {
  const data = new Random(7).bytes(100_000);
  const hex = bytesToHex(blake3(data));

  it('passes matching content through, for a hex or a byte digest of any length', async () => {
    assert.deepEqual(await readAll(chunked(data, 5000).pipeThrough(new VerifyStream(hex))), data);
    assert.deepEqual(await readAll(chunked(data, 5000).pipeThrough(new VerifyStream(hex.toUpperCase()))), data);
    const long = blake3(data, { dkLen: 64 });
    assert.deepEqual(await readAll(chunked(data, 5000).pipeThrough(new VerifyStream(long))), data);
    const key = new Uint8Array(32).fill(9);
    assert.deepEqual(
      await readAll(chunked(data, 5000).pipeThrough(new VerifyStream(blake3(data, { key }), { key }))),
      data,
    );
  });

  it('errors with IntegrityError on a tampered byte', async () => {
    const bad = data.slice();
    bad[54_321] ^= 1;
    await assert.rejects(readAll(chunked(bad, 5000).pipeThrough(new VerifyStream(hex))), (err: IntegrityError) => {
      assert.ok(err instanceof IntegrityError);
      assert.equal(err.code, 'ERR_BLAKE3_MISMATCH');
      assert.equal(err.expected, hex);
      assert.equal(err.actual, bytesToHex(blake3(bad)));
      return true;
    });
  });

  it('errors with IntegrityError on a truncated body', async () => {
    await assert.rejects(readAll(chunked(data.subarray(0, 99_999), 5000).pipeThrough(new VerifyStream(hex))), {
      name: 'IntegrityError',
    });
  });

  it('pipeTo rejects and the writer side sees the error', async () => {
    const bad = data.slice();
    bad[0] ^= 0x80;
    const seen: unknown[] = [];
    const sink = new WritableStream<Uint8Array>({ abort: (reason) => void seen.push(reason) });
    await assert.rejects(chunked(bad, 5000).pipeThrough(new VerifyStream(hex)).pipeTo(sink), {
      name: 'IntegrityError',
    });
    assert.equal((seen[0] as Error).name, 'IntegrityError');
  });

  it('an aborted source errors the stream with the abort reason, never a success', async () => {
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(data.subarray(0, 1000));
        c.error(new Error('network down'));
      },
    });
    await assert.rejects(readAll(source.pipeThrough(new VerifyStream(hex))), { message: 'network down' });
  });

  it('validates the expected digest', () => {
    assert.throws(() => new VerifyStream(42 as never), {
      name: 'TypeError',
      message: /expected must be a hex string or a Uint8Array/,
    });
    assert.throws(() => new VerifyStream('xyz'), { name: 'RangeError', message: /expected must be a hex digest/ });
    assert.throws(() => new VerifyStream(''), {
      name: 'RangeError',
      message: /expected must be a digest of at least 16 bytes, got 0/,
    });
  });

  it('refuses an expected digest shorter than 16 bytes, which forged content could match by chance', async () => {
    const content = new TextEncoder().encode('hello');
    const digest = blake3(content);
    for (const n of [1, 8, 15]) {
      const short = digest.subarray(0, n);
      assert.throws(() => new VerifyStream(short), {
        name: 'RangeError',
        message: new RegExp(`expected must be a digest of at least 16 bytes, got ${n}$`),
      });
      assert.throws(() => new VerifyStream(bytesToHex(short)), {
        name: 'RangeError',
        message: new RegExp(`got ${n}$`),
      });
      assert.throws(() => verifyResponse(new Response(content), short), {
        name: 'RangeError',
        message: new RegExp(`got ${n}$`),
      });
    }
    // 16 bytes is the least accepted: a 16-byte output checks the content.
    assert.deepEqual(await readAll(chunked(content, 3).pipeThrough(new VerifyStream(digest.subarray(0, 16)))), content);
  });
});

/**
 * Writes `data` through one buffer that it overwrites after every write() resolves, as a BYOB
 * reader's pool or a ring buffer does, while a reader keeps the chunks it is given. Returns the
 * bytes the reader holds at the end, and how the stream ended.
 */
async function throughReusedBuffer(
  transform: TransformStream<Uint8Array, Uint8Array>,
  data: Uint8Array,
  piece: number,
) {
  const held: Uint8Array[] = [];
  const reading = (async () => {
    const reader = transform.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'closed';
      held.push(value);
    }
  })().catch((e: Error) => e.name);
  const writer = transform.writable.getWriter();
  const buffer = new Uint8Array(piece);
  for (let at = 0; at < data.length; at += piece) {
    const n = Math.min(piece, data.length - at);
    buffer.set(data.subarray(at, at + n));
    await writer.write(buffer.subarray(0, n));
    buffer.fill(0xee);
  }
  await writer.close().catch(() => {});
  const ended = await reading;
  const bytes = new Uint8Array(held.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of held) (bytes.set(c, at), (at += c.length));
  return { bytes, ended };
}

describe('IntegrityError', () => {
  it('corrupt(): the expected digest in hex, no actual digest, the message given', () => {
    const expected = blake3('x');
    const error = IntegrityError.corrupt(expected, 'the Bao encoding ended early');
    assert.ok(error instanceof IntegrityError && error instanceof Error);
    assert.deepEqual(
      { name: error.name, code: error.code, expected: error.expected, actual: error.actual, message: error.message },
      {
        name: 'IntegrityError',
        code: 'ERR_BLAKE3_MISMATCH',
        expected: bytesToHex(expected),
        actual: '',
        message: 'the Bao encoding ended early',
      },
    );
  });
});

describe('writers that reuse their buffer', () => {
  const data = new Random(11).bytes(50_000);

  it('VerifyStream: what the reader holds is what was verified', async () => {
    const { bytes, ended } = await throughReusedBuffer(new VerifyStream(blake3(data)), data, 4096);
    assert.equal(ended, 'closed');
    assert.deepEqual(bytes, data);
  });

  it('Blake3Stream: digest is the hash of what the reader holds', async () => {
    const hashing = new Blake3Stream();
    const { bytes, ended } = await throughReusedBuffer(hashing, data, 4096);
    assert.equal(ended, 'closed');
    assert.deepEqual(bytes, data);
    assert.deepEqual(await hashing.digest, blake3(bytes));
  });
});

describe('every promise settles', () => {
  for (const make of [() => new Blake3Stream(), () => new VerifyStream(blake3('x'))]) {
    it(`${make().constructor.name}: an abort fails the writes waiting for a read, even if no read comes`, async () => {
      const transform = make();
      const writer = transform.writable.getWriter();
      void writer.write(new Uint8Array(8)).catch(() => {});
      const write = writer.write(new Uint8Array(8));
      // The writes are under way before the abort.
      await new Promise((resolve) => setTimeout(resolve, 10));
      const reason = new Error('stop');
      assert.deepEqual(await abortOutcome(writer, write, reason), ['write rejected', 'aborted']);
      await assert.rejects(transform.readable.getReader().read(), (e) => e === reason);
    });
  }
});

describe("TransformStream.prototype's getters", () => {
  it('give the readable side, and a writable side the stream holds locked, so nothing written around the hash is read', () => {
    const getter = (side: 'readable' | 'writable') =>
      Object.getOwnPropertyDescriptor(TransformStream.prototype, side)!.get!;
    for (const transform of [new Blake3Stream(), new VerifyStream(blake3('x'))]) {
      assert.equal(getter('readable').call(transform), transform.readable);
      const base = getter('writable').call(transform) as WritableStream<Uint8Array>;
      assert.ok(base.locked, 'the base writable side is locked');
      assert.throws(() => base.getWriter(), TypeError);
    }
  });
});

describe('keyed verification', () => {
  const key = new Uint8Array(32).fill(3);
  const genuine = new Random(12).bytes(20_000);
  const forged = genuine.slice();
  forged[777] ^= 4;
  const tag = bytesToHex(blake3(forged, { key }));

  /** Every string an IntegrityError exposes: message, stack, own and inherited properties. */
  const exposed = (err: unknown): string => {
    const e = err as Record<string, unknown>;
    const keys = new Set([
      ...Object.getOwnPropertyNames(e),
      'message',
      'stack',
      'expected',
      'actual',
      'name',
      'code',
      'cause',
    ]);
    return [String(err), ...[...keys].map((k) => String(e[k]))].join('\n');
  };
  const assertHidden = (err: unknown, computed: string) => {
    assert.ok(err instanceof IntegrityError, `an IntegrityError, got ${String(err)}`);
    assert.equal(err.actual, '');
    assert.equal(err.expected, bytesToHex(blake3(genuine, { key })));
    assert.ok(!exposed(err).includes(computed), 'the computed tag must not appear');
    assert.ok(!exposed(err).includes(computed.slice(0, 16)), 'no prefix of the computed tag either');
  };

  it('VerifyStream with { key } never reveals the tag of the bytes received', async () => {
    const { error } = await readAllParts(
      chunked(forged, 3000).pipeThrough(new VerifyStream(blake3(genuine, { key }), { key })),
    );
    assertHidden(error, tag);
  });

  it('verifyResponse with { key } never reveals it, with a body or without one', async () => {
    const res = verifyResponse(new Response(forged), blake3(genuine, { key }), { key });
    const { error } = await readAllParts(res.body!);
    assertHidden(error, tag);
    let thrown: unknown;
    try {
      verifyResponse(new Response(null, { status: 204 }), blake3(genuine, { key }), { key });
    } catch (e) {
      thrown = e;
    }
    assertHidden(thrown, bytesToHex(blake3(new Uint8Array(0), { key })));
  });

  it('unkeyed mismatches still report the digest received', async () => {
    const { error } = await readAllParts(chunked(forged, 3000).pipeThrough(new VerifyStream(blake3(genuine))));
    assert.equal((error as IntegrityError).actual, bytesToHex(blake3(forged)));
  });
});

describe('verifyResponse', () => {
  const data = new Random(8).bytes(70_000);

  it('gives a Response with the same status and headers whose body verifies as it streams', async () => {
    const res = verifyResponse(new Response(data, { status: 203, headers: { 'x-test': 'yes' } }), blake3(data));
    assert.equal(res.status, 203);
    assert.equal(res.headers.get('x-test'), 'yes');
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data);
  });

  it('rejects reading a mismatched body', async () => {
    const res = verifyResponse(new Response(data), blake3(data.subarray(1)));
    await assert.rejects(res.arrayBuffer(), { name: 'IntegrityError' });
  });

  it('every body method rejects a mismatch with the IntegrityError itself, a clone too', async () => {
    const forged = data.slice();
    forged[69_999] ^= 1;
    const methods = ['arrayBuffer', 'bytes', 'text', 'json', 'blob', 'formData'] as const;
    for (const method of methods) {
      const res = verifyResponse(new Response(forged), blake3(data));
      const copy = res.clone();
      for (const r of [res, copy]) {
        const error = await r[method]().then(
          () => assert.fail(`${method}() resolved`),
          (e: unknown) => e,
        );
        assert.ok(error instanceof IntegrityError, `${method}() rejected with ${String(error)}`);
        assert.equal(error.code, 'ERR_BLAKE3_MISMATCH');
        assert.equal(error.actual, bytesToHex(blake3(forged)));
      }
    }
  });

  it('body methods parse matching content as a plain Response does', async () => {
    const json = new TextEncoder().encode('\uFEFF{"a":[1,"é"]}');
    const form = new TextEncoder().encode('a=1&b=%C3%A9');
    const check = (bytes: Uint8Array<ArrayBuffer>, type: string) =>
      verifyResponse(new Response(bytes, { headers: { 'content-type': type } }), blake3(bytes));
    assert.deepEqual(await check(json, 'application/json').json(), { a: [1, 'é'] });
    assert.equal(await check(json, 'text/plain').text(), '{"a":[1,"é"]}');
    const type = 'Application/Octet-Stream';
    const blob = await check(data, type).blob();
    // The type as this runtime's own Response gives it (Bun keeps the case, Node lowers it).
    assert.equal(blob.type, (await new Response(data, { headers: { 'content-type': type } }).blob()).type);
    assert.match(blob.type, /^application\/octet-stream$/i);
    assert.deepEqual(new Uint8Array(await blob.arrayBuffer()), data);
    assert.deepEqual(await check(data, 'x/y').bytes(), data);
    const fields = await check(form, 'application/x-www-form-urlencoded').formData();
    assert.deepEqual([fields.getAll('a'), fields.getAll('b')], [['1'], ['é']]);
    const res = check(data, 'x/y');
    const copy = res.clone();
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), data);
    assert.deepEqual(new Uint8Array(await copy.arrayBuffer()), data);
  });

  it('a body read once, or locked by a reader, rejects the next read with a TypeError', async () => {
    const res = verifyResponse(new Response(data), blake3(data));
    await res.text();
    assert.equal(res.bodyUsed, true);
    await assert.rejects(res.arrayBuffer(), TypeError);
    await assert.rejects(res.json(), TypeError);
    const locked = verifyResponse(new Response(data), blake3(data));
    locked.body!.getReader();
    await assert.rejects(locked.text(), TypeError);
    assert.throws(() => locked.clone(), TypeError);
  });

  it('keyed: text() of a forged body rejects without the computed tag', async () => {
    const key = new Uint8Array(32).fill(9);
    const forged = data.subarray(1);
    const error = await verifyResponse(new Response(forged), blake3(data, { key }), { key })
      .text()
      .catch((e: unknown) => e);
    assert.ok(error instanceof IntegrityError);
    assert.equal(error.actual, '');
    assert.doesNotMatch(`${error.message} ${error.stack}`, new RegExp(bytesToHex(blake3(forged, { key }))));
  });

  it('checks responses without a body against the empty input at once', () => {
    const empty = new Response(null, { status: 204 });
    assert.equal(verifyResponse(empty, blake3(new Uint8Array(0))), empty);
    assert.throws(() => verifyResponse(new Response(null, { status: 204 }), blake3('x')), { name: 'IntegrityError' });
  });
});
