// Batches of many small messages: hashMany / hashManyInto against a loop of blake3() and the
// platform's SHA-256 on the same messages. No Node or DOM APIs: Node and the browser page hand
// in their own SHA-256 and clock.
import type * as coreLib from '@blake3-web/core';

import type { TaskRow } from './task-row.ts';
import { mulberry32, roundOrder } from './run-rounds.ts';
import { median } from './stats.ts';

/** The kernel on a batch: `run` hashes it, `digests` gives its first piece's digests, to check. */
export interface KernelRun {
  readonly run: () => void;
  readonly digests: () => Uint8Array[];
}

export interface BatchWorkload {
  readonly id: string;
  readonly label: string;
  readonly messages: Uint8Array[];
}

export interface BatchResult {
  readonly workload: string;
  readonly label: string;
  readonly count: number;
  readonly bytes: number;
  /** In case order; the first is the loop of blake3(), the baseline of every ratio. */
  readonly rows: TaskRow[];
}

export interface BatchOptions {
  readonly count: number;
  readonly rounds: number;
  /** Each sample repeats its case until it lasts about this long (repeats fixed per workload). */
  readonly targetMs: number;
  /** The platform's SHA-256 over every message of a batch (awaited: WebCrypto is asynchronous). */
  readonly sha256?: { readonly label: string; readonly batch: (messages: Uint8Array[]) => unknown };
  /**
   * The `many` kernel on the workload's messages, where it can run them: alone (the messages
   * already in its memory) and copying each piece's messages in first. Each `run` hashes a
   * batch's worth; `digests` gives the digests of the first piece of the batch.
   */
  readonly kernel?: (
    messages: readonly Uint8Array[],
  ) => { readonly alone: KernelRun; readonly copying: KernelRun } | undefined;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
  /** Awaited between samples: a browser page passes a macrotask so it stays responsive. */
  readonly pause?: () => Promise<void>;
}

/**
 * Separate arrays, as records read one by one arrive; bytes `(i + j) mod 251`. 64-byte messages
 * come 4 times as many, so every batch is long enough to time.
 */
