// Every engine here has WebAssembly SIMD (ENVIRONMENT facts: Chromium 156, Firefox 153 and
// WebKitGTK 2.50 all run v128), so the SIMD backend must be detected and chosen, not skipped.
import { openCorePage } from '../fixtures/core-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

test('the wasm-simd backend is available and becomes the default once ready()', async ({ enginePage }) => {
  await openCorePage(enginePage);
  const r = await enginePage.evaluate(async () => {
    const { core } = globalThis.blake3Web!;
    const available = core.isBackendAvailable('wasm-simd');
    await core.ready();
    const active = core.backend();
    // Hashing a large input right away works on whichever backend is active.
    const input = new Uint8Array(1 << 20).map((_, i) => i % 251);
    const a = core.bytesToHex(core.blake3(input));
    core.setBackend('js');
    const b = core.bytesToHex(core.blake3(input));
    core.setBackend('wasm-simd');
    return { available, active, same: a === b };
  });
  expect(r).toEqual({ available: true, active: 'wasm-simd', same: true });
});
