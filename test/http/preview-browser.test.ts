// The preview page at GET / in a real browser (chromium, playwright-core): search as you type with
// highlighted hits, facet counts and refinement, processingTimeMs; the API key prompt when the server
// has a master key; document text never becomes markup; in production `/` is not the page.
// Screenshots: test/artifacts/preview-*.png.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, browserTest, launchChromium, loadPackages, openPage, screenshot } from './browser.js';
import { startTestServer, type TestServer } from './harness.js';

const MASTER = 'preview-master-key-0123456789';
const HOSTILE = {
  id: 'hostile',
  name: '<img src=x onerror="window.__pwned=1">',
  summary: 'xsscanary <script>window.__pwned=2</script> <b>bold</b> <mark>forged</mark> xsscanary',
  scope: '<i>scope</i>',
  popularity: 'under 1k',
  keywords: ['"quoted" \\ value'],
};

let browser: Browser;
let open: TestServer;
let secured: TestServer;

test.before(async () => {
  [open, secured] = await Promise.all([
    startTestServer({ workers: 1, shardsPerIndex: 2 }),
    startTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER }),
  ]);
  await Promise.all([loadPackages(open.client, 'packages', [HOSTILE]), loadPackages(secured.client, 'packages')]);
  await open.client.addDocuments('other', [{ id: 1, title: 'another index' }]);
  // Filterable, so the page's `facets: ["*"]` is valid there (Meilisearch refuses any facet pattern on an index without filterable attributes).
  await open.client.run('PATCH', '/indexes/other/settings', { body: { filterableAttributes: ['title'] } });
  if (process.env.SKEIN_SKIP_BROWSER !== '1') browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await Promise.all([open?.close(), secured?.close()]);
});

/** Types like a user, one key at a time: the page searches on every keystroke. */
async function typeQuery(page: Page, query: string): Promise<void> {
  await page.locator('#q').fill('');
  await page.locator('#q').pressSequentially(query, { delay: 20 });
}

/** The parts of `text` between [ and ]. */
function markedParts(text: string): string[] {
  return [...text.matchAll(/\[([^\]]*)\]/g)].map((match) => match[1]!);
}

/** The hits' values of `attribute`, as shown. */
function shownValues(page: Page, attribute: string): Promise<string[]> {
  return page.locator(`#hits dd[data-attribute="${attribute}"]`).allTextContents();
}

browserTest('search as you type: highlighted hits, facet counts, refinement by a facet value, processing time', async (t) => {
  t.timeout(BROWSER_TEST_TIMEOUT_MS);
  const { page, problems } = await openPage(browser);
  const response = await page.goto(`${open.client.baseUrl}/`);
  t.regex(response!.headers()['content-type'] ?? '', /^text\/html/);
  t.regex(response!.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  // The first index in the picker is searched at once, with the empty query.
  await page.locator('#index').selectOption('packages');
  await page.waitForSelector('#hits li');
  await typeQuery(page, 'react');
  const expected = await open.client.post('/indexes/packages/search', {
    q: 'react', facets: ['popularity'], attributesToHighlight: ['name'], highlightPreTag: '[', highlightPostTag: ']',
  });
  const total = expected.body.estimatedTotalHits as number;
  await page.waitForFunction((want) => document.querySelector<HTMLElement>('#stats')?.dataset.query === 'react'
    && document.querySelector<HTMLElement>('#stats')?.dataset.estimatedTotalHits === String(want), total);
  // The first hit's name is highlighted where the API's is (the answer to the whole query, not a prefix).
  const marks = markedParts(expected.body.hits[0]._formatted.name);
  t.true(marks.length > 0);
  await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('#hits > li:first-child dd[data-attribute="name"] mark')]
    .map((mark) => mark.textContent)) === want, JSON.stringify(marks));
  t.regex(await page.locator('#stats').textContent() ?? '', /\d+ hits \(estimated\) in \d+ ms/);
  t.true(Number(await page.locator('#stats').getAttribute('data-processing-time-ms')) >= 0);

  // Facet counts as the API gives them.
  const counts = expected.body.facetDistribution.popularity as Record<string, number>;
  for (const [value, count] of Object.entries(counts)) {
    const label = page.locator(`#facets section[data-facet="popularity"] label[data-value="${value}"]`);
    t.is(await label.locator('.count').textContent(), String(count), value);
  }
  await screenshot(page, 'preview-search');

  // Refine by the value with the fewest hits: every hit then carries it, and the count is the facet's.
  const [value, count] = Object.entries(counts).sort((a, b) => a[1] - b[1])[0]!;
  t.true(count < total);
  await page.locator(`#facets section[data-facet="popularity"] label[data-value="${value}"]`).click();
  await page.waitForFunction((want) => document.querySelector<HTMLElement>('#stats')?.dataset.estimatedTotalHits === String(want), count);
  const shown = await shownValues(page, 'popularity');
  t.true(shown.length > 0 && shown.length === Math.min(count, 20), `${shown.length} hits shown for ${count}`);
  t.true(shown.every((one) => one === value), shown.join(' | '));
  t.true(await page.locator(`#facets label[data-value="${value}"] input`).isChecked());
  await screenshot(page, 'preview-refined');
  t.deepEqual(problems, []);
});

