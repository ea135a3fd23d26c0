// The IndexedDB checkpoint store (under fake-indexeddb here; the browsers' own in e2e).
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { indexedDbCheckpointStore, UploadHasher } from '../src/index.ts';

it('keeps checkpoints by upload identity, across store objects, until deleted', async () => {
  const h = new UploadHasher({ upload: 'file-a' });
  h.write(0, new Uint8Array(50_000).fill(1));
  const cp = h.checkpoint();
  await indexedDbCheckpointStore('test-db').set('file-a', cp);
  const again = indexedDbCheckpointStore('test-db');
  assert.deepEqual(await again.get('file-a'), cp);
  assert.equal(await again.get('file-b'), undefined);
  assert.equal(await indexedDbCheckpointStore('other-db').get('file-a'), undefined);
  const resumed = new UploadHasher({ upload: 'file-a', checkpoint: (await again.get('file-a')) as typeof cp });
  assert.equal(resumed.offset, cp.offset);
  await again.delete('file-a');
  assert.equal(await indexedDbCheckpointStore('test-db').get('file-a'), undefined);
});
