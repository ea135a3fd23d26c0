import { bytesToHex, hexToBytes } from '@blake3-web/core';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

/** The obvious definition, one byte at a time. */
const slowHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

describe('bytesToHex', () => {
  it('writes every byte value as two lowercase digits, high nibble first', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    assert.equal(bytesToHex(all), slowHex(all));
    assert.equal(bytesToHex(Uint8Array.of(0x0f, 0xf0, 0xa5)), '0ff0a5');
    assert.equal(bytesToHex(new Uint8Array(0)), '');
  });

  it('reads only the view: odd offsets and lengths inside a larger buffer', () => {
    const backing = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7 + 3) % 256);
    for (const [start, end] of [
      [1, 2],
      [3, 36],
      [5, 998],
      [0, 1000],
      [999, 1000],
    ]) {
      const view = backing.subarray(start, end);
      assert.equal(bytesToHex(view), slowHex(view), `bytes ${start}..${end}`);
    }
  });

  it('handles large inputs (a 4 MiB XOF block) and round-trips through hexToBytes', () => {
    const big = Uint8Array.from({ length: 4 << 20 }, (_, i) => (i * 2654435761) >>> 24);
    const hex = bytesToHex(big);
    assert.equal(hex.length, 8 << 20);
    assert.equal(hex.slice(0, 64), slowHex(big.subarray(0, 32)));
    assert.equal(hex.slice(-64), slowHex(big.subarray(-32)));
    assert.deepEqual(hexToBytes(hex), big);
  });

  it('rejects what is not a Uint8Array, naming the argument', () => {
    assert.throws(() => bytesToHex([1, 2] as never), { name: 'TypeError', message: /bytes must be a Uint8Array/ });
    assert.throws(() => bytesToHex(new Uint16Array(2) as never), {
      name: 'TypeError',
      message: /bytes must be a Uint8Array/,
    });
  });
});
