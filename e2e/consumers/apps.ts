// The example apps (examples/<dir>) as the consumer specs run them: each built, Vite's also
// served by its dev server, one per Vite major.

export type App = {
  /** What the specs call it: the bundler, its version where several are tested, and how it runs. */
  readonly name: string;
  /** Its directory under examples/ (one directory serves every Vite major). */
  readonly dir: string;
  /**
   * The directory it is installed in: apps that differ only in mode share one. A dev server with
   * a config of its own gets its own, or two servers would rewrite each other's .vite/deps.
   */
  readonly install: string;
  /** Pinned dev dependencies replacing the example's own (older Vite majors). */
  readonly devDependencies?: Readonly<Record<string, string>>;
  /** 'build': `npm run build`, then the directory below is served as is. 'dev': Vite's dev server. */
  readonly mode: 'build' | 'dev';
  /** Served directory, relative to the app (for 'build'). */
  readonly serve?: string;
  /** A vite.config for the dev server, where the app is run with one. */
  readonly viteConfig?: string;
  /**
   * How the packages' workers (the pool's and the upload's hashing worker) start there: 'file',
   * the worker file the bundler emitted (or, with no bundler, the package's own); 'blob', from its
   * source where the bundler left the file out.
   */
  readonly worker: 'file' | 'blob';
};

/** One install of an example: apps that differ only in mode share it. */
export type Install = {
  readonly key: string;
  readonly dir: string;
  readonly devDependencies?: Readonly<Record<string, string>>;
  /** It also gets the packages only a Node server uses (prepare.ts's SERVER_PACKAGES). */
  readonly server?: boolean;
};

// Vite 6 and 7 pre-bundle dependencies for the dev server into .vite/deps, without the worker file.
const VITE_MAJORS: readonly [string, Record<string, string> | undefined, App['worker']][] = [
  ['vite6', { vite: '6.4.6' }, 'blob'],
  ['vite7', { vite: '7.3.8' }, 'blob'],
  // examples/vite pins Vite 8 itself.
  ['vite8', undefined, 'file'],
];

export const APPS: readonly App[] = [
  {
    name: 'no bundler (import map)',
    dir: 'importmap',
    install: 'importmap',
    mode: 'build',
    serve: '.',
    worker: 'file',
  },
  ...VITE_MAJORS.flatMap(([key, devDependencies, devWorker]): App[] => [
    { name: `${key} dev`, dir: 'vite', install: key, devDependencies, mode: 'dev', worker: devWorker },
    { name: `${key} build`, dir: 'vite', install: key, devDependencies, mode: 'build', serve: 'dist', worker: 'file' },
  ]),
  // The README's line for Vite 6/7 dev under a Content-Security-Policy without blob: workers.
  {
    name: 'vite7 dev with optimizeDeps.exclude',
    dir: 'vite',
    install: 'vite7-exclude',
    devDependencies: { vite: '7.3.8' },
    mode: 'dev',
    viteConfig: "export default { optimizeDeps: { exclude: ['@blake3-web/worker', '@blake3-web/upload'] } };\n",
    worker: 'file',
  },
  { name: 'webpack', dir: 'webpack', install: 'webpack', mode: 'build', serve: '.', worker: 'file' },
  { name: 'rspack', dir: 'rspack', install: 'rspack', mode: 'build', serve: '.', worker: 'file' },
  // Neither copies files referenced by new URL(..., import.meta.url).
  { name: 'rollup', dir: 'rollup', install: 'rollup', mode: 'build', serve: '.', worker: 'blob' },
  { name: 'esbuild', dir: 'esbuild', install: 'esbuild', mode: 'build', serve: '.', worker: 'blob' },
  { name: 'parcel', dir: 'parcel', install: 'parcel', mode: 'build', serve: 'dist', worker: 'file' },
];

/** A server app: installed and built like the others, then started on a port of its own. */
export type ServerApp = Pick<App, 'name' | 'dir' | 'install' | 'devDependencies'> & Pick<Install, 'server'>;

// Route handlers on Next's edge runtime, run by `next start` (next-edge.spec.ts, no browser).
export const NEXT_EDGE: ServerApp = { name: 'next edge', dir: 'next-edge', install: 'next-edge' };

// The upload package's verifying tus server in Node, with the native addon, started by its spec
// (upload-server-tarball.spec.ts, no browser).
export const TUS_SERVER: ServerApp = { name: 'tus server', dir: 'tus-server', install: 'tus-server', server: true };

/** An example app of its own page (not the bundlers' shared one), as the specs that drive it see it. */
export type PageApp = Pick<App, 'name' | 'dir' | 'install' | 'mode' | 'serve' | 'devDependencies' | 'viteConfig'>;

/** Such an app from Vite 8's dev server and from its build. */
function viteDevAndBuild(name: string, dir: string): readonly PageApp[] {
  return [
    { name: `${name} vite8 dev`, dir, install: dir, mode: 'dev' },
    { name: `${name} vite8 build`, dir, install: dir, mode: 'build', serve: 'dist' },
  ];
}

/** The verified-download example (examples/download-vite). */
export const DOWNLOAD_APPS = viteDevAndBuild('download', 'download-vite');

/**
 * The first snippets of the core's and the stream package's READMEs (examples/snippets-vite); the
 * same install holds the CLI its README runs.
 */
export const SNIPPET_APPS = viteDevAndBuild('snippets', 'snippets-vite');

export function installs(): Install[] {
  const seen = new Map<string, Install>();
  for (const app of [...APPS, ...DOWNLOAD_APPS, ...SNIPPET_APPS, NEXT_EDGE, TUS_SERVER]) {
    if (!seen.has(app.install))
      seen.set(app.install, {
        key: app.install,
        dir: app.dir,
        devDependencies: app.devDependencies,
        server: 'server' in app ? app.server : undefined,
      });
  }
  return [...seen.values()];
}

/** The env variable through which global setup hands the specs each app's URL, by name. */
export const URLS_ENV = 'BLAKE3_CONSUMER_URLS';
