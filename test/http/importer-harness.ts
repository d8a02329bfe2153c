// Helpers for the importer tests: documents made from real npm package names (the committed fixture),
// and `skein import` run as a child process. Not a test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './harness.js';

export const IMPORTER_PATH = join(REPO_ROOT, 'dist/src/importer/main.js');
const FIXTURE = join(REPO_ROOT, 'test/http/fixtures/npm-packages.tsv');

export interface PackageDocument {
  id: number;
  name: string;
  version: string;
  downloads: number;
  summary: string;
}

/** `count` documents, the same every time: the fixture's packages in turn, names suffixed with the round. */
export function packageDocuments(count: number): PackageDocument[] {
  const rows = readFileSync(FIXTURE, 'utf8').split('\n').slice(1).filter((line) => line !== '').map((line) => line.split('\t'));
  const documents: PackageDocument[] = [];
  for (let i = 0; i < count; i++) {
    const [name, version, downloads, summary] = rows[i % rows.length]!;
    documents.push({ id: i, name: `${name}-${Math.floor(i / rows.length)}`, version: version!, downloads: Number(downloads), summary: summary ?? '' });
  }
  return documents;
}

export function ndjson(documents: unknown[]): string {
  return documents.map((document) => JSON.stringify(document)).join('\n') + '\n';
}

function csvCell(value: unknown): string {
  const text = String(value);
  return /[",\n\r;]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csv(documents: PackageDocument[], delimiter = ','): string {
  const lines = [['id', 'name', 'version', 'downloads:number', 'summary'].join(delimiter)];
  for (const d of documents) lines.push([d.id, d.name, d.version, d.downloads, d.summary].map(csvCell).join(delimiter));
  return lines.join('\n') + '\n';
}

export interface ImporterRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunningImporter {
  child: ChildProcess;
  done: Promise<ImporterRun>;
}

/** Starts `skein import ARGS` (no progress on stderr unless asked); `env` adds variables. */
export function startImporter(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): RunningImporter {
  const started = Date.now();
  const inherited = { ...process.env };
  delete inherited.SKEIN_URL;
  delete inherited.SKEIN_API_KEY;
  const child = spawn(process.execPath, [...nodeArgs, IMPORTER_PATH, 'import', ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => { stdout += chunk; });
  child.stderr!.on('data', (chunk) => { stderr += chunk; });
  const done = new Promise<ImporterRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
  return { child, done };
}

export function runImporter(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ImporterRun> {
  return startImporter(args, env, nodeArgs).done;
}

/** The JSON summary (--json) of a run. */
export function summaryOf(run: ImporterRun): any {
  try {
    return JSON.parse(run.stdout);
  } catch {
    throw new Error(`no JSON summary (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
}

/** The state file's content, or null while there is none. */
export function readStateFile(path: string): any {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null; // caught between write and rename: there is none yet
  }
}
