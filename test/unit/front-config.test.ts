import test from 'ava';
import { formatByteSize, parseByteSize } from '../../src/config/byte-size.js';
import { parseCliOptions } from '../../src/config/cli-options.js';
import { availableParallelism } from 'node:os';
import { defaultWorkerCount, parseHttpAddr, resolveOptions } from '../../src/config/options.js';

test('parseByteSize reads decimal and binary units and plain bytes', (t) => {
  t.is(parseByteSize('100 MB'), 100_000_000);
  t.is(parseByteSize('10MiB'), 10 * 1024 * 1024);
  t.is(parseByteSize('1Gb'), 1_000_000_000);
  t.is(parseByteSize('4096'), 4096);
  t.is(parseByteSize('2 kib'), 2048);
  t.throws(() => parseByteSize('lots'));
  t.throws(() => parseByteSize('3 XB'));
});

test('formatByteSize picks the largest exact unit, as the payload_too_large message does', (t) => {
  t.is(formatByteSize(100_000_000), '100 MB');
  t.is(formatByteSize(10 * 1024 * 1024), '10 MiB');
  t.is(formatByteSize(3), '3 B');
  t.is(formatByteSize(1000), '1 KB');
  t.is(formatByteSize(1024), '1 KiB');
});

test('flags win over MEILI_* environment variables', (t) => {
  const { options } = parseCliOptions(['--db-path', 'flag.skein', '--http-payload-size-limit', '10MiB'],
    { MEILI_DB_PATH: 'env.skein', MEILI_HTTP_ADDR: '127.0.0.1:7711', MEILI_MASTER_KEY: 'k', MEILI_ENV: 'development' }, '/nonexistent');
  t.deepEqual(options, {
    dbPath: 'flag.skein', httpAddr: '127.0.0.1:7711', masterKey: 'k', env: 'development', httpPayloadSizeLimit: 10 * 1024 * 1024,
  });
  t.throws(() => parseCliOptions(['--nope'], {}, '/nonexistent'));
});

test('resolveOptions fills defaults and enforces the production master key', (t) => {
  const options = resolveOptions({ workers: 3 });
  t.is(options.shardsPerIndex, 3);
  t.is(options.httpAddr, '127.0.0.1:7700');
  t.is(options.httpPayloadSizeLimit, 100_000_000);
  t.is(options.masterKey, null);
  t.throws(() => resolveOptions({ env: 'production', masterKey: 'short' }));
  t.notThrows(() => resolveOptions({ env: 'production', masterKey: 'a-master-key-of-16+bytes' }));
  t.throws(() => resolveOptions({ workers: 0 }));
});

test('the default worker count leaves the front thread a core, and is at least one', (t) => {
  t.is(defaultWorkerCount(1), 1);
  t.is(defaultWorkerCount(2), 1);
  t.is(defaultWorkerCount(8), 7);
  t.is(resolveOptions({}).workers, defaultWorkerCount(availableParallelism()));
});

test('parseHttpAddr splits host and port', (t) => {
  t.deepEqual(parseHttpAddr('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  t.deepEqual(parseHttpAddr('[::1]:7700'), { host: '::1', port: 7700 });
  t.throws(() => parseHttpAddr('localhost'));
  t.throws(() => parseHttpAddr('localhost:99999'));
});
