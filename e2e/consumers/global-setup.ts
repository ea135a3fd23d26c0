// Packs the packages, installs and builds every example app (two at a time: the builds are
// CPU-bound), serves each (the Next.js app by `next start`), and hands the specs their URLs.
import { join } from 'node:path';

import { APPS, DOWNLOAD_APPS, NEXT_EDGE, SNIPPET_APPS, URLS_ENV } from './apps.ts';
import { appDir, build, inParallel, install, installs, pack } from './prepare.ts';
import { serveNext, serveStatic, serveViteDev, type Served } from './serve.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const tarballs = await pack();
  await inParallel(installs(), 3, (target) => install(target, tarballs));
  const installed = Date.now();
  // Next's build is the longest: first, so the others share the second core meanwhile.
  const builds = [
    () => build(NEXT_EDGE, '.next'),
    ...[...APPS, ...DOWNLOAD_APPS, ...SNIPPET_APPS].filter((a) => a.mode === 'build').map((a) => () => build(a)),
  ];
  await inParallel(builds, 2, (run) => run());
  console.log(
    `consumers: installed in ${((installed - started) / 1000).toFixed(1)} s, built in ${((Date.now() - installed) / 1000).toFixed(1)} s`,
  );

  const served: Served[] = [];
  const urls: Record<string, string> = {};
  try {
    for (const app of [...APPS, ...DOWNLOAD_APPS, ...SNIPPET_APPS]) {
      const s =
        app.mode === 'dev'
          ? await serveViteDev(appDir(app), app.viteConfig)
          : await serveStatic(join(appDir(app), app.serve ?? '.'));
      served.push(s);
      urls[app.name] = s.url;
    }
    const next = await serveNext(appDir(NEXT_EDGE));
    served.push(next);
    urls[NEXT_EDGE.name] = next.url;
  } catch (e) {
    await Promise.all(served.map((s) => s.close()));
    throw e;
  }
  process.env[URLS_ENV] = JSON.stringify(urls);
  return async () => {
    await Promise.all(served.map((s) => s.close()));
  };
}
