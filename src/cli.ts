#!/usr/bin/env node
// `skein` / `npm start`: options from flags and MEILI_* variables, then serve until SIGINT/SIGTERM.
import { parseCliOptions } from './config/cli-options.js';
import { resolveOptions } from './config/options.js';
import { startServer } from './index.js';

async function main(): Promise<void> {
  let options;
  try {
    options = parseCliOptions(process.argv.slice(2), process.env);
  } catch (cause) {
    process.stderr.write(`skein: ${(cause as Error).message}\n`);
    process.exit(2);
  }
  try {
    resolveOptions(options);
  } catch (cause) {
    process.stderr.write(`skein: ${(cause as Error).message}\n`);
    process.exit(1);
  }
  // startServer logs the master key notice, where it listens, and the shutdown (front/server-log.ts).
  const server = await startServer(options);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    server.close(`received ${signal}`).then(() => process.exit(0), (cause: unknown) => {
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
