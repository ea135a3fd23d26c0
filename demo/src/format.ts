// Numbers as the pages show them: every size, speed, share and duration on every page comes from here.

/** Binary units, one decimal: sizes of files people picked. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) ((n /= 1024), i++);
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

/** An exact byte count, digits grouped: where the very number matters (what was verified, released). */
export function formatByteCount(n: number): string {
  return `${n.toLocaleString('en')} ${n === 1 ? 'byte' : 'bytes'}`;
}

/** A size both ways: readable, and exact when the readable one rounds. */
export function formatSize(n: number): string {
  return n < 1024 ? formatByteCount(n) : `${formatBytes(n)} (${formatByteCount(n)})`;
}

/** Decimal megabytes per second, as hash benchmarks report throughput. */
export function formatSpeed(bytes: number, ms: number): string {
  if (ms <= 0) return '–';
  const mbps = bytes / 1e3 / ms;
  return `${mbps >= 100 ? mbps.toFixed(0) : mbps.toFixed(1)} MB/s`;
}

/** A share of a whole in whole percents; 100% only when it is all done. */
export function formatPercent(done: number, total: number): string {
  if (total <= 0) return '100%';
  const p = Math.floor((done / total) * 100);
  return `${done < total ? Math.min(p, 99) : 100}%`;
}

export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
