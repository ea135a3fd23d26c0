#!/usr/bin/env node
// The engines and runtimes the tests run here, read from the machine and the installed packages,
// and the table of them in docs/support.md. With --write it rewrites that table; without, it
// fails when the table and what runs differ (a browser upgraded, a pin changed).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { BROWSER_PATHS } from './browser-paths.mjs';
import { root } from './tools.mjs';

const START = '<!-- tested-versions:start (scripts/support-versions.mjs writes this table) -->';
const END = '<!-- tested-versions:end -->';
const file = join(root, 'docs/support.md');

function output(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}
function match(text, re, what) {
  const m = re.exec(text);
  if (!m) throw new Error(`cannot read the version of ${what} (is it installed? node scripts/bootstrap.mjs --test)`);
  return m[1];
}
const installed = (dir, name) =>
  JSON.parse(readFileSync(join(root, dir, 'node_modules', name, 'package.json'), 'utf8')).version;

const declared = (dir, name) =>
  JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).dependencies[name].replace(/^[~^]/, '');

/** [engine or runtime, version, how the tests drive it]. */
export function testedVersions() {
  return [
    [
      'Chromium',
      match(output(BROWSER_PATHS.chromium, ['--version']), /Chromium (\d+)\./, 'Chromium'),
      'Debian package, Playwright',
    ],
    [
      'Firefox',
      `${match(output(BROWSER_PATHS.firefox, ['--version']), /Firefox (\d+)\./, 'Firefox ESR')} ESR`,
      'Debian package, Playwright over WebDriver BiDi',
    ],
    [
      'WebKit',
      `WebKitGTK ${match(output('dpkg-query', ['-W', '-f=${Version}', 'webkit2gtk-driver']), /^(\d+\.\d+)/, 'WebKitGTK')}`,
      'Debian package, MiniBrowser over WebDriver',
    ],
    ['Node', process.versions.node.split('.')[0], 'unit tests, CLI, servers'],
    ['Deno', installed('.', 'deno'), 'core, stream and download tests'],
    ['Bun', installed('.', 'bun'), 'core, stream and download tests'],
    ['workerd', installed('packages/dist-tests', 'workerd'), 'the packed core in a Worker'],
    // The example app installs its pinned Next into a scratch copy at test time.
    ['Next.js edge', `Next ${declared('examples/next-edge', 'next')}`, 'the example app, built and run'],
  ];
}

export function renderTable(rows) {
  return ['| engine | version tested | how |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/support.md has no ${START} ... ${END} block`);
  const table = renderTable(testedVersions());
  const current = text.slice(a + START.length, b).trim();
  if (process.argv.includes('--write')) {
    writeFileSync(file, `${text.slice(0, a + START.length)}\n${table}\n${text.slice(b)}`);
    console.log('docs/support.md: tested versions written');
  } else if (current !== table) {
    console.error(
      `docs/support.md lists other versions than the tests run here:\n\n${current}\n\nwhat runs:\n\n${table}\n`,
    );
    console.error('update it with: node scripts/support-versions.mjs --write');
    process.exit(1);
  } else console.log('docs/support.md: the tested versions are the ones that run here');
}
