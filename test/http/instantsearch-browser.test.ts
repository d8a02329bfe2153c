// An InstantSearch page (instantsearch.js + @meilisearch/instant-meilisearch, the official packages)
// served from ANOTHER origin than Skein (a static server on another 127.0.0.1 port), in a real
// browser (chromium, playwright-core), with a search API key: typing shows highlighted hits and
// facet counts, clicking a facet value refines the hits. The end-to-end proof of CORS (front/http/cors.ts).
// instant-meilisearch 0.31 ships no UMD build, only an ES module importing the bare specifier
// "meilisearch" (it does not bundle the client): the page maps it to meilisearch's own ES module with
// an import map. instantsearch.js is loaded from its UMD build. Screenshot: test/artifacts/instantsearch-*.png.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import test from 'ava';
import type { Browser } from 'playwright-core';
import {
  BROWSER_TEST_TIMEOUT_MS, browserTest, escapeHtmlAttribute, launchChromium, loadPackages, openPage, reportingConsole, screenshot,
  serveStatic, type StaticFile,
} from './browser.js';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'instantsearch-master-key-0123456789';
const require = createRequire(import.meta.url);

/** A package's file, by the path the package itself declares (its exports or main). */
function packageFile(specifier: string, relative?: string): string {
  if (relative === undefined) return require.resolve(specifier);
  return join(dirname(require.resolve(`${specifier}/package.json`)), relative);
}

const PAGE_SCRIPT = `
import { instantMeiliSearch } from '/vendor/instant-meilisearch.js';
const { host, apiKey, indexName } = document.body.dataset;
const { searchClient } = instantMeiliSearch(host, apiKey);
const search = instantsearch({ indexName, searchClient });
const { searchBox, hits, refinementList, stats } = instantsearch.widgets;
search.addWidgets([
  searchBox({ container: '#searchbox', placeholder: 'Search packages' }),
  stats({ container: '#stats', templates: { text: (data, { html }) => html\`<span data-hits="\${data.nbHits}">\${data.nbHits} results in \${data.processingTimeMS} ms</span>\` } }),
  refinementList({ container: '#popularity', attribute: 'popularity' }),
  refinementList({ container: '#scope', attribute: 'scope' }),
  hits({
    container: '#hits',
    templates: {
      item: (hit, { html, components }) => html\`<article data-popularity="\${hit.popularity}">
        <h3>\${components.Highlight({ hit, attribute: 'name' })}</h3>
        <p>\${components.Highlight({ hit, attribute: 'summary' })}</p>
        <small>\${hit.popularity} · \${hit.scope}</small></article>\`,
    },
  }),
]);
search.start();
`;

