import { unescapeName } from './escape-name.js';

export type CheckLine = {
  /** The name as written in the check file (escaped, with its leading backslash), to echo back. */
  shown: string;
  path: string;
  /** Lowercase hex, 64 digits. */
  expectedHex: string;
};

const HEX_LEN = 64;
const TAG_START = 'BLAKE3 (';
const TAG_END = ') = ';

/**
 * One line of a check file, parsed as b3sum 1.8 parses it: `<hex>  <name>` (split at the first
 * two spaces) or else `BLAKE3 (<name>) = <hex>` (split at the last `) = `); trailing CRs and LFs
 * dropped; a leading backslash marks an escaped name. Errors carry b3sum's messages.
 */
export function parseCheckLine(raw: string): CheckLine {
  const line = raw.replace(/[\r\n]+$/, '');
  if (line === '') throw new Error('Empty line');
  const escaped = line.startsWith('\\');
  const body = escaped ? line.slice(1) : line;
  let hex: string, name: string;
  const gap = body.indexOf('  ');
  if (gap >= 0) {
    hex = body.slice(0, gap);
    name = body.slice(gap + 2);
  } else {
    const end = body.startsWith(TAG_START) ? body.lastIndexOf(TAG_END) : -1;
    if (end < TAG_START.length) throw new Error('Invalid check line format');
    name = body.slice(TAG_START.length, end);
    hex = body.slice(end + TAG_END.length);
  }
  // Lengths in UTF-8 bytes, as Rust counts them; digits lowercase only, as b3sum writes them.
  if (Buffer.byteLength(hex, 'utf8') !== HEX_LEN) throw new Error('Invalid hash length');
  if (!/^[0-9a-f]*$/.test(hex)) throw new Error('Invalid hex');
  const path = escaped ? unescapeName(name) : name;
  if (path === '') throw new Error('empty file path');
  // A check is a security tool: refuse names that could stand for more than one file.
  if (path.includes('\0')) throw new Error('Null character in path');
  if (path.includes('\uFFFD')) throw new Error('Unicode replacement character in path');
  return { shown: (escaped ? '\\' : '') + name, path, expectedHex: hex };
}
