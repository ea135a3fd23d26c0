import { defineConfig, type Plugin } from 'vite';
import { createBlobStore } from './server/blob-store.ts';

// Cross-origin isolation gives the page fine-grained timers (performance.now() steps of
// microseconds instead of 0.1-1 ms), which the timing shown and the benchmarks rely on.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

function blobs(): Plugin {
  const store = createBlobStore();
  return {
    name: 'blake3-web-blobs',
    configureServer: (server) => void server.middlewares.use(store.middleware),
    configurePreviewServer: (server) => void server.middlewares.use(store.middleware),
  };
}

export default defineConfig({
  // Relative asset URLs: the built site works from any static host and any sub-path.
  base: './',
  plugins: [blobs()],
  server: { host: '127.0.0.1', headers: isolation },
  preview: { host: '127.0.0.1', headers: isolation },
  build: { target: 'es2022' },
});
