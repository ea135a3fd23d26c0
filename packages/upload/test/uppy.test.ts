// @uppy/tus 6 passes tus-js-client options on, the adapter's fileReader and request hooks among
// them: through Uppy the file is read by the adapter (each byte once), the root goes with the last
// request, and the verifying server accepts the upload; a byte flipped in transit is refused.
import { blake3, bytesToHex } from '@blake3-web/core';
import { Random } from '@blake3-web/testkit';
import Uppy from '@uppy/core';
import Tus from '@uppy/tus';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { blake3Tus } from '../src/index.ts';
import { inThreadHashers } from './_in-thread.ts';
import { startTusServer, type TusTestServer } from './_tus-server.ts';

const CHUNK = 64 * 1024;
const data = new Random(33).bytes(700_000 + 11);
const ROOT = bytesToHex(blake3(data));

const { createWorker, closeAll } = inThreadHashers();

async function uploadWithUppy(endpoint: string, name: string) {
  const b3 = blake3Tus({ createWorker, checkpoints: null });
  const uppy = new Uppy().use(Tus, { endpoint, chunkSize: CHUNK, retryDelays: [], ...b3.options });
  uppy.addFile({ name, type: 'application/octet-stream', data: new File([data], name, { lastModified: 1 }) });
  const result = await uppy.upload();
  uppy.destroy();
  return { b3, result };
}

describe('@uppy/tus 6 with the adapter', () => {
  let server: TusTestServer;
  before(async () => {
    server = await startTusServer();
  });
  after(async () => {
    closeAll();
    await server.close();
  });

  it('hands the adapter the file and the requests: read once, root sent, upload verified', async () => {
    const { b3, result } = await uploadWithUppy(server.endpoint, 'uppy.bin');
    assert.equal(result?.failed?.length, 0, String(result?.failed?.[0]?.error));
    assert.equal(result?.successful?.length, 1);
    assert.equal(b3.bytesRead, data.length, 'the adapter read the file, not tus-js-client');
    assert.equal(bytesToHex(await b3.root), ROOT);
  });

  it('a byte changed in transit: the server refuses the upload with 460', async () => {
    server.faults.flipAt = 123_456;
    try {
      const { result } = await uploadWithUppy(server.endpoint, 'uppy-tampered.bin');
      assert.equal(result?.successful?.length, 0);
      const failed = result?.failed?.[0];
      assert.equal(failed?.response?.status, 460);
      assert.match(String(failed?.error), /response code: 460/);
    } finally {
      server.faults.flipAt = undefined;
    }
  });
});
