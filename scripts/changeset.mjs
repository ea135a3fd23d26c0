#!/usr/bin/env node
// Changesets 3 (`changeset add | status | version | publish`) with the repo's pinned pnpm on the
// PATH, which `changeset publish` calls. Changesets 3 needs Node >= 22.11 while the workspace
// supports Node 20, so it is not a workspace dependency (its engine warnings would reach every
// `npm start`): npx runs it under Node 22 from the registry's `node` package.
import { run } from './tools.mjs';

const CHANGESETS = '@changesets/cli@3.0.3';
const NODE = 'node@22';

process.exitCode = run('npx', ['--yes', '-p', NODE, '-p', CHANGESETS, 'changeset', ...process.argv.slice(2)]);
