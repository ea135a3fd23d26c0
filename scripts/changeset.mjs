#!/usr/bin/env node
// Changesets (`changeset add | status | version | publish`) with the repo's pinned pnpm on the
// PATH, which `changeset publish` calls (`pnpm publish` replaces `workspace:` ranges with the
// versions released). Changesets 2: its 3.x needs Node >= 22.11, the workspace supports Node 20.
import { join } from 'node:path';
import { root, run } from './tools.mjs';

process.exitCode = run(join(root, 'node_modules', '.bin', 'changeset'), process.argv.slice(2));
