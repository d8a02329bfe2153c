// Command-line flags and MEILI_* environment variables -> SkeinOptions. Flags win over the environment.
import { parseArgs } from 'node:util';
import { parseByteSize } from './byte-size.js';
import type { SkeinEnv, SkeinOptions } from './options.js';

export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv): SkeinOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'db-path': { type: 'string' },
      'http-addr': { type: 'string' },
      'master-key': { type: 'string' },
      env: { type: 'string' },
      workers: { type: 'string' },
      'shards-per-index': { type: 'string' },
      'http-payload-size-limit': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const options: SkeinOptions = {};
  const dbPath = values['db-path'] ?? env.MEILI_DB_PATH;
  if (dbPath) options.dbPath = dbPath;
  const httpAddr = values['http-addr'] ?? env.MEILI_HTTP_ADDR;
  if (httpAddr) options.httpAddr = httpAddr;
  const masterKey = values['master-key'] ?? env.MEILI_MASTER_KEY;
  if (masterKey) options.masterKey = masterKey;
  const mode = values.env ?? env.MEILI_ENV;
  if (mode) options.env = mode as SkeinEnv;
  const workers = values.workers ?? env.SKEIN_WORKERS;
  if (workers) options.workers = Number(workers);
  const shardsPerIndex = values['shards-per-index'] ?? env.SKEIN_SHARDS_PER_INDEX;
  if (shardsPerIndex) options.shardsPerIndex = Number(shardsPerIndex);
  const limit = values['http-payload-size-limit'] ?? env.MEILI_HTTP_PAYLOAD_SIZE_LIMIT;
  if (limit) options.httpPayloadSizeLimit = parseByteSize(limit);
  return options;
}
