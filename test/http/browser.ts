// Real-browser tests: Debian's chromium driven by playwright-core (headless), a tiny static HTTP server
// for pages served from another origin, and the npm-packages fixture as a facetable index.
// Chromium missing is a test FAILURE with a message saying what to install; SKEIN_SKIP_BROWSER=1 skips
// these tests explicitly (ava reports them as skipped).
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import test, { type TestFn } from 'ava';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { readPackages } from '../fuzz/corpus.js';
import { REPO_ROOT, type Client } from './harness.js';

export const ARTIFACTS_DIR = join(REPO_ROOT, 'test/artifacts');
/** Each browser test is bounded; single waits are bounded below that. */
export const BROWSER_TEST_TIMEOUT_MS = 60_000;
export const BROWSER_WAIT_MS = 20_000;

/** `test`, or `test.skip` when the developer opted out with SKEIN_SKIP_BROWSER=1. */
export const browserTest: TestFn = process.env.SKEIN_SKIP_BROWSER === '1' ? (test.skip as unknown as TestFn) : test;

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium'];

export function findChromium(): string {
  const wanted = process.env.SKEIN_CHROMIUM_PATH;
  if (wanted) {
    if (!existsSync(wanted)) throw new Error(`SKEIN_CHROMIUM_PATH=${wanted} does not exist`);
    return wanted;
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (!found) {
    throw new Error(`Chromium not found (looked at ${CANDIDATES.join(', ')}): install Debian's chromium `
      + '(`apt-get install -y chromium`; .ci/run does it), or set SKEIN_CHROMIUM_PATH, or skip the browser tests with SKEIN_SKIP_BROWSER=1');
  }
  return found;
}

export function launchChromium(): Promise<Browser> {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return chromium.launch({
    executablePath: findChromium(),
    headless: true,
    timeout: BROWSER_WAIT_MS,
    // Chromium refuses to run as root with its sandbox on.
    args: root ? ['--no-sandbox'] : [],
  });
}

/** A page whose waits are bounded, collecting console errors and CSP violations. */
export async function openPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}

/** Monthly downloads in four bands: a facet every document has. */
export function popularityOf(downloads: number): string {
  if (downloads < 1_000) return 'under 1k';
  if (downloads < 10_000) return '1k to 10k';
  if (downloads < 100_000) return '10k to 100k';
  return 'over 100k';
}

/** The 1,800 real npm packages of test/http/fixtures/npm-packages.tsv, with scope, popularity and keyword facets. */
export function packageDocuments(): Array<Record<string, unknown>> {
  return readPackages().map((row, i) => ({
    id: i,
    name: row.name,
    version: row.version,
    downloads: row.downloads,
    summary: row.summary,
    scope: row.name.startsWith('@') ? row.name.split('/')[0] : '(none)',
    popularity: popularityOf(row.downloads),
    keywords: row.summary.toLowerCase().split(/[^a-z]+/).filter((word) => word.length >= 4).slice(0, 3),
  }));
}

export const PACKAGE_SETTINGS = { filterableAttributes: ['scope', 'popularity', 'keywords'] };

export async function loadPackages(client: Client, uid: string, extra: Array<Record<string, unknown>> = []): Promise<void> {
  await client.run('PATCH', `/indexes/${uid}/settings`, { body: PACKAGE_SETTINGS });
  await client.addDocuments(uid, [...packageDocuments(), ...extra]);
}

export interface StaticFile {
  body: string | Buffer;
  contentType: string;
}

/** A static HTTP server on 127.0.0.1 (another port: another origin) serving `files` by exact path. */
export async function serveStatic(files: ReadonlyMap<string, StaticFile>): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const file = files.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.contentType, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function escapeHtmlAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Runs the steps; when one fails, its error also tells what the browser's console said (a CORS refusal, a script error). */
export async function reportingConsole<T>(problems: string[], steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (cause) {
    if (problems.length === 0) throw cause;
    const error = new Error(`${cause instanceof Error ? cause.message : String(cause)}\nbrowser console:\n${problems.join('\n')}`);
    throw Object.assign(error, { cause });
  }
}
