// Error reasons worded as b3sum words them (Rust's io::Error: strerror text and the errno), so
// scripts that match on them keep working.
const MESSAGES: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EMFILE: 'Too many open files',
  EIO: 'Input/output error',
  ENXIO: 'No such device or address',
  EPIPE: 'Broken pipe',
};

export function osErrorReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const text = e?.code !== undefined ? MESSAGES[e.code] : undefined;
  if (text !== undefined && typeof e.errno === 'number') return `${text} (os error ${Math.abs(e.errno)})`;
  return e instanceof Error ? e.message : String(err);
}
