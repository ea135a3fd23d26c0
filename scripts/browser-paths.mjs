// Where Debian 12's packages put the browser engines; scripts/browsers.mjs installs them and the
// e2e setup launches them from here.
export const BROWSER_PATHS = {
  chromium: '/usr/bin/chromium',
  firefox: '/usr/bin/firefox-esr',
  webkitDriver: '/usr/bin/WebKitWebDriver',
  miniBrowser: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  xvfb: '/usr/bin/Xvfb',
  xauth: '/usr/bin/xauth',
};
