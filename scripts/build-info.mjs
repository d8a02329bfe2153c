// The build stamp, dist/build-info.json: the git commit the build is from (GET /version, `skein --version`)
// and the time its inputs were read (scripts/ensure-build.mjs compares source mtimes with it).
//   node scripts/build-info.mjs --begin    first step of `npm run build`: drops the stamp, notes the start time
//   node scripts/build-info.mjs            last step: writes the stamp (only a build that got this far has one)
//   node scripts/build-info.mjs --refresh  the commit changed but no source did: new commit, same inputs time
// SKEIN_COMMIT_SHA / SKEIN_COMMIT_DATE override git (a Docker build has no .git); "unknown" without either.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = new URL('../dist/', import.meta.url);
const stampUrl = new URL('build-info.json', dist);
const startedUrl = new URL('.build-started', dist);

function git(args) {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return result.status === 0 ? result.stdout.trim() : null;
}

export function commitInfo() {
  const sha = process.env.SKEIN_COMMIT_SHA || git(['rev-parse', 'HEAD']);
  const date = process.env.SKEIN_COMMIT_DATE || (sha ? git(['log', '-1', '--format=%cI', sha]) : null);
  return {
    commitSha: sha ?? 'unknown',
    commitDate: date ? new Date(date).toISOString() : 'unknown',
  };
}

function readJson(url) {
  try { return JSON.parse(readFileSync(url, 'utf8')); } catch { return null; }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2] ?? '';
  mkdirSync(dist, { recursive: true });
  if (mode === '--begin') {
    rmSync(stampUrl, { force: true });
    writeFileSync(startedUrl, String(Date.now()));
  } else if (mode === '--refresh') {
    const stamp = readJson(stampUrl);
    if (stamp) writeFileSync(stampUrl, `${JSON.stringify({ ...stamp, ...commitInfo() }, null, 2)}\n`);
  } else {
    const started = Number(readJson(startedUrl) ?? Date.now());
    writeFileSync(stampUrl, `${JSON.stringify({ ...commitInfo(), inputsAsOf: started }, null, 2)}\n`);
    rmSync(startedUrl, { force: true });
  }
}
