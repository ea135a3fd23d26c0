import { defineConfig } from 'vite';

// The service workers are built one at a time (`--mode` picks which), each as one classic
// script (every engine can run it without module-worker support), next to the pages in dist/.
// A worker's default scope is its directory, so the precaching one lives in precache/.
const WORKERS: Record<string, { entry: string; file: string }> = {
  production: { entry: 'src/sw.ts', file: 'sw.js' },
  precache: { entry: 'src/precache-sw.ts', file: 'precache/sw.js' },
};

export default defineConfig(({ mode }) => {
  const worker = WORKERS[mode];
  if (!worker) throw new RangeError(`--mode must be one of ${Object.keys(WORKERS).join(', ')}, got ${mode}`);
  return {
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    // Only the pages' build copies public/.
    publicDir: false,
    build: {
      target: 'es2022',
      emptyOutDir: false,
      lib: { entry: worker.entry, formats: ['iife'], name: 'blake3WebServiceWorker', fileName: () => worker.file },
    },
  };
});
