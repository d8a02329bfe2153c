// What `npm pack` ships (package.json `files`) and the `skein` bin: only what runs.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('npm pack ships dist/src, the build stamp, the install scripts and the README; no sources, tests, benches or maps', (t) => {
  // --ignore-scripts: `prepare` must not build in the middle of a test run.
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  t.is(result.status, 0, result.stderr);
  const [pack] = JSON.parse(result.stdout) as Array<{ entryCount: number; files: Array<{ path: string }> }>;
  const paths = pack!.files.map((file) => file.path);
  for (const needed of ['package.json', 'README.md', 'dist/src/cli.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/build-info.json',
    'scripts/ensure-build.mjs', 'scripts/build-info.mjs', 'scripts/patch-uws.mjs', 'scripts/postinstall.mjs']) {
    t.true(paths.includes(needed), `${needed} is shipped`);
  }
  const unwanted = paths.filter((path) => /^(src|test|bench|schemas|native|dist\/test|dist\/bench)\//.test(path) || path.endsWith('.map'));
  t.deepEqual(unwanted, []);
  // About two files (.js, .d.ts) per source file (~330 now): the bound catches a whole stray tree, not growth.
  t.true(pack!.entryCount < 900, `${pack!.entryCount} files`);
});

test('the skein bin is dist/src/cli.js, a node script', (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  t.is(pkg.bin?.['skein'], 'dist/src/cli.js');
  t.true(readFileSync(join(REPO_ROOT, 'dist/src/cli.js'), 'utf8').startsWith('#!/usr/bin/env node\n'));
});
