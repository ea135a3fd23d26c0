// Numbers as the pages show them.

/** Binary units, one decimal: sizes of files people picked. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) ((n /= 1024), i++);
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

/** Decimal megabytes per second, as hash benchmarks report throughput. */
export function formatSpeed(bytes: number, ms: number): string {
  if (ms <= 0) return '–';
  const mbps = bytes / 1e3 / ms;
  return `${mbps >= 100 ? mbps.toFixed(0) : mbps.toFixed(1)} MB/s`;
}

export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
