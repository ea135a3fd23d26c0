// File names in b3sum's output and check files: a name with a backslash, a newline or a carriage
// return is written with `\\`, `\n` and `\r` escapes, and its line starts with a backslash to say so.

export function escapeName(name: string): { text: string; escaped: boolean } {
  if (!/[\\\n\r]/.test(name)) return { text: name, escaped: false };
  return { text: name.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('\r', '\\r'), escaped: true };
}

/** Reverses escapeName; anything but `\\`, `\n` and `\r` after a backslash is an error. */
export function unescapeName(text: string): string {
  return text.replace(/\\(.?)/gs, (_, next: string) => {
    if (next === 'n') return '\n';
    if (next === 'r') return '\r';
    if (next === '\\') return '\\';
    throw new Error('Invalid backslash escape');
  });
}
