// Throughput of the core in workerd (the Workers runtime): the JS fallback against the kernel.wasm
// handed over with ready({ module }), at 1 MiB and 64 B, in interleaved rounds (medians and the
// ratio from one run); then the first backend() of fresh isolates, which is where a refused
// compilation costs its time.
//   pnpm --filter @blake3-web/dist-tests bench:workerd [--rounds 9] [--ms 300] [--cold 8] [--core <dist/index.js to compare> [--core-label <name>]] [--write]
// --write puts the section into docs/BENCHMARKS.md between its markers.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startWorkerd } from '../test/workerd/serve.ts';
import type { BenchResponse, SelectResponse } from '../test/workerd/worker.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    ms: { type: 'string', default: '300' },
    cold: { type: 'string', default: '8' },
    core: { type: 'string' },
    'core-label': { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds),
  ms = Number(values.ms),
  cold = Number(values.cold);
const worker = { file: fileURLToPath(new URL('../test/workerd/worker.ts', import.meta.url)) };
const SIZES = [1 << 20, 64];
/** CPU time of a process so far, in ms (Linux): what the Worker got, whatever else the machine runs. */
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond; // utime + stime
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};
const loadBefore = load();
console.log(`workerd, ${rounds} rounds of >= ${ms} ms per case, interleaved; load average before: ${loadBefore}`);
const w = await startWorkerd(worker, ['module', 'fallback']);
const mbps: Record<string, number[]> = {};
const cpuMbps: Record<string, number[]> = {};
try {
  for (let r = -1; r < rounds; r++) {
    // Round -1 warms both isolates up; the order of the services alternates per round.
    const order = r % 2 === 0 ? (['module', 'fallback'] as const) : (['fallback', 'module'] as const);
    for (const size of SIZES) {
      for (const s of order) {
        const cpu = cpuMs(w.pid);
        const res = (await (await fetch(`${w.url[s]}/bench?size=${size}&ms=${ms}`)).json()) as BenchResponse;
        const key = `${s} ${res.backend} ${size}`;
        if (r >= 0) (mbps[key] ??= []).push(res.bytes / res.ms / 1000);
        if (r >= 0) (cpuMbps[key] ??= []).push(res.bytes / (cpuMs(w.pid) - cpu) / 1000);
      }
    }
  }
} finally {
  await w.stop();
}
const table: string[] = [];
for (const size of SIZES) {
  const simd = `module wasm-simd ${size}`,
    js = `fallback js ${size}`;
  if (!mbps[simd] || !mbps[js]) throw new Error(`missing results for ${size} B: ${Object.keys(mbps).join(', ')}`);
  const label = size >= 1 << 20 ? '1 MiB' : `${size} B`;
  const cells = (m: Record<string, number[]>) =>
    `${median(m[simd]).toFixed(0)} | ${median(m[js]).toFixed(0)} | ${(median(m[simd]) / median(m[js])).toFixed(2)}`;
  table.push(`| ${label} | ${cells(cpuMbps)} | ${cells(mbps)} |`);
}

// Fresh isolates: one workerd start each, the first backend() timed inside the Worker.
const variants: [string, string | undefined][] = [
  ['this core', undefined],
  ...(values.core ? [[values['core-label'] ?? `the core at ${values.core}`, values.core] as [string, string]] : []),
];
const firstSelect: Record<string, number[]> = {};
for (let i = 0; i < cold; i++) {
  for (const [name, core] of i % 2 === 0 ? variants : [...variants].reverse()) {
    const c = await startWorkerd(worker, ['fallback'], core);
    try {
      const res = (await (await fetch(`${c.url.fallback}/select`)).json()) as SelectResponse;
      (firstSelect[name] ??= []).push(res.ms);
    } finally {
      await c.stop();
    }
  }
}
const version = execFileSync(fileURLToPath(new URL('../node_modules/.bin/workerd', import.meta.url)), ['--version'], {
  encoding: 'utf8',
}).trim();
say('<!-- bench:workerd:start -->');
say('## Cloudflare Workers (workerd)');
say('');
say(
  `${new Date().toISOString().slice(0, 10)}, ${version} run locally (\`workerd\` from npm), 2 cores shared with other work; 1-minute load average ${loadBefore.split(' ')[0]} before, ${load().split(' ')[0]} after. Run: \`pnpm --filter @blake3-web/dist-tests bench:workerd\`.`,
);
say('');
say(
  `One-shot \`blake3()\` of the same message, repeated for at least ${ms} ms per sample inside the Worker; median of ${rounds} rounds, the two isolates alternating. workerd refuses to compile WebAssembly from bytes, so without the module the library hashes in JS. "CPU": bytes over the CPU time workerd used during the request (from /proc, so other work on the machine does not count); "wall": bytes over the Worker's own clock (local workerd lets timers run during CPU work).`,
);
say('');
say(
  '| message | kernel.wasm via ready({ module }), CPU MB/s | JS fallback, CPU MB/s | ratio | kernel.wasm, wall MB/s | JS fallback, wall MB/s | ratio |',
);
say('|:--|--:|--:|--:|--:|--:|--:|');
for (const row of table) say(row);
say('');
for (const [name, xs] of Object.entries(firstSelect))
  say(
    `First \`backend()\` of a fresh isolate without the module, ${name}: median ${median(xs).toFixed(0)} ms over ${xs.length} isolates (${xs.map((x) => x.toFixed(0)).join(', ')}; timer steps of 1 ms).`,
  );
say('<!-- bench:workerd:end -->');
if (values.write) {
  const doc = new URL('../../../docs/BENCHMARKS.md', import.meta.url);
  const text = readFileSync(doc, 'utf8');
  const section = lines.join('\n');
  const at = /<!-- bench:workerd:start -->[\s\S]*?<!-- bench:workerd:end -->/;
  writeFileSync(doc, at.test(text) ? text.replace(at, section) : `${text.trimEnd()}\n\n${section}\n`);
}
