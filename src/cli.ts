#!/usr/bin/env node
// `skein` (package.json bin) / `npm start`: launch options from flags, MEILI_* variables and the config
// file (src/config/cli-options.ts), then serve until SIGINT/SIGTERM; `skein import ...` loads a file.
// Exit codes: 0 after --help / --version / a clean stop, 2 for a bad launch option (as clap), 1 when
// the server cannot start.
import { Command, CommanderError } from 'commander';
import { versionLine } from './config/build-info.js';
import { addLaunchOptions, LaunchOptionError, resolveLaunchOptions } from './config/cli-options.js';
import { resolveOptions, type SkeinOptions } from './config/options.js';
import { importCommand } from './importer/command.js';

async function serve(options: SkeinOptions): Promise<void> {
  try {
    resolveOptions(options);
  } catch (cause) {
    process.stderr.write(`skein: ${(cause as Error).message}\n`);
    process.exit(1);
  }
  // Loaded here, not at the top: --help, --version and option errors answer without loading the server.
  // startServer logs the master key notice, where it listens, and the shutdown (front/ops/server-log.ts).
  const { startServer } = await import('./index.js');
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

function program(): Command {
  const command = new Command('skein')
    .description('A full-text search server speaking the Meilisearch v1 HTTP API.\n'
      + 'Precedence: command-line flag > environment variable > configuration file > default.')
    .version(versionLine(), '-V, --version', 'Print version')
    .helpOption('-h, --help', 'Print help')
    .showHelpAfterError("\nFor more information, try '--help'.")
    .allowExcessArguments()
    .exitOverride();
  const declared = addLaunchOptions(command);
  command.addCommand(importCommand());
  command.action(async () => {
    if (command.args.length > 0) command.error(`error: unexpected argument '${command.args[0]}' found`, { exitCode: 2 });
    let launch;
    try {
      launch = resolveLaunchOptions(command, declared, process.env, process.cwd());
    } catch (cause) {
      if (cause instanceof LaunchOptionError) command.error(cause.message, { exitCode: 2, code: 'skein.invalidLaunchOption' });
      throw cause;
    }
    for (const warning of launch.warnings) process.stderr.write(`skein: warning: ${warning}\n`);
    if (launch.configFile !== null) process.stderr.write(`skein: configuration file: ${launch.configFile}\n`);
    await serve(launch.options);
  });
  return command;
}

const SUCCESS_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

program().parseAsync(process.argv).catch((cause: unknown) => {
  if (cause instanceof CommanderError) process.exit(SUCCESS_CODES.has(cause.code) ? 0 : 2);
  process.stderr.write(`skein: could not start: ${(cause as Error).message}\n`);
  process.exit(1);
});
