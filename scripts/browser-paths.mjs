// Where Debian 12's packages put the browser engines, and how Chromium is started; scripts/browsers.mjs
// installs them, and the e2e setup and the browser benchmarks launch them from here.
export const BROWSER_PATHS = {
  chromium: '/usr/bin/chromium',
  firefox: '/usr/bin/firefox-esr',
  webkitDriver: '/usr/bin/WebKitWebDriver',
  miniBrowser: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  xvfb: '/usr/bin/Xvfb',
  xauth: '/usr/bin/xauth',
};

/** Chromium's flags for tests and benchmarks: headless, and nothing in the background. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Playwright's launch options for each engine (Firefox ESR through the `moz-firefox` channel). */
export const LAUNCH_OPTIONS = {
  chromium: { executablePath: BROWSER_PATHS.chromium, args: CHROMIUM_ARGS },
  firefox: { channel: 'moz-firefox', executablePath: BROWSER_PATHS.firefox },
};
