// Skips a docs build step whose inputs have not changed since it last succeeded: `npm start` and
// `npm test` each build everything, and the API reference (TypeDoc, ~30 s here) and the site
// (VitePress, ~70-90 s) are the slowest steps. A step's stamp is a SHA-256 over the contents of
// its input files and any other values its output depends on, written into its output directory
// after it succeeds, so deleting the output (or a failed build, which empties it) rebuilds.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { repoRoot } from './entry-points.mjs';

const STAMP = '.build-stamp';

/** Every file under `dir` (absolute paths, sorted), skipping directories named in `skip`. */
export function filesUnder(dir, skip = new Set(['node_modules'])) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.has(entry.name) && !skip.has(relative(repoRoot, path))) out.push(...filesUnder(path, skip));
    } else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

/**
 * The repository's file list (paths only, tracked and untracked, as git sees them): the site
 * links files outside docs/ by whether they exist. Undefined without git (an unpacked tarball),
 * and then nothing is ever skipped.
 */
export function repoFileList() {
  const r = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return r.status === 0 ? r.stdout : undefined;
}

/** The digest of `files`' paths and contents and of `values` (strings). */
export function inputsDigest(files, values = []) {
  const hash = createHash('sha256');
  for (const value of values) hash.update(`value ${value.length}\n${value}\n`);
  for (const file of files) {
    const bytes = statSync(file, { throwIfNoEntry: false })?.isFile() ? readFileSync(file) : undefined;
    hash.update(`file ${relative(repoRoot, file)} ${bytes ? bytes.length : 'absent'}\n`);
    if (bytes) hash.update(bytes);
  }
  return hash.digest('hex');
}

/** True when `outDir` holds the stamp of a build from exactly these inputs. */
export function isUpToDate(outDir, digest) {
  if (process.env.DOCS_REBUILD === '1') return false;
  const file = join(outDir, STAMP);
  return existsSync(file) && readFileSync(file, 'utf8').trim() === digest;
}

export function writeStamp(outDir, digest) {
  writeFileSync(join(outDir, STAMP), `${digest}\n`);
}
