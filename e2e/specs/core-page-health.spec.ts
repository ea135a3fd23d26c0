// Checks that need Playwright's own page (event listeners, request interception), which the
// WebKitGTK project cannot offer over classic WebDriver.
import { openCorePage } from '../fixtures/core-page.ts';
import { playwrightEnginePage } from '../../servers/playwright-engine-page.ts';
import { expect, skipWebKit, test } from '../../servers/engine-test.ts';
import { expectedHex, modeInputs } from '../fixtures/vector-plans.ts';

test.describe('loading the core', () => {
  skipWebKit('page events');

  test('loads with no failed request, page error or console error', async ({ page, engine }) => {
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => void (m.type() === 'error' && problems.push(`console error: ${m.text()}`)));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => void (r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`)));
    const enginePage = playwrightEnginePage(engine, page);
    await openCorePage(enginePage);
    const hash = await enginePage.evaluate(() =>
      globalThis.blake3Web!.core.bytesToHex(globalThis.blake3Web!.core.blake3('')),
    );
    expect(hash).toBe(expectedHex(0, 'hash', 32));
    expect(problems).toEqual([]);
  });
});

test.describe('under a strict Content-Security-Policy', () => {
  skipWebKit('request interception');

  // Scripts allowed, WebAssembly compilation not: the core must hash with its portable backend.
  const CSP = "default-src 'self'; script-src 'self' 'unsafe-inline'";

  test('hashes correctly with the js backend when WebAssembly is refused', async ({ page, engine }) => {
    await page.route('**/servers/pages/core.html', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': CSP } });
    });
    const enginePage = playwrightEnginePage(engine, page);
    await openCorePage(enginePage);
    const result = await enginePage.evaluate(({ key }) => {
      const { core } = globalThis.blake3Web!;
      let wasmRefused = false;
      try {
        // The smallest valid module: magic and version.
        new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
      } catch {
        wasmRefused = true;
      }
      const input = new Uint8Array(1025);
      for (let i = 0; i < input.length; i++) input[i] = i % 251;
      return {
        wasmRefused,
        wasmSimdAvailable: core.isBackendAvailable('wasm-simd'),
        backend: core.backend(),
        hash: core.bytesToHex(core.blake3(input)),
        keyed: core.bytesToHex(core.blake3(input, { key: new TextEncoder().encode(key) })),
      };
    }, modeInputs);
    expect(result).toEqual({
      wasmRefused: true,
      wasmSimdAvailable: false,
      backend: 'js',
      hash: expectedHex(1025, 'hash', 32),
      keyed: expectedHex(1025, 'keyed_hash', 32),
    });
  });
});
