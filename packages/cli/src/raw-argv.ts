// File names are bytes on Unix, and b3sum opens exactly the bytes it was given. Node decodes argv
// as UTF-8, replacing what is not with U+FFFD, so a name such as `caf\xe9.txt` would be lost; on
// Linux the bytes are in /proc/self/cmdline.
import { readFileSync } from 'node:fs';

/** One command-line argument: its bytes, and the text b3sum shows for it (lossy UTF-8). */
export type RawArg = {
  bytes: Uint8Array;
  text: string;
  /** False when the bytes are not known: the argument arrived decoded and held U+FFFD. */
  exact?: false;
};

const strict = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

/** UTF-8 text with each invalid sequence replaced by U+FFFD, as Rust's to_string_lossy does. */
export const lossyUtf8 = (bytes: Uint8Array): string => lossy.decode(bytes);

/** The text of valid UTF-8, or undefined. */
export function validUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

export function fromText(text: string): RawArg {
  const arg: RawArg = { bytes: Buffer.from(text, 'utf8'), text };
  if (text.includes('\uFFFD')) arg.exact = false;
  return arg;
}

/** Said after an error on a name whose bytes were lost before the tool saw them. */
export const NOT_UTF8_HINT =
  'the name may not be valid UTF-8, and this system does not give the tool its bytes (no /proc/self/cmdline)';

/**
 * The arguments after the script, as the bytes the process was given. Where they cannot be read
 * (no /proc, or a rewritten process title), the decoded strings stand in: a name that was not
 * UTF-8 then fails to open, and the error says why.
 */
export function rawArgv(decoded: readonly string[] = process.argv.slice(2)): RawArg[] {
  let entries: Buffer[] = [];
  try {
    const cmdline = readFileSync('/proc/self/cmdline');
    let start = 0;
    for (let i = 0; i < cmdline.length; i++) {
      if (cmdline[i] === 0) (entries.push(cmdline.subarray(start, i)), (start = i + 1));
    }
  } catch {
    entries = [];
  }
  const tail = entries.slice(entries.length - decoded.length);
  const matches = entries.length >= decoded.length && tail.every((b, i) => lossyUtf8(b) === decoded[i]);
  return matches ? tail.map((bytes) => ({ bytes, text: lossyUtf8(bytes) })) : decoded.map(fromText);
}
