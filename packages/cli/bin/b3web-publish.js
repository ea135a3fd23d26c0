#!/usr/bin/env node
import { publishMain } from '../dist/publish-main.js';

process.exitCode = await publishMain();