function pageHtml(host: string, apiKey: string, indexName: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>InstantSearch on another origin</title>
<link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "meilisearch": "/vendor/meilisearch.js" } }</script>
<script src="/vendor/instantsearch.production.min.js"></script>
<script type="module" src="/page.js"></script>
</head>
<body data-host="${escapeHtmlAttribute(host)}" data-api-key="${escapeHtmlAttribute(apiKey)}" data-index-name="${escapeHtmlAttribute(indexName)}">
<div id="searchbox"></div><div id="stats"></div>
<div style="display:flex;gap:2em"><div><h2>popularity</h2><div id="popularity"></div><h2>scope</h2><div id="scope"></div></div><div id="hits"></div></div>
</body></html>`;
}

let browser: Browser;
let skein: TestServer;
let searchKey: string;

test.before(async () => {
  skein = await startTestServer({ workers: 1, shardsPerIndex: 2, masterKey: MASTER });
  await loadPackages(skein.client, 'packages');
  const keys = await skein.client.get('/keys');
  searchKey = keys.body.results.find((key: { name: string }) => key.name === 'Default Search API Key').key;
  if (process.env.SKEIN_SKIP_BROWSER !== '1') browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await skein?.close();
});

test('the InstantSearch builds are where the page loads them from', (t) => {
  const instantMeilisearch = readFileSync(packageFile('@meilisearch/instant-meilisearch'), 'utf8');
  // An ES module that imports the client rather than bundling it: hence the page's import map.
  t.regex(instantMeilisearch, /from\s*["']meilisearch["']/);
  t.regex(instantMeilisearch, /export\s*\{[^}]*instantMeiliSearch/);
  t.regex(readFileSync(packageFile('instantsearch.js', 'dist/instantsearch.production.min.js'), 'utf8').slice(0, 200), /InstantSearch\.js/);
  t.notRegex(readFileSync(packageFile('meilisearch'), 'utf8'), /^\s*import\s/m, 'meilisearch\'s ES module has no imports of its own');
});

browserTest('an InstantSearch page on another origin: highlighted hits, facet counts, refinement by a facet value', async (t) => {
  t.timeout(BROWSER_TEST_TIMEOUT_MS);
  const files = new Map<string, StaticFile>([
    ['/', { body: pageHtml(skein.client.baseUrl, searchKey, 'packages'), contentType: 'text/html; charset=utf-8' }],
    ['/page.js', { body: PAGE_SCRIPT, contentType: 'text/javascript; charset=utf-8' }],
    ['/vendor/instantsearch.production.min.js', { body: readFileSync(packageFile('instantsearch.js', 'dist/instantsearch.production.min.js')), contentType: 'text/javascript' }],
    ['/vendor/instant-meilisearch.js', { body: readFileSync(packageFile('@meilisearch/instant-meilisearch')), contentType: 'text/javascript' }],
    ['/vendor/meilisearch.js', { body: readFileSync(packageFile('meilisearch')), contentType: 'text/javascript' }],
  ]);
  const site = await serveStatic(files);
  try {
    t.not(new URL(site.origin).origin, new URL(skein.client.baseUrl).origin);
    const { page, problems } = await openPage(browser);
    // Every answer from Skein to this page must carry the CORS header, or the browser would hide it.
    const skeinAnswers: Array<{ url: string; status: number; allowOrigin: string | undefined }> = [];
    page.on('response', (response) => {
      if (response.url().startsWith(skein.client.baseUrl)) {
        skeinAnswers.push({ url: response.url(), status: response.status(), allowOrigin: response.headers()['access-control-allow-origin'] });
      }
    });
    await page.goto(`${site.origin}/`);
    await reportingConsole(problems, async () => {
      await page.waitForSelector('.ais-Hits-item');
      await page.waitForSelector('#popularity .ais-RefinementList-item');
    });

    await page.locator('.ais-SearchBox-input').pressSequentially('react', { delay: 20 });
    const expected = await skein.client.withKey(searchKey).post('/indexes/packages/search', {
      q: 'react', facets: ['popularity'], attributesToHighlight: ['name'], highlightPreTag: '[', highlightPostTag: ']',
    });
    t.is(expected.status, 200);
    const total = expected.body.estimatedTotalHits as number;
    await page.waitForSelector(`#stats [data-hits="${total}"]`);
    // The first hit's name is highlighted (<mark>) where the API's is, for the whole query.
    const marks = [...(expected.body.hits[0]._formatted.name as string).matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]);
    t.true(marks.length > 0);
    await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('.ais-Hits-item:first-child h3 mark')]
      .map((mark) => mark.textContent)) === want, JSON.stringify(marks));

    // The facet counts are Skein's.
    const counts = expected.body.facetDistribution.popularity as Record<string, number>;
    const shownCounts = await page.locator('#popularity .ais-RefinementList-item').evaluateAll((items) => Object.fromEntries(items.map((item) => [
      item.querySelector('.ais-RefinementList-labelText')?.textContent ?? '', Number(item.querySelector('.ais-RefinementList-count')?.textContent),
    ])));
    t.deepEqual(shownCounts, counts);
    await screenshot(page, 'instantsearch-search');

    // Refine by the value with the fewest hits: every hit then carries it.
    const [value, count] = Object.entries(counts).sort((a, b) => a[1] - b[1])[0]!;
    t.true(count < total);
    await page.locator('#popularity .ais-RefinementList-item').filter({ hasText: value }).locator('input').click();
    await page.waitForSelector(`#stats [data-hits="${count}"]`);
    await page.waitForSelector('#popularity .ais-RefinementList-item--selected');
    const shown = await page.locator('.ais-Hits-item article').evaluateAll((items) => items.map((item) => item.getAttribute('data-popularity')));
    t.true(shown.length > 0 && shown.length <= count, `${shown.length} hits shown for ${count}`);
    t.true(shown.every((one) => one === value), shown.join(' | '));
    t.true(await page.locator('.ais-Hits-item mark').count() > 0);
    await screenshot(page, 'instantsearch-refined');

    t.true(skeinAnswers.length >= 3, JSON.stringify(skeinAnswers));
    for (const answer of skeinAnswers) {
      t.is(answer.status, 200, answer.url);
      t.is(answer.allowOrigin, '*', answer.url);
    }
    t.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});
