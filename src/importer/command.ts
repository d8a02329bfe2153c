// `skein import FILE --index NAME ...`: the importer's subcommand (commander). Runs in the CLI process,
// never in the server. Placeholder until the importer lands: the subcommand exists and says so.
import { Command } from 'commander';

export function importCommand(): Command {
  return new Command('import')
    .description('Load a JSON, NDJSON or CSV file (gzip too) into an index of a running Skein server')
    .argument('<file>', 'the file to load')
    .action(() => {
      process.stderr.write('skein import: not built yet\n');
      process.exitCode = 2;
    });
}
