import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createVerifiedFetch, DownloadError, memoryStore } from '../src/index.ts';
import { parseRange } from '../src/verified-fetch.ts';
import { startMirrors } from './_range-server.ts';
import { fixture } from './_fixture.ts';

describe('createVerifiedFetch', { timeout: 60_000 }, () => {
  it('answers GET, HEAD and Range requests with verified bytes, one download per root', async () => {
    const { content, root, outboard } = fixture(300_000, 30);
    const mirrors = await startMirrors(content, outboard, [{}]);
    try {
      const url = mirrors.urls[0];
      const f = createVerifiedFetch({ files: { [url]: { root, type: 'model/test' } }, store: memoryStore() });
      const [whole, part] = await Promise.all([f(url), f(url, { headers: { range: 'bytes=1000-1999' } })]);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-type'), 'model/test');
      assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), content);
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 1000-1999/${content.length}`);
      assert.deepEqual(new Uint8Array(await part.arrayBuffer()), content.subarray(1000, 2000));
      const tail = await f(new Request(url, { headers: { range: 'bytes=-10' } }));
      assert.deepEqual(new Uint8Array(await tail.arrayBuffer()), content.subarray(content.length - 10));
      assert.equal((await f(url, { headers: { range: `bytes=${content.length}-` } })).status, 416);
      const head = await f(url, { method: 'HEAD' });
      assert.equal(head.headers.get('content-length'), String(content.length));
      assert.equal(mirrors.stats[0].contentBytes, content.length);
    } finally {
      await mirrors.close();
    }
  });

  it('refuses URLs it does not know unless given a fallback, and rejects when the download fails', async () => {
    const { content, root, outboard } = fixture(50_000, 31);
    const mirrors = await startMirrors(content, outboard, [{ rangeFault: () => 'flip' }]);
    try {
      const f = createVerifiedFetch({ files: (u) => (u === mirrors.urls[0] ? root : undefined) });
      await assert.rejects(f('http://127.0.0.1:1/other'), TypeError);
      await assert.rejects(f(mirrors.urls[0]), DownloadError);
      const g = createVerifiedFetch({ files: {}, fallback: async () => new Response('x') });
      assert.equal(await (await g('http://127.0.0.1:1/other')).text(), 'x');
      assert.throws(() => createVerifiedFetch({ files: 3 as never }), TypeError);
    } finally {
      await mirrors.close();
    }
  });

  it('parses single byte ranges', () => {
    assert.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
    assert.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=95-200', 100), { start: 95, end: 99 });
    assert.deepEqual(parseRange('bytes=-200', 100), { start: 0, end: 99 });
    assert.equal(parseRange('bytes=100-', 100), 'unsatisfiable');
    assert.equal(parseRange('bytes=0-1,5-6', 100), undefined);
    assert.equal(parseRange(null, 100), undefined);
  });
});
