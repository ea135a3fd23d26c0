import { openCorePage } from '../fixtures/core-page.ts';
import { expect, test } from '../../servers/engine-test.ts';

test.describe('fixture server', () => {
  test('serves modules, JSON and pages with their MIME types', async ({ enginePage }) => {
    await openCorePage(enginePage);
    const types = await enginePage.evaluate(async () => {
      const paths = [
        '../../packages/core/dist/index.js',
        '../../packages/testkit/vectors/blake3-official.json',
        'core.html',
      ];
      return Promise.all(paths.map(async (p) => (await fetch(p)).headers.get('content-type')));
    });
    expect(types).toEqual([
      'text/javascript; charset=utf-8',
      'application/json; charset=utf-8',
      'text/html; charset=utf-8',
    ]);
  });

  test('a page under the isolated prefix is cross-origin isolated and still loads the core', async ({ enginePage }) => {
    await openCorePage(enginePage, { isolated: true });
    expect(await enginePage.evaluate(() => globalThis.crossOriginIsolated)).toBe(true);
  });

  test('a plain page is not cross-origin isolated', async ({ enginePage }) => {
    await openCorePage(enginePage);
    expect(await enginePage.evaluate(() => globalThis.crossOriginIsolated)).toBe(false);
  });
});
