#!/usr/bin/env node
// Entry point of the `certsvc` command; the TypeScript sources are compiled to dist/ by `npm ci` (prepare).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
