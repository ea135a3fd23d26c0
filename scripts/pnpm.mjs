#!/usr/bin/env node
// Runs the repo's pinned pnpm with the given arguments.
import { must, pnpmBin } from './tools.mjs';

must(pnpmBin, process.argv.slice(2), { cwd: process.cwd() });