browserTest('document text is shown as text: no markup, no script, no forged highlight', async (t) => {
  t.timeout(BROWSER_TEST_TIMEOUT_MS);
  const { page, problems } = await openPage(browser);
  await page.goto(`${open.client.baseUrl}/#index=packages`);
  await page.waitForSelector('#hits li');
  await typeQuery(page, 'xsscanary');
  // The answer to the whole word, not to a prefix typed before it ("xs" may also find only this document).
  await page.waitForFunction(() => document.querySelector<HTMLElement>('#stats')?.dataset.query === 'xsscanary'
    && document.querySelectorAll('#hits li').length === 1 && document.querySelector('#hits mark') !== null);
  const hit = page.locator('#hits li');
  t.is(await hit.locator('img, script, b, i').count(), 0);
  t.is(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  t.is(await hit.locator('dd[data-attribute="name"]').textContent(), HOSTILE.name);
  // Only our highlights are <mark> elements: the document's own "<mark>forged</mark>" stays text.
  t.deepEqual(await hit.locator('mark').allTextContents(), ['xsscanary', 'xsscanary']);
  t.true((await hit.locator('dd[data-attribute="summary"]').textContent())!.includes('<mark>forged</mark>'));
  // A facet value with quotes and a backslash refines correctly (the filter is quoted, not pasted).
  const strange = page.locator(`#facets section[data-facet="keywords"] label`).filter({ hasText: '"quoted"' });
  await strange.click();
  // Answered (the stats name the filter of the last answer) or refused (the error shows).
  await page.waitForFunction(() => document.querySelector<HTMLElement>('#error')?.hidden === false
    || (document.querySelector<HTMLElement>('#stats')?.dataset.filter ?? '').includes('quoted'));
  t.is(await page.locator('#error').isVisible(), false, await page.locator('#error').textContent() ?? '');
  t.is(await page.locator('#stats').getAttribute('data-estimated-total-hits'), '1');
  t.true(await page.locator('#facets input:checked').isChecked());
  t.is(await page.locator('#facets section[data-facet="scope"] label .value').first().textContent(), HOSTILE.scope);
  await screenshot(page, 'preview-hostile-document');
  t.deepEqual(problems, []);
});

browserTest('with a master key the page asks for an API key, refuses a wrong one, and searches with a right one', async (t) => {
  t.timeout(BROWSER_TEST_TIMEOUT_MS);
  const created = await secured.client.post('/keys', { actions: ['search', 'indexes.get'], indexes: ['*'], expiresAt: null, description: 'preview page' });
  t.is(created.status, 201);
  const { page } = await openPage(browser);
  await page.goto(`${secured.client.baseUrl}/`);
  await page.waitForSelector('#key-form', { state: 'visible' });
  t.false(await page.locator('#search').isVisible());
  await screenshot(page, 'preview-key-prompt');

  await page.locator('#key').fill('not-a-key');
  await page.locator('#key-form button[type="submit"]').click();
  await page.waitForFunction(() => /cannot list/.test(document.querySelector('#key-message')?.textContent ?? ''));
  t.true(await page.locator('#key-form').isVisible());

  await page.locator('#key').fill(created.body.key);
  await page.locator('#key-form button[type="submit"]').click();
  await page.waitForSelector('#search', { state: 'visible' });
  await typeQuery(page, 'typescript');
  await page.waitForSelector('#hits mark');
  t.false(await page.locator('#key-form').isVisible());
  // The key is kept for the session (sessionStorage), not asked again on reload.
  await page.reload();
  await page.waitForSelector('#hits li');
  t.false(await page.locator('#key-form').isVisible());
  await screenshot(page, 'preview-with-key');

  // A search-only key cannot list the indexes: given the index's uid too, it searches that index.
  const keys = await secured.client.get('/keys');
  const searchKey = keys.body.results.find((key: { name: string }) => key.name === 'Default Search API Key').key;
  const other = await openPage(browser);
  await other.page.goto(`${secured.client.baseUrl}/`);
  await other.page.locator('#key').fill(searchKey);
  await other.page.locator('#key-form button[type="submit"]').click();
  await other.page.waitForFunction(() => /cannot list/.test(document.querySelector('#key-message')?.textContent ?? ''));
  await other.page.locator('#key').fill(searchKey);
  await other.page.locator('#key-index').fill('packages');
  await other.page.locator('#key-form button[type="submit"]').click();
  await other.page.waitForSelector('#search', { state: 'visible' });
  await typeQuery(other.page, 'typescript');
  await other.page.waitForSelector('#hits mark');
  t.true(await other.page.locator('#facets section[data-facet="popularity"] label').count() > 0);
  // A wrong key with an index: the search is refused and the key asked again.
  await other.page.locator('#change-key').click();
  await other.page.locator('#key').fill('still-not-a-key');
  await other.page.locator('#key-index').fill('packages');
  await other.page.locator('#key-form button[type="submit"]').click();
  await other.page.waitForFunction(() => /refused/.test(document.querySelector('#key-message')?.textContent ?? ''));
  t.false(await other.page.locator('#search').isVisible());
  t.deepEqual(other.problems.filter((problem) => !/status of 40[13]/.test(problem)), []);
});

browserTest('in production `/` is not the page: it answers as Meilisearch without its dashboard', async (t) => {
  t.timeout(BROWSER_TEST_TIMEOUT_MS);
  const production = await startTestServer({ workers: 1, shardsPerIndex: 1, masterKey: MASTER, env: 'production' });
  try {
    const { page } = await openPage(browser);
    const response = await page.goto(`${production.client.baseUrl}/`);
    t.regex(response!.headers()['content-type'] ?? '', /^application\/json/);
    t.deepEqual(JSON.parse(await response!.text()), { status: 'Meilisearch is running' });
    t.is(await page.locator('#q').count(), 0);
  } finally {
    await production.close();
  }
});
