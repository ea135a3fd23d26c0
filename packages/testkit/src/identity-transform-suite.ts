/**
 * The web-platform-tests for transform streams and piping (streams/transform-streams/*.any.js,
 * streams/piping/*.any.js) that apply to an identity transform with the default strategies,
 * rewritten for byte chunks: a stream that passes its chunks through must pass them all. Left
 * out: tests of a transformer's callbacks and controller, of other strategies, and of
 * TransformStream.prototype's own property list, which a subclass's prototype does not share.
 *
 * A `BaoVerifyStream` given the content's outboard is an identity transform too, whose chunks
 * are released once verified: it runs the same checks with chunks of one Bao chunk (1024 bytes)
 * each, so that every write releases its own, and, being a readable/writable pair and no
 * `TransformStream`, with `TransformStream.prototype`'s getter refusing it instead of the brand
 * check.
 *
 * Self-contained (no imports, no outer names) so that the e2e specs can send its source text to
 * a page and run it in every engine. `kind` 'TransformStream' runs the same checks against the
 * platform's own identity transform, which proves the expectations in each engine.
 */
export type IdentityTransformLibs = {
  blake3(data: Uint8Array): Uint8Array;
  baoEncode(data: Uint8Array, opts: { outboard: true }): { hash: Uint8Array; encoded: Uint8Array };
  Blake3Stream: new () => TransformStream<Uint8Array, Uint8Array>;
  VerifyStream: new (expected: Uint8Array) => TransformStream<Uint8Array, Uint8Array>;
  BaoVerifyStream: new (
    hash: Uint8Array,
    opts: { outboard: Uint8Array },
  ) => { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> };
};
/** Every kind of stream the suite runs over: the platform's own, ours, and subclasses of ours. */
export const IDENTITY_TRANSFORM_KINDS = [
  'TransformStream',
  'Blake3Stream',
  'VerifyStream',
  'BaoVerifyStream',
  'Blake3Stream subclass',
  'VerifyStream subclass',
  'BaoVerifyStream subclass',
] as const;
export type IdentityTransformKind = (typeof IDENTITY_TRANSFORM_KINDS)[number];
export type IdentityTransformResult = { name: string; error?: string }[];

