#!/usr/bin/env node
// `skein` / `npm start`: options from flags and MEILI_* variables, then serve until SIGINT/SIGTERM.
import { parseCliOptions } from './config/cli-options.js';
import { masterKeyNotice, resolveOptions } from './config/options.js';
import { startServer } from './index.js';

async function main(): Promise<void> {
  let options;
  try {
    options = parseCliOptions(process.argv.slice(2), process.env);
  } catch (cause) {
    process.stderr.write(`skein: ${(cause as Error).message}\n`);
    process.exit(2);
  }
  let notice: string | null;
  try {
    notice = masterKeyNotice(resolveOptions(options));
  } catch (cause) {
    process.stderr.write(`skein: ${(cause as Error).message}\n`);
    process.exit(1);
  }
  if (notice) process.stderr.write(`skein: ${notice}\n`);
  const server = await startServer(options);
  process.stdout.write(`Skein is listening on http://${server.address}\n`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Received ${signal}, shutting down...\n`);
    server.close().then(() => process.exit(0), (cause: unknown) => {
      process.stderr.write(`skein: ${(cause as Error).message}\n`);
      process.exit(1);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((cause: unknown) => {
  process.stderr.write(`skein: could not start: ${(cause as Error).message}\n`);
  process.exit(1);
});