export function batchWorkloads(count: number): BatchWorkload[] {
  // Seeded: the random lengths are the same in every engine and every run.
  const random = mulberry32(0xb1a4e3);
  const make = (length: (i: number) => number, n = count) =>
    Array.from({ length: n }, (_, i) => {
      const m = new Uint8Array(length(i));
      for (let j = 0; j < m.length; j++) m[j] = (i + j) % 251;
      return m;
    });
  return [
    { id: '64', label: '64 B', messages: make(() => 64, 4 * count) },
    { id: '1k', label: '1 KiB', messages: make(() => 1024) },
    { id: 'random-4k', label: 'random 0..4 KiB', messages: make(() => Math.floor(random() * 4097)) },
  ];
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

export async function measureBatches(core: typeof coreLib, opts: BatchOptions): Promise<BatchResult[]> {
  const now = opts.now ?? (() => performance.now());
  const log = opts.log ?? (() => {});
  const results: BatchResult[] = [];
  for (const w of batchWorkloads(opts.count)) {
    const { messages } = w;
    const bytes = messages.reduce((n, m) => n + m.length, 0);
    const out = new Uint8Array(32 * messages.length);
    const cases: { id: string; label: string; run: () => unknown }[] = [
      { id: 'loop', label: 'loop of blake3()', run: () => messages.map((m) => core.blake3(m)) },
      { id: 'hashMany', label: 'hashMany', run: () => core.hashMany(messages) },
      { id: 'hashManyInto', label: 'hashManyInto', run: () => (core.hashManyInto(messages, out), out) },
    ];
    const kernel = opts.kernel?.(messages);
    if (opts.kernel) {
      cases.push({ id: 'kernel', label: '`many` kernel alone', run: kernel?.alone.run ?? (() => undefined) });
      cases.push({
        id: 'kernelCopy',
        label: '`many` kernel, messages copied in',
        run: kernel?.copying.run ?? (() => undefined),
      });
    }
    if (opts.sha256) cases.push({ id: 'sha256', label: opts.sha256.label, run: () => opts.sha256!.batch(messages) });

    // Every BLAKE3 case must give the loop's digests before anything is timed.
    const want = (cases[0].run() as Uint8Array[]).map(hex);
    const many = core.hashMany(messages).map(hex);
    core.hashManyInto(messages, out);
    for (let i = 0; i < messages.length; i++) {
      if (many[i] !== want[i]) throw new Error(`hashMany, ${w.label}, message ${i}: ${many[i]}, expected ${want[i]}`);
      const into = hex(out.subarray(32 * i, 32 * i + 32));
      if (into !== want[i]) throw new Error(`hashManyInto, ${w.label}, message ${i}: ${into}, expected ${want[i]}`);
    }

    if (kernel) {
      for (const [name, k] of [
        ['the kernel alone', kernel.alone],
        ['the kernel copying', kernel.copying],
      ] as const) {
        k.digests().forEach((d, i) => {
          if (hex(d) !== want[i]) throw new Error(`${name}, ${w.label}, message ${i}: ${hex(d)}, expected ${want[i]}`);
        });
      }
    }

    const time = async (run: () => unknown, reps: number) => {
      const t0 = now();
      for (let r = 0; r < reps; r++) await run();
      return now() - t0;
    };
    // Repeats per sample from the slowest BLAKE3 case, so every case gets the same count.
    let reps = 1;
    while ((await time(cases[0].run, reps)) < opts.targetMs / 2) reps *= 2;
    for (const c of cases) await time(c.run, reps); // untimed warm-up

    const rows: TaskRow[] = cases.map((c) => ({ id: c.id, label: c.label, samples: [], median: 0 }));
    // SHA-256 gets its own rounds after the others: node:crypto's digests are Buffers on
    // external memory, and the collections they set off landed in whichever case ran next
    // (hashMany at 64 B: 300-320 MB/s after them, 490-540 without them).
    const blake3Cases = cases
      .map((_, k) => k)
      .filter((k) => cases[k].id !== 'sha256' && (!cases[k].id.startsWith('kernel') || kernel));
    const others = cases.map((_, k) => k).filter((k) => cases[k].id === 'sha256');
    for (const group of [blake3Cases, others]) {
      for (let round = 0; round < opts.rounds; round++) {
        for (const i of roundOrder(group, round)) {
          const ms = await time(cases[i].run, reps);
          rows[i].samples.push((bytes * reps) / 1e3 / ms);
          await opts.pause?.();
        }
      }
    }
    for (const r of rows) r.median = r.samples.length ? median(r.samples) : NaN;
    log(`${w.label}: ${rows.map((r) => `${r.id} ${r.median.toFixed(0)}`).join(', ')} MB/s`);
    results.push({ workload: w.id, label: w.label, count: messages.length, bytes, rows });
  }
  return results;
}

/** The Markdown table of one engine's batches: MB/s of message bytes and the ratio to the loop. */
export function batchTable(results: readonly BatchResult[]): string {
  if (results.length === 0) return '';
  const labels = results[0].rows.map((r) => r.label);
  const head = `| messages | ${labels.join(' | ')} |`;
  const rule = `|:--|${labels.map(() => '--:').join('|')}|`;
  const body = results.map((res) => {
    const base = res.rows[0].median;
    // A case that was not timed has no median: NaN, or null once a report went through JSON.
    const cells = res.rows.map((r, i) =>
      !Number.isFinite(r.median)
        ? '–'
        : i === 0
          ? r.median.toFixed(0)
          : `${r.median.toFixed(0)} (${(r.median / base).toFixed(2)}x)`,
    );
    return `| ${res.count} x ${res.label} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...body].join('\n');
}

/**
 * hashMany and hashManyInto as fractions of the kernel alone and of the kernel copying its
 * messages in, per workload they ran: one line.
 */
export function kernelRatios(results: readonly BatchResult[]): string {
  const parts = results.flatMap((res) => {
    const row = (id: string) => res.rows.find((r) => r.id === id)?.median ?? NaN;
    const k = row('kernel');
    // A median is NaN when not measured, or null once a report went through JSON.
    if (!Number.isFinite(k)) return [];
    const to = (base: number) =>
      `\`hashMany\` ${(row('hashMany') / base).toFixed(2)}x, \`hashManyInto\` ${(row('hashManyInto') / base).toFixed(2)}x`;
    const copying = row('kernelCopy');
    return [
      `${res.count} x ${res.label}: ${to(k)}` +
        (Number.isFinite(copying)
          ? ` the kernel alone (the copy alone takes it to ${(copying / k).toFixed(2)}x), ${to(copying)} the kernel copying`
          : ''),
    ];
  });
  return parts.length ? `Against the \`many\` kernel in the same rounds: ${parts.join('; ')}.` : '';
}