export async function identityTransformSuite(
  libs: IdentityTransformLibs,
  kind: IdentityTransformKind,
): Promise<IdentityTransformResult> {
  type TS = { readonly readable: ReadableStream<Uint8Array>; readonly writable: WritableStream<Uint8Array> };
  /** A BaoVerifyStream: a pair, whose chunks are released whole Bao chunks at a time. */
  const bao = kind.startsWith('BaoVerifyStream');
  /** The arguments of a stream of the kind under test that succeeds if exactly `content` is written. */
  const argsFor = (content: Uint8Array): unknown[] => {
    if (kind.startsWith('Blake3Stream')) return [];
    if (!bao) return [libs.blake3(content)];
    const { hash, encoded } = libs.baoEncode(content, { outboard: true });
    return [hash, { outboard: encoded }];
  };
  /** A fresh stream of the kind under test that succeeds if exactly `content` is written. */
  const make = (content: Uint8Array = new Uint8Array(0)): TS => {
    if (kind === 'TransformStream') return new TransformStream<Uint8Array, Uint8Array>();
    const Class = (
      kind.startsWith('Blake3Stream')
        ? libs.Blake3Stream
        : kind.startsWith('VerifyStream')
          ? libs.VerifyStream
          : libs.BaoVerifyStream
    ) as new (...args: unknown[]) => TS;
    if (kind.endsWith(' subclass')) return new (class extends Class {})(...argsFor(content));
    return new Class(...argsFor(content));
  };
  /** `TransformStream.prototype`'s readable getter: gives a TransformStream's readable side, refuses a pair. */
  const brandCheck = (ts: TS, what: string) => {
    const readable = Object.getOwnPropertyDescriptor(TransformStream.prototype, 'readable')!.get!;
    if (!bao)
      return check(readable.call(ts) === ts.readable, `${what}: the getter gives another stream than ts.readable`);
    let refused = false;
    try {
      readable.call(ts);
    } catch (e) {
      refused = e instanceof TypeError;
    }
    return check(refused, `${what}: the getter should refuse a pair that is no TransformStream with a TypeError`);
  };
  const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const flushAsync = () => delay(0).then(() => delay(0));
  const fail = (what: string): never => {
    throw new Error(what);
  };
  const check = (ok: boolean, what: string) => ok || fail(what);
  const same = (a: Uint8Array | undefined, b: Uint8Array, what: string) =>
    check(
      a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]),
      `${what}: got [${a ? Array.from(a) : a}], expected [${Array.from(b)}]`,
    );
  const rejectsWith = async (p: Promise<unknown>, reason: unknown, what: string) => {
    const outcome = await p.then(
      () => 'resolved',
      (e: unknown) => (e === reason ? 'ok' : `rejected with ${String(e)}`),
    );
    check(outcome === 'ok', `${what} should reject with the reason, but ${outcome}`);
  };
  const readAll = async (readable: ReadableStream<Uint8Array>): Promise<number[]> => {
    const reader = readable.getReader();
    const out: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out.push(...value);
    }
  };
  const error1 = new Error('error1 message');
  error1.name = 'error1';
  /** One chunk: a byte, or for Bao one Bao chunk, each byte `value`. */
  const unit = bao ? 1024 : 1;
  const chunk = (value: number) => new Uint8Array(unit).fill(value);
  const join = (...chunks: Uint8Array[]) => {
    const out = new Uint8Array(chunks.length * unit);
    chunks.forEach((x, i) => out.set(x, i * unit));
    return out;
  };
  const a = chunk(97);
  const b = chunk(98);
  const c = chunk(99);
  const abc = join(a, b, c);
  /** What a source of `a`s forever writes, as far as a test of at most 16 chunks goes. */
  const manyA = join(...Array.from({ length: 16 }, () => a));

  const tests: [string, () => Promise<void> | void][] = [
    [
      "readable and writable are plain streams of this realm, behind accessors like TransformStream's",
      () => {
        const ts = make();
        check(ts instanceof TransformStream === !bao, bao ? 'not a TransformStream' : 'instanceof TransformStream');
        // Brand checks rather than prototypes: Node's own TransformStream gives instances of an internal subclass.
        check(
          ts.readable instanceof ReadableStream && ts.writable instanceof WritableStream,
          "the sides are instances of this realm's classes",
        );
        ReadableStream.prototype.getReader.call(ts.readable).releaseLock();
        WritableStream.prototype.getWriter.call(ts.writable).releaseLock();
        check(ts.readable === ts.readable && ts.writable === ts.writable, 'the same streams on every access');
        for (const side of ['readable', 'writable']) {
          check(!Object.prototype.hasOwnProperty.call(ts, side), `${side} is not an own property`);
          let proto: object | null = Object.getPrototypeOf(ts);
          let desc: PropertyDescriptor | undefined;
          while (proto && !(desc = Object.getOwnPropertyDescriptor(proto, side))) proto = Object.getPrototypeOf(proto);
          check(
            desc !== undefined && typeof desc.get === 'function' && desc.set === undefined,
            `${side} is a getter without setter`,
          );
          // Not enumerability: Web IDL makes attributes enumerable, class accessors are not.
          check(desc!.configurable === true, `${side} is configurable`);
        }
      },
    ],
    [
      "TransformStream.prototype's readable getter gives the readable side (the brand check), or refuses a pair",
      () => brandCheck(make(), 'the stream'),
    ],
    [
      'subclassing works, and the subclass passes the brand check',
      () => {
        // General.any.js's "Subclassing TransformStream should work", one level below the class under test.
        const Base = make().constructor as new (...args: unknown[]) => TS;
        class Subclass extends Base {
          extraFunction() {
            return true;
          }
        }
        check(Object.getPrototypeOf(Subclass.prototype) === Base.prototype, "Subclass.prototype's prototype");
        check(Object.getPrototypeOf(Subclass) === Base, "Subclass's prototype");
        const sub = new Subclass(...argsFor(new Uint8Array(0)));
        check(sub instanceof TransformStream === !bao && sub instanceof Base && sub instanceof Subclass, 'instanceof');
        brandCheck(sub, 'the subclass object');
        check(sub.extraFunction(), 'extraFunction() should be present on the subclass object');
      },
    ],
    [
      'the original ReadableStream and WritableStream are used, even when the globals are replaced',
      () => {
        const g = globalThis as { ReadableStream: unknown; WritableStream: unknown };
        const { ReadableStream: readable, WritableStream: writable } = g;
        let ts: TS;
        g.ReadableStream = function () {
          throw new Error('called the global ReadableStream constructor');
        };
        g.WritableStream = function () {
          throw new Error('called the global WritableStream constructor');
        };
        try {
          ts = make();
        } finally {
          g.ReadableStream = readable;
          g.WritableStream = writable;
        }
        ReadableStream.prototype.getReader.call(ts.readable).releaseLock();
        WritableStream.prototype.getWriter.call(ts.writable).releaseLock();
      },
    ],
    [
      'the writable starts in the writable state',
      () => {
        check(make().writable.getWriter().desiredSize === 1, 'writer.desiredSize should be 1');
      },
    ],
    [
      'can read from readable what is put into writable',
      async () => {
        const ts = make(abc);
        const writer = ts.writable.getWriter();
        void writer.write(abc);
        check(writer.desiredSize === 0, 'writer.desiredSize should be 0 after write()');
        const { value, done } = await ts.readable.getReader().read();
        same(value, abc, 'the chunk read');
        check(!done, 'stream should not be done');
        await delay(0);
        check(writer.desiredSize === 1, 'desiredSize should be 1 again');
      },
    ],
    [
      'closing the writable closes the readable (when there are no queued writes)',
      async () => {
        const ts = make();
        const writer = ts.writable.getWriter();
        void writer.close();
        await Promise.all([writer.closed, ts.readable.getReader().closed]);
      },
    ],
    [
      'closing the writable after writes: the reader gets every chunk, then the end',
      async () => {
        const ts = make(abc);
        const writer = ts.writable.getWriter();
        void writer.write(a);
        void writer.write(b);
        void writer.write(c);
        void writer.close();
        same(Uint8Array.from(await readAll(ts.readable)), abc, 'everything read');
        await writer.closed;
      },
    ],
    [
      'calling read() before the first write() with backpressure works',
      async () => {
        const ts = make(a);
        const writer = ts.writable.getWriter();
        const read = ts.readable.getReader().read();
        void writer.write(a);
        const { value, done } = await read;
        check(!done, 'not done');
        same(value, a, 'the chunk read');
      },
    ],
    [
      'writes resolve as the reader takes their chunks',
      async () => {
        const ts = make(join(a, b));
        const writer = ts.writable.getWriter();
        const reader = ts.readable.getReader();
        const events: string[] = [];
        const settled = [
          writer.write(a).then(() => events.push('a')),
          writer.write(b).then(() => events.push('b')),
          writer.close().then(() => events.push('closed')),
        ];
        await flushAsync();
        check(events.join() === '', `no write resolves before a read, got [${events}]`);
        same((await reader.read()).value, a, 'first read');
        await flushAsync();
        check(events.join() === 'a', `the first write resolves after the first read, got [${events}]`);
        same((await reader.read()).value, b, 'second read');
        await flushAsync();
        check(events.join() === 'a,b,closed', `both writes and close() resolve, got [${events}]`);
        check((await reader.read()).done, 'done after the last chunk');
        await Promise.all(settled);
      },
    ],
    [
      'backpressure: a write waits for a read',
      async () => {
        const ts = make(a);
        const writer = ts.writable.getWriter();
        let resolved = false;
        void writer.write(a).then(
          () => (resolved = true),
          () => {},
        );
        await flushAsync();
        check(!resolved, 'the write should wait for a read');
        check(writer.desiredSize === 0, 'desiredSize should be 0');
      },
    ],
    [
      'writer.closed rejects after the readable is cancelled during start',
      async () => {
        const ts = make();
        void ts.readable.cancel(error1);
        await rejectsWith(ts.writable.getWriter().closed, error1, 'closed');
      },
    ],
    [
      'writer.closed rejects after the readable is cancelled with backpressure',
      async () => {
        const ts = make();
        await delay(0);
        void ts.readable.cancel(error1);
        await rejectsWith(ts.writable.getWriter().closed, error1, 'closed');
      },
    ],
    [
      'cancelling the readable makes a write that waits for backpressure reject',
      async () => {
        const ts = make(a);
        const writer = ts.writable.getWriter();
        await delay(0);
        const write = writer.write(a);
        await ts.readable.cancel(error1);
        await rejectsWith(write, error1, 'the pending write');
      },
    ],
    [
      'cancelling the readable side aborts an empty pipe',
      async () => {
        const ts = make();
        const pipe = new ReadableStream<Uint8Array>().pipeTo(ts.writable);
        void ts.readable.cancel(error1);
        await rejectsWith(pipe, error1, 'pipeTo()');
      },
    ],
    [
      'cancelling the readable side aborts an empty pipe after startup',
      async () => {
        const ts = make();
        const pipe = new ReadableStream<Uint8Array>().pipeTo(ts.writable);
        await delay(0);
        void ts.readable.cancel(error1);
        await rejectsWith(pipe, error1, 'pipeTo()');
      },
    ],
    [
      'cancelling the readable side aborts a full pipe, and cancels the source',
      async () => {
        let cancelled: unknown;
        const rs = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(a);
            controller.enqueue(b);
            controller.enqueue(c);
          },
          cancel: (reason) => void (cancelled = reason),
        });
        const ts = make(abc);
        const pipe = rs.pipeTo(ts.writable);
        await delay(0);
        void ts.readable.cancel(error1);
        await rejectsWith(pipe, error1, 'pipeTo()');
        check(cancelled === error1, 'the source should be cancelled with the reason');
      },
    ],
    [
      'cancelling the readable side errors the writable',
      async () => {
        const ts = make();
        const writer = ts.writable.getWriter();
        const closed = writer.closed;
        await Promise.all([ts.readable.cancel(error1), rejectsWith(closed, error1, 'writer.closed')]);
      },
    ],
    [
      "an abort before a cancel during start sets the writable's reason, and the cancel still succeeds",
      async () => {
        const ts = make();
        const writer = ts.writable.getWriter();
        const abort = writer.abort(error1);
        const cancel = ts.readable.cancel(new Error('cancel reason'));
        await Promise.all([abort, cancel, rejectsWith(writer.closed, error1, 'writer.closed')]);
      },
    ],
    [
      'a write() that was waiting for backpressure rejects if the writable is aborted',
      async () => {
        const ts = make(a);
        await delay(0);
        const writer = ts.writable.getWriter();
        const write = writer.write(a);
        const abort = writer.abort(error1);
        const read = ts.readable.getReader().read();
        await Promise.all([rejectsWith(read, error1, 'read()'), rejectsWith(write, error1, 'write()'), abort]);
      },
    ],
    [
      "the readable is errored with the reason passed to the writable's abort()",
      async () => {
        const ts = make();
        void ts.writable.abort(error1);
        await rejectsWith(ts.readable.getReader().read(), error1, 'read()');
      },
    ],
    [
      'pipeThrough() returns the readable side',
      () => {
        const ts = make();
        check(
          new ReadableStream<Uint8Array>().pipeThrough(ts) === ts.readable,
          'pipeThrough() should return ts.readable',
        );
      },
    ],
    [
      'piping through closes the destination when the source closes, with every chunk in order',
      async () => {
        const rs = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(a);
            controller.enqueue(b);
            controller.enqueue(c);
            controller.close();
          },
        });
        const got: number[] = [];
        const ws = new WritableStream<Uint8Array>({ write: (chunk) => void got.push(...chunk) });
        await rs.pipeThrough(make(abc)).pipeTo(ws);
        same(Uint8Array.from(got), abc, 'what the destination got');
        await ws.getWriter().closed;
      },
    ],
    [
      'an error in the source propagates forward through the transform to the destination',
      async () => {
        const rs = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(a);
            controller.error(error1);
          },
        });
        let aborted: unknown;
        const ws = new WritableStream<Uint8Array>({ abort: (reason) => void (aborted = reason) });
        await rejectsWith(rs.pipeThrough(make(a)).pipeTo(ws), error1, 'pipeTo()');
        check(aborted === error1, 'the destination should be aborted with the error');
      },
    ],
    [
      'an error in the destination propagates backward through the transform to the source',
      async () => {
        let cancelled: unknown;
        const rs = new ReadableStream<Uint8Array>({
          pull: (controller) => controller.enqueue(a),
          cancel: (reason) => void (cancelled = reason),
        });
        const ws = new WritableStream<Uint8Array>({
          write: () => {
            throw error1;
          },
        });
        await rejectsWith(rs.pipeThrough(make(manyA)).pipeTo(ws), error1, 'pipeTo()');
        await flushAsync();
        check(cancelled === error1, `the source should be cancelled with the error, got ${String(cancelled)}`);
      },
    ],
    [
      'pipeThrough() with preventClose leaves the writable side open',
      async () => {
        const rs = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(a);
            controller.close();
          },
        });
        const ts = make(join(a, b));
        const reader = rs.pipeThrough(ts, { preventClose: true }).getReader();
        same((await reader.read()).value, a, 'first chunk');
        await delay(0);
        const writer = ts.writable.getWriter();
        void writer.write(b);
        void writer.close();
        same((await reader.read()).value, b, 'the chunk written after the pipe');
        check((await reader.read()).done, 'done after close()');
      },
    ],
    [
      'flow control: an unread pipe pulls only a few chunks ahead',
      async () => {
        let pulled = 0;
        const rs = new ReadableStream<Uint8Array>(
          { pull: (controller) => void (pulled++, controller.enqueue(a)) },
          { highWaterMark: 0 },
        );
        const reader = rs.pipeThrough(make(manyA)).getReader();
        await reader.read();
        await delay(20);
        check(pulled <= 4, `pulled ${pulled} chunks for one read`);
        await reader.cancel();
      },
    ],
  ];

  const results: IdentityTransformResult = [];
  for (const [name, run] of tests) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error('timed out after 2 s')), 2000)),
    );
    try {
      await Promise.race([Promise.resolve().then(run), timeout]);
      results.push({ name });
    } catch (e) {
      results.push({ name, error: String((e as Error)?.message ?? e) });
    } finally {
      clearTimeout(timer);
    }
  }
  return results;
}
