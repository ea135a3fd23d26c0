import { defineConfig } from '@playwright/test';

import type { E2EOptions } from './servers/engine-test.ts';
import { BROWSER_PATHS, CHROMIUM_ARGS } from './scripts/browser-paths.mjs';

// The engines come from Debian packages (scripts/browsers.mjs); Playwright's own downloads
// cannot reach this project's machines.
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';

export default defineConfig<E2EOptions>({
  testDir: './e2e/specs',
  outputDir: './test-results/e2e',
  globalSetup: './servers/global-setup.ts',
  // Hashing 16 MiB with the portable backend in a slow engine takes seconds, not minutes.
  timeout: 120_000,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // One worker per core; each WebKit worker runs its own Xvfb, driver and browser.
  workers: 2,
  reporter: [['list'], ['json', { outputFile: './test-results/e2e-report.json' }]],
  projects: [
    {
      name: 'chromium',
      use: {
        engine: 'chromium',
        browserName: 'chromium',
        launchOptions: { executablePath: BROWSER_PATHS.chromium, args: [...CHROMIUM_ARGS] },
      },
    },
    {
      name: 'firefox',
      use: {
        engine: 'firefox',
        browserName: 'firefox',
        // Playwright drives the stock Firefox ESR over WebDriver BiDi; 1.64.1 is the last release
        // whose BiDi commands ESR 153 understands.
        channel: 'moz-firefox',
        launchOptions: { executablePath: BROWSER_PATHS.firefox },
      },
    },
    {
      // WebKitGTK under Xvfb through WebKitWebDriver: see servers/webkit-session.ts.
      name: 'webkit',
      use: { engine: 'webkit' },
    },
  ],
});
