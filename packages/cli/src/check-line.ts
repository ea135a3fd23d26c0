import { hexToBytes } from '@blake3-web/core';
import { unescapeName } from './escape-name.js';

export type CheckLine = {
  /** The name as written in the check file (escaped), to echo back in the report. */
  shown: string;
  path: string;
  expected: Uint8Array;
};

const HEX_LEN = 64;

/**
 * One line of a check file, in either format b3sum writes: `<hex>  <name>` or the BSD-style
 * `BLAKE3 (<name>) = <hex>`; a leading backslash marks an escaped name.
 */
export function parseCheckLine(raw: string): CheckLine {
  let line = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line === '') throw new Error('Empty line');
  const escaped = line.startsWith('\\');
  if (escaped) line = line.slice(1);
  let hex: string, name: string;
  const tag = /^BLAKE3 \((.*)\) = ([^ ]*)$/s.exec(line);
  if (tag) {
    [, name, hex] = tag;
  } else {
    if (line.length <= HEX_LEN + 2 || line.slice(HEX_LEN, HEX_LEN + 2) !== '  ') throw new Error('Invalid check line format');
    hex = line.slice(0, HEX_LEN);
    name = line.slice(HEX_LEN + 2);
  }
  // Lowercase only, as b3sum writes them.
  if (hex.length !== HEX_LEN || !/^[0-9a-f]*$/.test(hex)) throw new Error('Invalid hex');
  const path = escaped ? unescapeName(name) : name;
  // A check is a security tool: refuse names that could stand for more than one file.
  if (path.includes('\0')) throw new Error('Null character in path');
  if (path.includes('\uFFFD')) throw new Error('Unicode replacement character in path');
  return { shown: (escaped ? '\\' : '') + name, path, expected: hexToBytes(hex) };
}
