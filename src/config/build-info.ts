// Skein's own version (package.json) and the git commit it was built from (dist/build-info.json,
// written by `npm run build`: scripts/build-info.mjs; "unknown" outside a git checkout or before a build).
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  pkgVersion: string;
  commitSha: string;
  commitDate: string;
}

/** Reads package.json and dist/build-info.json relative to this file (dist/src/config/build-info.js). */
export function readBuildInfo(): BuildInfo {
  const pkgVersion = readJson(new URL('../../../package.json', import.meta.url))?.['version'];
  const stamp = readJson(new URL('../../build-info.json', import.meta.url));
  return {
    pkgVersion: typeof pkgVersion === 'string' ? pkgVersion : 'unknown',
    commitSha: typeof stamp?.['commitSha'] === 'string' ? stamp['commitSha'] : 'unknown',
    commitDate: typeof stamp?.['commitDate'] === 'string' ? stamp['commitDate'] : 'unknown',
  };
}

function readJson(url: URL): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** Read once when the module loads: the files do not change under a running server. */
export const BUILD_INFO: Readonly<BuildInfo> = Object.freeze(readBuildInfo());

/** `skein --version`: "skein 0.1.0 (commit 0123abc..., 2026-11-26T19:30:00.000Z)". */
export function versionLine(info: BuildInfo = BUILD_INFO): string {
  return `skein ${info.pkgVersion} (commit ${info.commitSha}, ${info.commitDate})`;
}
