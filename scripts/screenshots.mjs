#!/usr/bin/env node
// Screenshots of every demo page, and of its key states, at a phone's width and a wide screen's,
// into docs/screenshots/<page>[-<state>]-<width>.png. Builds nothing: it serves the built demo
// (demo/dist, as `npm start` does, with the demo server's blob store and tus server) and drives
// Chromium through playwright-core.
//
//   node scripts/pnpm.mjs run build && node scripts/screenshots.mjs [page-name ...]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { LAUNCH_OPTIONS } from './browser-paths.mjs';
import { root } from './tools.mjs';

/**
 * Every page: `name` names its files, `path` is the page in demo/dist, `ready` waits until it is
 * drawn, and each of `states` brings the page to a state worth a picture of its own.
 * One line per page.
 */
const PAGES = [
  {
    name: 'hash-files',
    path: 'index.html',
    ready: hashFilesReady,
    states: { hashed: hashFiles, downloaded: downloadBao },
  },
  { name: 'playground', path: 'playground.html', ready: playgroundReady, states: { compared: playgroundCompare } },
  {
    name: 'upload',
    path: 'upload.html',
    ready: uploadReady,
    states: { verified: uploadVerified, refused: uploadRefused },
  },
  { name: 'bench', path: 'bench.html', ready: benchReady, states: { 'quick-run': benchQuickRun } },
  { name: 'download', path: 'download.html', ready: downloadReady, states: { hostile: downloadHostile } },
  { name: 'video', path: 'video.html', ready: videoReady, states: { refused: videoRefused } },
];

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];
const OUT = join(root, 'docs', 'screenshots');
const TIMEOUT = 120_000;

// ---------- states ----------

async function videoReady(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  await page.waitForFunction(() => document.getElementById('video').readyState >= 2);
}

/** The CDN flips a byte at about 0:40: played from 0:37 until it stops there, the refusal shown. */
async function videoRefused(page) {
  await page.click('input[name="tamper"][value="flip"]');
  await page.waitForFunction(() => /load=1(#|$)/.test(document.getElementById('video').src));
  await page.waitForFunction(() => document.getElementById('video').readyState >= 1);
  await page.evaluate(() => {
    const video = document.getElementById('video');
    video.currentTime = 37;
    void video.play();
  });
  await page.waitForFunction(() => document.getElementById('video-status').dataset.state === 'error');
  await page.waitForTimeout(4000);
}

async function benchReady(page) {
  await page.waitForFunction(() => document.getElementById('bench-status')?.textContent !== '');
}

/** A quick run to its end: the chart and the tables filled (rough numbers; the page says so). */
async function benchQuickRun(page) {
  await page.goto(new URL('?quick=1&auto=1', page.url()).href);
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.documentElement.dataset.benchState ?? ''),
    null,
    {
      timeout: 600_000,
    },
  );
}

async function hashFilesReady(page) {
  await page.waitForFunction(() => document.getElementById('backend')?.textContent !== '');
  await page.waitForFunction(() => !document.getElementById('download').disabled, null, { timeout: TIMEOUT });
}

