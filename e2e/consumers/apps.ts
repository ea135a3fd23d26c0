// The example apps (examples/<dir>) as the consumer specs run them: each built, Vite's also
// served by its dev server, one per Vite major.

export type App = {
  /** What the specs call it: the bundler, its version where several are tested, and how it runs. */
  readonly name: string;
  /** Its directory under examples/ (one directory serves every Vite major). */
  readonly dir: string;
  /** Pinned dev dependencies replacing the example's own (older Vite majors). */
  readonly devDependencies?: Readonly<Record<string, string>>;
  /** 'build': `npm run build`, then the directory below is served as is. 'dev': Vite's dev server. */
  readonly mode: 'build' | 'dev';
  /** Served directory, relative to the app (for 'build'). */
  readonly serve?: string;
  /**
   * How the pool's worker starts there: 'file', the worker file the bundler emitted (or, with no
   * bundler, the package's own); 'blob', from its source where the bundler left the file out.
   */
  readonly worker: 'file' | 'blob';
};

/** One install of an example: apps that differ only in mode share it. */
export type Install = { readonly key: string; readonly dir: string; readonly devDependencies?: Readonly<Record<string, string>> };

// Vite 6 and 7 pre-bundle dependencies for the dev server into .vite/deps, without the worker file.
const VITE_MAJORS: readonly [string, Record<string, string> | undefined, App['worker']][] = [
  ['vite6', { vite: '6.4.6' }, 'blob'],
  ['vite7', { vite: '7.3.8' }, 'blob'],
  // examples/vite pins Vite 8 itself.
  ['vite8', undefined, 'file'],
];

export const APPS: readonly App[] = [
  { name: 'no bundler (import map)', dir: 'importmap', mode: 'build', serve: '.', worker: 'file' },
  ...VITE_MAJORS.flatMap(([key, devDependencies, devWorker]): App[] => [
    { name: `${key} dev`, dir: 'vite', devDependencies, mode: 'dev', worker: devWorker },
    { name: `${key} build`, dir: 'vite', devDependencies, mode: 'build', serve: 'dist', worker: 'file' },
  ]),
  { name: 'webpack', dir: 'webpack', mode: 'build', serve: '.', worker: 'file' },
  { name: 'rspack', dir: 'rspack', mode: 'build', serve: '.', worker: 'file' },
  // Neither copies files referenced by new URL(..., import.meta.url).
  { name: 'rollup', dir: 'rollup', mode: 'build', serve: '.', worker: 'blob' },
  { name: 'esbuild', dir: 'esbuild', mode: 'build', serve: '.', worker: 'blob' },
  { name: 'parcel', dir: 'parcel', mode: 'build', serve: 'dist', worker: 'file' },
];

/** Where an app is installed: its Vite major, or its directory. */
export function installKey(app: App): string {
  return app.dir === 'vite' ? app.name.split(' ')[0] : app.dir;
}

export function installs(): Install[] {
  const seen = new Map<string, Install>();
  for (const app of APPS) {
    const key = installKey(app);
    if (!seen.has(key)) seen.set(key, { key, dir: app.dir, devDependencies: app.devDependencies });
  }
  return [...seen.values()];
}

/** The env variable through which global setup hands the specs each app's URL, by name. */
export const URLS_ENV = 'BLAKE3_CONSUMER_URLS';
