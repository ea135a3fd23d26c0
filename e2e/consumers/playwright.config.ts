import { defineConfig } from '@playwright/test';

import { BROWSER_PATHS, CHROMIUM_ARGS } from '../../scripts/browser-paths.mjs';

// The example apps in Chromium and Firefox (engines from Debian packages, as in the main config),
// the Next.js app's edge routes over HTTP, and the Node apps (the CLI, the tus server).
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../test-results/consumers/results',
  globalSetup: './global-setup.ts',
  timeout: 120_000,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 2,
  reporter: [['list'], ['json', { outputFile: '../../test-results/consumers-report.json' }]],
  projects: [
    // HTTP only, no browser: the Next.js app's edge routes.
    { name: 'next-edge', testMatch: 'next-edge.spec.ts' },
    // No browser: the CLI from its tarball.
    { name: 'cli', testMatch: 'cli-tarball.spec.ts' },
    // No browser: the upload package's tus server in Node, with the native addon, from the tarballs.
    { name: 'tus-server', testMatch: 'upload-server-tarball.spec.ts' },
    {
      name: 'chromium',
      testIgnore: ['next-edge.spec.ts', 'cli-tarball.spec.ts', 'upload-server-tarball.spec.ts'],
      use: {
        browserName: 'chromium',
        launchOptions: { executablePath: BROWSER_PATHS.chromium, args: [...CHROMIUM_ARGS] },
      },
    },
    {
      name: 'firefox',
      testIgnore: ['next-edge.spec.ts', 'cli-tarball.spec.ts', 'upload-server-tarball.spec.ts'],
      use: { browserName: 'firefox', channel: 'moz-firefox', launchOptions: { executablePath: BROWSER_PATHS.firefox } },
    },
  ],
});
