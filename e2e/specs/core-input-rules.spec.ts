// Inputs that must never hash as something else, in every engine: views of buffers detached by a
// transfer (with and without ArrayBuffer.prototype.detached) or of resizable buffers that shrank
// below them, strings with lone surrogates, and
// hashMany re-entered from a Proxy while it reads its inputs.
import { BACKENDS, openCorePageFor } from '../fixtures/backends.ts';
import { expect, test } from '../../servers/engine-test.ts';

for (const backend of BACKENDS) {
  test.describe(`input rules, ${backend} backend`, () => {
    test.beforeEach(async ({ enginePage }) => {
      await openCorePageFor(enginePage, backend);
    });

    test('detached and shrunk-past views and lone surrogates are TypeErrors naming the argument; re-entered hashMany is right', async ({
      enginePage,
    }) => {
      const result = await enginePage.evaluate((backend) => {
        const { core, hazmat } = globalThis.blake3Web!;
        core.setBackend(backend);
        /** The error's name and message, or 'no error' with what came back. */
        const error = (fn: () => unknown): string => {
          try {
            return `no error: ${String(fn())}`;
          } catch (e) {
            return `${(e as Error).name}: ${(e as Error).message}`;
          }
        };
        const detachedView = (make: (b: ArrayBuffer) => ArrayBufferView): Uint8Array => {
          const buffer = new ArrayBuffer(128);
          const view = make(buffer);
          structuredClone(buffer, { transfer: [buffer] });
          return view as Uint8Array;
        };
        const detachedCases = () => [
          error(() => core.blake3(detachedView((b) => new Uint8Array(b, 8, 16)))),
          error(() => core.blake3.create().update(detachedView((b) => new Uint8Array(b)))),
          error(() => core.blake3(detachedView((b) => new DataView(b, 8)))),
          error(() => core.hashMany(['a', 'b', 'c', detachedView((b) => new Uint32Array(b)), 'e'])),
          error(() => core.blake3.create().digestInto(detachedView((b) => new Uint8Array(b, 0, 32)))),
          error(() =>
            core.blake3
              .create()
              .reader()
              .readInto(detachedView((b) => new Uint8Array(b, 0, 64))),
          ),
          error(() =>
            hazmat.hashSubtree(
              detachedView((b) => new Uint8Array(b)),
              0,
            ),
          ),
          error(() => core.blake3('x', { key: detachedView((b) => new Uint8Array(b, 0, 32)) })),
        ];
        const hasDetached = 'detached' in ArrayBuffer.prototype;
        const withDetached = detachedCases();
        // The fallback engines without ArrayBuffer.prototype.detached take (Node 20).
        const descriptor = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached');
        if (descriptor) delete (ArrayBuffer.prototype as { detached?: boolean }).detached;
        let withoutDetached: string[];
        try {
          withoutDetached = detachedCases();
        } finally {
          if (descriptor) Object.defineProperty(ArrayBuffer.prototype, 'detached', descriptor);
        }
        // Views past the end of a resizable buffer that shrank also read as empty.
        const shrunkView = (make: (b: ArrayBuffer) => ArrayBufferView): Uint8Array => {
          type Resizable = ArrayBuffer & { resize(byteLength: number): void }; // ES2024
          const buffer = new (ArrayBuffer as unknown as new (n: number, o: object) => Resizable)(128, {
            maxByteLength: 256,
          });
          const view = make(buffer);
          buffer.resize(8);
          return view as Uint8Array;
        };
        const shrunk = [
          error(() => core.blake3(shrunkView((b) => new Uint8Array(b, 8, 16)))),
          error(() => core.blake3.create().update(shrunkView((b) => new Uint8Array(b, 16)))),
          error(() => core.blake3(shrunkView((b) => new DataView(b, 4, 16)))),
          error(() => core.hashMany(['a', shrunkView((b) => new Uint32Array(b, 8, 4))])),
          error(() => core.blake3.create().digestInto(shrunkView((b) => new Uint8Array(b, 8, 32)))),
        ];
        const empty = core.bytesToHex(core.blake3(new Uint8Array(0)));
        const emptyViews = [
          new Uint8Array(new ArrayBuffer(8), 8, 0),
          new ArrayBuffer(0),
          new DataView(new ArrayBuffer(0)),
        ].map((v) => core.bytesToHex(core.blake3(v)) === empty);
        const lone = [
          error(() => core.blake3('id:\uD800')),
          error(() => core.blake3.create().update('x\uDC00')),
          error(() => core.hashMany(['a', '\uDBFF'])),
          error(() => core.blake3('x', { context: 'ctx \uDFFF' })),
        ];
        const astral =
          core.bytesToHex(core.blake3('\uD83D\uDE00')) ===
          core.bytesToHex(core.blake3(new TextEncoder().encode('\uD83D\uDE00')));
        // hashMany re-entered from a Proxy's get trap, for each element.
        const messages = Array.from({ length: 64 }, (_, i) =>
          new Uint8Array(37 * i + (i % 3) * 1500).map((_, j) => (i + j) % 251),
        );
        const proxy = new Proxy(messages, {
          get(target, key, receiver) {
            if (typeof key === 'string' && /^\d+$/.test(key)) core.hashMany(messages.slice(0, 9));
            return Reflect.get(target, key, receiver);
          },
        });
        const got = core.hashMany(proxy);
        const wrong = messages.flatMap((m, i) =>
          core.bytesToHex(got[i]) === core.bytesToHex(core.blake3(m)) ? [] : [i],
        );
        return {
          backend: core.backend(),
          hasDetached,
          withDetached,
          withoutDetached,
          shrunk,
          emptyViews,
          lone,
          astral,
          wrong,
        };
      }, backend);
      expect(result.backend).toBe(backend);
      test.info().annotations.push({ type: 'ArrayBuffer.prototype.detached', description: String(result.hasDetached) });
      const names = ['input', 'input', 'input', 'inputs[3]', 'out', 'out', 'input', 'opts.key'];
      for (const list of [result.withDetached, result.withoutDetached]) {
        expect(list).toEqual(
          names.map((n) =>
            expect.stringMatching(
              new RegExp(`^TypeError: ${n.replace(/[[\]]/g, '\\$&')} is a view of a detached ArrayBuffer`),
            ),
          ),
        );
      }
      expect(result.shrunk).toEqual(
        ['input', 'input', 'input', 'inputs\\[1\\]', 'out'].map((n) =>
          expect.stringMatching(
            new RegExp(`^TypeError: ${n} is a view past the end of its ArrayBuffer, shrunk to 8 bytes`),
          ),
        ),
      );
      expect(result.emptyViews).toEqual([true, true, true]);
      const loneNames = ['input', 'input', 'inputs\\[1\\]', 'opts.context'];
      expect(result.lone).toEqual(
        loneNames.map((n) =>
          expect.stringMatching(new RegExp(`^TypeError: ${n} must be a well-formed string: a lone surrogate`)),
        ),
      );
      expect(result.astral).toBe(true);
      expect(result.wrong, 'digests of a re-entered hashMany that differ from blake3()').toEqual([]);
    });
  });
}
