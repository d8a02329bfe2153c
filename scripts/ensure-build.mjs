// `npm start`, `npm test` and `prepare`: builds only when dist/ is missing or older than its inputs, so a
// start does not recompile TypeScript (about 15 s here). Current means: the build stamp
// (dist/build-info.json, written by the last step of a successful `npm run build`) exists and no input
// changed since that build began. Inputs: the sources (.ts, .mjs, .json, .html, .css) under the folders
// tsconfig.json includes and scripts/, tsconfig.json, package.json and package-lock.json. A new git
// commit with the same sources only refreshes the stamp's commit. Without src/ (a package installed from the registry, a Docker layer holding only
// package.json) there is nothing to build.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitInfo } from './build-info.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SKIPPED_DIRS = new Set(['node_modules', 'results', 'artifacts', '.cache']);
const SOURCE = /\.(ts|mts|cts|tsx|mjs|json|html|css)$/;

function readJson(path) {
  try { return JSON.parse(readFileSync(path, 'utf8')); } catch { return null; }
}

/** The newest input file modified after `since`, or null. */
function changedInput(since) {
  const tsconfig = readJson(join(root, 'tsconfig.json'));
  const folders = new Set(['scripts', ...(tsconfig?.include ?? ['src']).map((pattern) => pattern.split('/')[0])]);
  const files = ['tsconfig.json', 'package.json', 'package-lock.json'];
  for (const file of files) {
    const path = join(root, file);
    if (existsSync(path) && statSync(path).mtimeMs > since) return file;
  }
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name)) continue;
        const found = walk(path);
        if (found) return found;
      } else if (SOURCE.test(entry.name) && statSync(join(root, path)).mtimeMs > since) {
        return path;
      }
    }
    return null;
  };
  for (const folder of folders) {
    if (!existsSync(join(root, folder))) continue;
    const found = walk(folder);
    if (found) return found;
  }
  return null;
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (existsSync(join(root, 'src'))) {
  const stamp = readJson(join(root, 'dist', 'build-info.json'));
  const reason = stamp === null || typeof stamp.inputsAsOf !== 'number' ? 'no build stamp (dist/build-info.json)'
    : !existsSync(join(root, 'dist', 'src', 'cli.js')) ? 'dist/src/cli.js is missing'
      : (() => { const file = changedInput(stamp.inputsAsOf); return file ? `${file} changed since the last build` : null; })();
  if (reason !== null) {
    process.stderr.write(`skein: building (${reason})\n`);
    run('npm', ['run', 'build', '--silent']);
  } else if (stamp.commitSha !== commitInfo().commitSha) {
    run(process.execPath, [join(root, 'scripts', 'build-info.mjs'), '--refresh']);
  }
}
