// Checkpoints survive JSON and structured clone; a damaged, foreign or future one is refused.
import { Random } from '@blake3-web/testkit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CheckpointError, UploadHasher, type Checkpoint } from '../src/index.ts';

const KEY = new Uint8Array(32).fill(9);
const data = new Random(7).bytes(200_000);

function checkpointAt(n: number, opts: object = {}): Checkpoint {
  const h = new UploadHasher({ upload: 'u1', ...opts });
  h.write(0, data.subarray(0, n));
  return h.checkpoint();
}

function refused(value: unknown, reason: CheckpointError['reason'], opts: object = {}): void {
  assert.throws(
    () => new UploadHasher({ upload: 'u1', ...opts, checkpoint: value as Checkpoint }),
    (e: unknown) => {
      assert.ok(e instanceof CheckpointError, String(e));
      assert.equal(e.reason, reason, e.message);
      return true;
    },
  );
}

describe('checkpoints', () => {
  it('round-trip through JSON and structured clone, and resume to the same root', () => {
    const whole = new UploadHasher({ upload: 'u1', key: KEY });
    whole.write(0, data);
    for (const n of [1, 1024, 1025, 3 * 1024 + 5, 65_537, 199_999]) {
      const cp = checkpointAt(n, { key: KEY });
      assert.equal(cp.offset % 1024, 0);
      assert.ok(n - cp.offset >= 1 && n - cp.offset <= 1024);
      for (const copy of [JSON.parse(JSON.stringify(cp)), structuredClone(cp)]) {
        const h = new UploadHasher({ upload: 'u1', key: KEY, checkpoint: copy });
        h.write(cp.offset, data.subarray(cp.offset));
        assert.deepEqual(h.digest(), whole.digest());
      }
    }
  });

  it('hold no key: a keyed checkpoint names the key by a fingerprint', () => {
    const cp = checkpointAt(5000, { key: KEY });
    assert.match(cp.mode, /^keyed:[0-9a-f]{32}$/);
    assert.ok(!JSON.stringify(cp).includes(Buffer.from(KEY).toString('hex')));
  });

  it('a damaged checkpoint is refused as corrupt', () => {
    const cp = checkpointAt(70_000);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === '0' ? '1' : '0') + s.slice(i + 1);
    refused({ ...cp, cvs: flip(cp.cvs, 5) }, 'corrupt');
    refused({ ...cp, cvs: cp.cvs.slice(64) }, 'corrupt');
    refused({ ...cp, cvs: cp.cvs.toUpperCase() }, 'corrupt');
    refused({ ...cp, offset: cp.offset + 1024 }, 'corrupt');
    refused({ ...cp, offset: cp.offset + 1 }, 'corrupt');
    refused({ ...cp, offset: String(cp.offset) }, 'corrupt');
    refused({ ...cp, check: flip(cp.check, 0) }, 'corrupt');
    refused({ ...cp, format: 'other' }, 'corrupt');
    const { check: _, ...unchecked } = cp;
    refused(unchecked, 'corrupt');
    refused(null, 'corrupt');
    refused('{}', 'corrupt');
  });

  it('a checkpoint of another version is refused as such', () => {
    refused({ ...checkpointAt(5000), version: 2 }, 'version');
  });

  it("another upload's or another mode's checkpoint is refused as foreign", () => {
    refused(checkpointAt(5000), 'foreign', { upload: 'u2' });
    refused(checkpointAt(5000), 'foreign', { key: KEY });
    refused(checkpointAt(5000, { key: KEY }), 'foreign', { key: new Uint8Array(32) });
    refused(checkpointAt(5000, { context: 'a' }), 'foreign', { context: 'b' });
  });
});
