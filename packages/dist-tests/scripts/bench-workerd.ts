// Throughput of the core in workerd (the Workers runtime): the JS fallback against the kernel.wasm
// handed over with ready({ module }), at 1 MiB and 64 B, in interleaved rounds (medians and the
// ratio from one run); then the first backend() of fresh isolates, which is where a refused
// compilation costs its time.
//   node --import tsx scripts/bench-workerd.ts [--rounds 9] [--ms 300] [--cold 8] [--core <dist/index.js to compare>]
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startWorkerd } from '../test/workerd/serve.ts';
import type { BenchResponse, SelectResponse } from '../test/workerd/worker.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '9' }, ms: { type: 'string', default: '300' }, cold: { type: 'string', default: '8' }, core: { type: 'string' } } });
const rounds = Number(values.rounds), ms = Number(values.ms), cold = Number(values.cold);
const worker = { file: fileURLToPath(new URL('../test/workerd/worker.ts', import.meta.url)) };
const SIZES = [1 << 20, 64];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

console.log(`workerd, ${rounds} rounds of >= ${ms} ms per case, interleaved; load average before: ${load()}`);
const w = await startWorkerd(worker, ['module', 'fallback']);
const mbps: Record<string, number[]> = {};
try {
  for (let r = -1; r < rounds; r++) {
    // Round -1 warms both isolates up; the order of the services alternates per round.
    const order = r % 2 === 0 ? (['module', 'fallback'] as const) : (['fallback', 'module'] as const);
    for (const size of SIZES) {
      for (const s of order) {
        const res = (await (await fetch(`${w.url[s]}/bench?size=${size}&ms=${ms}`)).json()) as BenchResponse;
        if (r >= 0) (mbps[`${s} ${res.backend} ${size}`] ??= []).push(res.bytes / res.ms / 1000);
      }
    }
  }
} finally {
  await w.stop();
}
for (const size of SIZES) {
  const [simd] = Object.entries(mbps).filter(([k]) => k.startsWith('module wasm-simd') && k.endsWith(` ${size}`));
  const [js] = Object.entries(mbps).filter(([k]) => k.startsWith('fallback js') && k.endsWith(` ${size}`));
  if (!simd || !js) throw new Error(`missing results for ${size} B: ${Object.keys(mbps).join(', ')}`);
  const label = size >= 1 << 20 ? '1 MiB' : `${size} B`;
  console.log(`${label}: supplied module (wasm-simd) ${median(simd[1]).toFixed(0)} MB/s, JS fallback ${median(js[1]).toFixed(0)} MB/s, ratio ${(median(simd[1]) / median(js[1])).toFixed(2)}`);
}

// Fresh isolates: one workerd start each, the first backend() timed inside the Worker.
const variants: [string, string | undefined][] = [['this core', undefined], ...(values.core ? [[`core at ${values.core}`, values.core] as [string, string]] : [])];
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
for (const [name, xs] of Object.entries(firstSelect)) console.log(`first backend() in a fresh isolate without the module, ${name}: median ${median(xs).toFixed(2)} ms (${xs.map((x) => x.toFixed(1)).join(', ')})`);
console.log(`load average after: ${load()}`);
