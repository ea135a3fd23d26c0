// `pnpm bench:kernel`: the kernel alone in several shapes (src/kernel-shapes.ts), in Node, Deno,
// Bun, Chromium, Firefox and WebKitGTK, with V8's SIMD256 revectorizer off and on where the
// engine has it (Deno: --experimental-wasm-revectorize, Chromium 156: --wasm-revectorize). One
// process (or browser) per engine and flag state, alternating, `--repeat` times. Prints only.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import { build } from 'esbuild';
import { chromium, firefox } from 'playwright-core';

import { startWebKitSession } from '../../servers/webkit-session.ts';
import { LAUNCH_OPTIONS } from '../../scripts/browser-paths.mjs';
import { scriptArgs } from './script-args.ts';
import { benchDir, repoRoot } from './write-results.ts';

const args = scriptArgs({
  engines: { type: 'string', default: 'node,deno,chromium' },
  shapes: { type: 'string', default: 'default,steps shuffle,g shuffle' },
  rounds: { type: 'string', default: '7' },
  repeat: { type: 'string', default: '1' },
});
const engines = args.engines.split(',');
const shapes = args.shapes.split(',');
const rounds = Number(args.rounds);
const bin = join(repoRoot, 'node_modules', '.bin');
const runEntry = join(benchDir, 'src', 'kernel-shapes-run.ts');

/** The revectorizer flag of each engine that has one. */
const REVECTORIZE: Record<string, string> = {
  deno: '--v8-flags=--experimental-wasm-revectorize',
  chromium: '--js-flags=--wasm-revectorize',
};

function runtime(engine: string, flag: string | undefined): Record<string, number> {
  const command: Record<string, [string, string[]]> = {
    node: [process.execPath, ['--import', 'tsx', runEntry]],
    deno: [join(bin, 'deno'), ['run', '--sloppy-imports', '--allow-read', ...(flag ? [flag] : []), runEntry]],
    bun: [join(bin, 'bun'), [runEntry]],
  };
  const [cmd, argv] = command[engine];
  const r = spawnSync(cmd, [...argv, String(rounds), ...shapes], { cwd: benchDir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${engine}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

let page: string | undefined;
async function browser(engine: string, flag: string | undefined): Promise<Record<string, number>> {
  page ??= (
    await build({
      stdin: {
        contents: `import { measureShapes } from './src/kernel-shapes.ts'; globalThis.measureShapes = measureShapes;`,
        resolveDir: benchDir,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
    })
  ).outputFiles[0].text;
  const call = `measureShapes(${JSON.stringify(shapes)}, ${rounds}, 150, () => performance.now())`;
  if (engine === 'webkit') {
    const session = await startWebKitSession();
    try {
      await session.driver.manage().setTimeouts({ script: 600_000 });
      await session.driver.get('about:blank');
      await session.driver.executeScript(page);
      return JSON.parse(String(await session.driver.executeScript(`return JSON.stringify(${call});`)));
    } finally {
      await session.close();
    }
  }
  const options = LAUNCH_OPTIONS[engine as 'chromium' | 'firefox'];
  const b = await { chromium, firefox }[engine as 'chromium' | 'firefox'].launch({
    ...options,
    args: [...('args' in options ? options.args : []), ...(flag ? [flag] : [])],
  });
  try {
    const p = await b.newPage();
    await p.addScriptTag({ content: page });
    return JSON.parse(await p.evaluate(`JSON.stringify(${call})`));
  } finally {
    await b.close();
  }
}

console.log(`kernel alone, MB/s, medians of ${rounds} interleaved rounds; ratio to ${shapes[0]}`);
for (let r = 0; r < Number(args.repeat); r++) {
  for (const engine of engines) {
    for (const flag of REVECTORIZE[engine] ? [undefined, REVECTORIZE[engine]] : [undefined]) {
      const load = loadavg()[0].toFixed(1);
      const mbs = ['node', 'deno', 'bun'].includes(engine) ? runtime(engine, flag) : await browser(engine, flag);
      const cells = shapes.map((s) => `${s} ${mbs[s].toFixed(0)} (${(mbs[s] / mbs[shapes[0]]).toFixed(2)}x)`);
      console.log(`${engine}${flag ? ', revectorizer on' : ''} (load ${load}): ${cells.join(', ')}`);
    }
  }
}
