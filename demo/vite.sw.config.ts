import { defineConfig } from 'vite';

// The service worker is built on its own, as one classic script (every engine can run it
// without module-worker support), next to the page in dist/.
export default defineConfig({
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    target: 'es2022',
    emptyOutDir: false,
    lib: { entry: 'src/sw.ts', formats: ['iife'], name: 'blake3WebServiceWorker', fileName: () => 'sw.js' },
  },
});
