// File names in b3sum's output and check files: a name with a backslash or a newline is written
// with `\\` and `\n` escapes, and the line gets a leading backslash to say so.

export function escapeName(name: string): { text: string; escaped: boolean } {
  if (!name.includes('\\') && !name.includes('\n')) return { text: name, escaped: false };
  return { text: name.replaceAll('\\', '\\\\').replaceAll('\n', '\\n'), escaped: true };
}

/** Reverses escapeName; anything but `\\` and `\n` after a backslash is an error. */
export function unescapeName(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[++i];
    if (next === 'n') out += '\n';
    else if (next === '\\') out += '\\';
    else throw new Error('Invalid backslash escape');
  }
  return out;
}
