// The hash options form: mode, key or context, output length, read into blake3() options.
import { hexToBytes, type Blake3Opts } from '@blake3-web/core';

export type ModeName = 'hash' | 'keyed' | 'derive';

export type ParsedOptions = { ok: true; opts: Blake3Opts; summary: string } | { ok: false; error: string };

export const MAX_OUTPUT_BYTES = 1024;

export function parseOptions(mode: ModeName, keyHex: string, context: string, dkLenText: string): ParsedOptions {
  const dkLen = Number(dkLenText);
  if (!Number.isInteger(dkLen) || dkLen < 1 || dkLen > MAX_OUTPUT_BYTES) {
    return { ok: false, error: `Output length must be a whole number of bytes from 1 to ${MAX_OUTPUT_BYTES}.` };
  }
  const suffix = dkLen === 32 ? '' : `, ${dkLen} bytes`;
  if (mode === 'keyed') {
    const key = keyHex.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(key))
      return { ok: false, error: `The key must be 64 hex digits (32 bytes); it has ${key.length} characters.` };
    return { ok: true, opts: { key: hexToBytes(key.toLowerCase()), dkLen }, summary: `keyed${suffix}` };
  }
  if (mode === 'derive') {
    if (context === '') return { ok: false, error: 'derive_key needs a context string.' };
    return { ok: true, opts: { context, dkLen }, summary: `derive_key "${context}"${suffix}` };
  }
  return { ok: true, opts: { dkLen }, summary: `hash${suffix}` };
}
