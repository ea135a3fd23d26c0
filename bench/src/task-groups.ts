// The rows of the benchmark page's pool, stream and batch table, grouped: each group says what
// its ratios divide by, a row without a number says why. Pure, so tests check it in Node.
import type { BrowserBenchReport } from './browser-report.ts';
import { formatSize } from './sizes.ts';
import type { TaskRow } from './task-row.ts';

export interface TaskGroupRow {
  readonly label: string;
  readonly mbps: string;
  readonly ratio: string;
  /** Empty for a measured row; else why it has no number. */
  readonly note: string;
}

export interface TaskGroup {
  readonly id: string;
  readonly title: string;
  readonly rows: readonly TaskGroupRow[];
}

/** MB/s as the tables print it; '–' for no number (NaN, or null once a report went through JSON). */
export function formatMbps(v: number | null | undefined): string {
  return typeof v !== 'number' || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

const measured = (r: TaskRow) => r.skipped === undefined && typeof r.median === 'number' && Number.isFinite(r.median);

/** Every row of one group as a ratio of its first row; '–' where either has no number. */
function groupRows(rows: readonly TaskRow[], unmeasured: (r: TaskRow) => string): TaskGroupRow[] {
  const base = rows[0];
  return rows.map((r) => ({
    label: r.label.replaceAll('`', ''),
    mbps: measured(r) ? formatMbps(r.median) : '–',
    ratio: measured(r) && base && measured(base) ? (r.median / base.median).toFixed(2) : '–',
    note: r.skipped !== undefined ? `skipped: ${r.skipped}` : measured(r) ? '' : unmeasured(r),
  }));
}

type TaskReport = Pick<BrowserBenchReport, 'pool' | 'stream' | 'batch' | 'skipped'>;

export function taskGroups(report: TaskReport): TaskGroup[] {
  const groups: TaskGroup[] = [];
  const notYet = () => 'not measured yet';
  const { pool, stream } = report;
  if (pool.rows.length > 0) {
    const base = pool.rows[0].id === 'read' ? 'the read-only row (its ceiling)' : pool.rows[0].label;
    groups.push({
      id: 'pool',
      title: `Worker pool on one ${formatSize(pool.blobBytes)} Blob, median of ${pool.rounds} rounds; × ${base}`,
      rows: groupRows(pool.rows, notYet),
    });
  }
  const streamSkipped = report.skipped?.find((s) => s.stage === 'stream');
  if (stream.rows.length > 0 || streamSkipped) {
    groups.push({
      id: 'stream',
      title: `${formatSize(stream.totalBytes)} as a stream of ${formatSize(stream.chunkBytes)} chunks, median of ${stream.rounds} rounds; × ${stream.rows[0]?.label ?? 'one-shot blake3()'}`,
      rows: streamSkipped
        ? [{ label: 'every stream case', mbps: '–', ratio: '–', note: `skipped: ${streamSkipped.reason}` }]
        : groupRows(stream.rows, notYet),
    });
  }
  for (const b of report.batch ?? []) {
    groups.push({
      id: `batch-${b.workload}`,
      title: `${b.count} messages of ${b.label}; × ${b.rows[0]?.label.replaceAll('`', '') ?? 'the first row'}`,
      rows: groupRows(b.rows, (r) =>
        r.id.startsWith('kernel') ? 'not run: the kernel takes messages of one length only' : 'not measured',
      ),
    });
  }
  const batchSkipped = report.skipped?.find((s) => s.stage === 'batch');
  if (batchSkipped) {
    groups.push({
      id: 'batch',
      title: 'Batches of 4096 small messages',
      rows: [{ label: 'every batch case', mbps: '–', ratio: '–', note: `skipped: ${batchSkipped.reason}` }],
    });
  }
  return groups;
}
