#!/usr/bin/env node
// `node dist/src/importer/main.js import FILE --index NAME ...`: the importer on its own, the same
// subcommand `skein import` runs (src/cli.ts mounts importCommand()).
import { Command } from 'commander';
import { importCommand } from './command.js';

const program = new Command('skein').addCommand(importCommand());
program.parseAsync(process.argv).catch((cause: unknown) => {
  process.stderr.write(`skein import: ${(cause as Error).stack ?? String(cause)}\n`);
  process.exit(1);
});