/** Two files made in the page: one hashed and checked against its own digest, one cancelled. */
async function hashFiles(page) {
  await page.evaluate(async () => {
    const pick = (name, size) => {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = i % 251;
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name));
      const input = document.getElementById('file');
      input.files = dt.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
      return document.querySelector('#results > li');
    };
    const settled = async (row) => {
      while (row.dataset.state === 'queued' || row.dataset.state === 'hashing')
        await new Promise((r) => setTimeout(r, 20));
    };
    const big = pick('holiday-video.mp4', 96 * 1024 * 1024);
    big.querySelector('button.cancel').click();
    await settled(big);
    const row = pick('report-2026.pdf', 24 * 1024 * 1024 + 4321);
    await settled(row);
    const input = row.querySelector('input.verify');
    input.value = row.querySelector('output.digest').value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function downloadBao(page) {
  await page.evaluate(async () => {
    const select = document.getElementById('blob');
    select.selectedIndex = select.options.length - 1;
    document.querySelector('input[name="method"][value="bao"]').click();
    document.getElementById('download').click();
    const status = document.getElementById('download-status');
    while (status.dataset.state !== 'ok' && status.dataset.state !== 'error')
      await new Promise((r) => setTimeout(r, 20));
  });
}

async function playgroundReady(page) {
  await page.waitForFunction(() => document.getElementById('out-hex')?.textContent !== '');
}

async function playgroundCompare(page) {
  await page.fill('#text', 'The quick brown fox jumps over the lazy dog');
  await page.selectOption('#mode', 'derive');
  await page.fill('#context', 'blake3-web 2026-11-28 playground example');
  await page.fill('#out-len', '48');
  const hex = await page.textContent('#out-hex');
  await page.fill('#expected', hex);
}

async function uploadReady(page) {
  await page.waitForFunction(() => document.getElementById('upload-status')?.textContent === 'Pick a file.');
}

async function uploadFile(page, tamper) {
  await page.evaluate((t) => void (document.getElementById('tamper').checked = t), tamper);
  const buffer = Buffer.alloc(3 * 1024 * 1024 + 777, 0);
  for (let i = 0; i < buffer.length; i++) buffer[i] = i % 251;
  await page.setInputFiles('#upload-file', { name: 'scan-0042.tiff', mimeType: 'image/tiff', buffer });
  await page.waitForFunction(
    () => /^(Verified|Refused|Failed)\b/.test(document.getElementById('verdict')?.textContent ?? ''),
    null,
    {
      timeout: TIMEOUT,
    },
  );
}

function uploadVerified(page) {
  return uploadFile(page, false);
}
function uploadRefused(page) {
  return uploadFile(page, true);
}

/** The Download page, its 256 MiB file made by the server on first use (seconds, once). */
async function downloadReady(page) {
  await page.waitForFunction(() => document.querySelector('main')?.dataset.ready === 'true', null, {
    timeout: TIMEOUT,
  });
}

/** Mirror A flips a byte in some groups; the picture is taken at the verdict, the map full. */
async function downloadHostile(page) {
  await page.selectOption('#dl-mode-a', 'flip');
  await page.waitForFunction(() =>
    document.querySelector("fieldset[data-mirror='a']")?.dataset.applied?.startsWith('flip'),
  );
  await page.click('#dl-start');
  await page.waitForFunction(
    () => ['verified', 'failed'].includes(document.getElementById('dl-verdict')?.dataset.state ?? ''),
    null,
    { timeout: TIMEOUT },
  );
}

// ---------- the server and the browser ----------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** `vite preview` of demo/dist on a free port; resolves once it answers. */
async function serveDemo() {
  if (!existsSync(join(root, 'demo', 'dist', 'index.html')))
    throw new Error('demo/dist is missing: build first (node scripts/pnpm.mjs run build)');
  const port = await freePort();
  const vite = join(root, 'demo', 'node_modules', '.bin', 'vite');
  const child = spawn(vite, ['preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: join(root, 'demo'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}/`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vite preview exited with status ${child.exitCode}`);
    const ok = await fetch(base).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) throw new Error(`vite preview did not answer on ${base} within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, stop: () => child.kill('SIGTERM') };
}

async function main() {
  const only = process.argv.slice(2);
  const unknown = only.filter((n) => !PAGES.some((p) => p.name === n));
  if (unknown.length)
    throw new RangeError(`unknown page ${unknown.join(', ')}; pages: ${PAGES.map((p) => p.name).join(', ')}`);
  mkdirSync(OUT, { recursive: true });
  const server = await serveDemo();
  const browser = await chromium.launch(LAUNCH_OPTIONS.chromium);
  try {
    for (const spec of PAGES.filter((p) => only.length === 0 || only.includes(p.name))) {
      for (const viewport of WIDTHS) {
        for (const state of [undefined, ...Object.keys(spec.states)]) {
          // A fresh context per picture: no state (service worker, uploads) leaks between them.
          const context = await browser.newContext({ viewport, colorScheme: 'light' });
          const page = await context.newPage();
          page.setDefaultTimeout(TIMEOUT);
          const errors = [];
          page.on('pageerror', (e) => errors.push(e.message));
          await page.goto(new URL(spec.path, server.base).href);
          await spec.ready(page);
          if (state) await spec.states[state](page);
          // Let transitions and late paints settle.
          await page.waitForTimeout(300);
          const file = join(OUT, `${spec.name}${state ? `-${state}` : ''}-${viewport.width}.png`);
          await page.screenshot({ path: file, fullPage: true });
          console.log(`${file.slice(root.length + 1)}${errors.length ? `  (page errors: ${errors.join('; ')})` : ''}`);
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
    server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
