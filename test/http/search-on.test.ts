// Issue 22: attributesToSearchOn restricts matching to the listed attributes (Meilisearch v1.53,
// milli's SearchContext::attributes_to_search_on; the cases are those of its
// crates/meilisearch/tests/search/restrict_searchable.rs): words, typos, proximity, exactness and the
// negative operator read those fields only; the attribute rule keeps the searchableAttributes order.
import test from 'ava';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

const SIMPLE = [
  { title: 'Shazam!', desc: 'a Captain Marvel ersatz', id: '1' },
  { title: 'Captain Planet', desc: 'He\'s not part of the Marvel Cinematic Universe', id: '2' },
  { title: 'Captain Marvel', desc: 'a Shazam ersatz', id: '3' },
];

const NESTED = [
  { details: { title: 'Shazam!', desc: 'a Captain Marvel ersatz', weaknesses: ['magic', 'requires transformation'], outfit: { has_cape: true, colors: { primary: 'red', secondary: 'gold' } } }, id: '1' },
  { details: { title: 'Captain Planet', desc: 'He\'s not part of the Marvel Cinematic Universe', blue_skin: true, outfit: { has_cape: false } }, id: '2' },
  { details: { title: 'Captain Marvel', desc: 'a Shazam ersatz', weaknesses: ['magic', 'power instability'], outfit: { has_cape: false } }, id: '3' },
];

test.before(async () => {
  // Three shards over two workers: the restriction holds in every shard.
  server = await startTestServer();
  const { client } = server;
  await client.addDocuments('so_simple', SIMPLE);
  await client.addDocuments('so_nested', NESTED);
  await client.addDocuments('so_explicit', SIMPLE);
  await client.run('PATCH', '/indexes/so_explicit/settings', { body: { searchableAttributes: ['desc', 'title'], filterableAttributes: ['id'] } });
});

test.after.always(async () => {
  await server?.close();
});

async function ids(index: string, body: Record<string, unknown>): Promise<string[]> {
  const response = await server.client.post(`/indexes/${index}/search`, { attributesToRetrieve: ['id'], ...body });
  if (response.status !== 200) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
  return response.body.hits.map((hit: { id: string }) => hit.id);
}

test('only the listed attributes match (searchableAttributes `*`): words, prefix, matchingStrategy all, none, `*`, unknown names', async (t) => {
  t.deepEqual(await ids('so_simple', { q: 'Captain Marvel', attributesToSearchOn: ['title'] }), ['3', '2']);
  t.deepEqual((await ids('so_simple', { q: 'Captain Mar', attributesToSearchOn: ['title'] })).sort(), ['2', '3']);
  t.deepEqual(await ids('so_simple', { q: 'Captain Marvel', attributesToSearchOn: ['title'], matchingStrategy: 'all' }), ['3']);
  t.deepEqual(await ids('so_simple', { q: 'Captain Marvel', attributesToSearchOn: [] }), []);
  t.is((await ids('so_simple', { q: 'Captain Marvel', attributesToSearchOn: ['*'] })).length, 3);
  t.deepEqual(await ids('so_simple', { q: 'Captain Marvel', attributesToSearchOn: ['unknown'] }), []);
  t.deepEqual((await ids('so_simple', { q: 'Captain Marvel', attributesToSearchOn: ['unknown', 'title'] })).sort(), ['2', '3']);
  // The hostile case of meilisearch-js: a numeric field that holds none of the words.
  t.deepEqual(await ids('so_simple', { q: 'shazam', attributesToSearchOn: ['id'] }), []);
  // A count is the restricted one too, and a GET search reads the comma list.
  const counted = await server.client.post('/indexes/so_simple/search', { q: 'shazam', attributesToSearchOn: ['desc'] });
  t.is(counted.body.estimatedTotalHits, 1);
  const get = await server.client.request('GET', '/indexes/so_simple/search?q=shazam&attributesToSearchOn=title');
  t.deepEqual(get.body.hits.map((hit: { id: string }) => hit.id), ['1']);
});

test('typo and exactness are computed on the listed attributes only; phrases too', async (t) => {
  await server.client.addDocuments('so_typo', [
    { title: 'Capitain Marivel', desc: 'Captain Marvel', id: '1' },
    { title: 'Captain Marivel', desc: 'a Shazam ersatz', id: '2' },
  ]);
  t.deepEqual(await ids('so_typo', { q: 'Captain Marvel', attributesToSearchOn: ['title'] }), ['2', '1']);
  await server.client.addDocuments('so_exact', [
    { title: 'Captain Marvel', desc: 'Captain Marivel', id: '1' },
    { title: 'Captain Marvel', desc: 'Captain the Marvel', id: '2' },
  ]);
  t.deepEqual(await ids('so_exact', { q: 'Captain Marvel', attributesToSearchOn: ['desc'] }), ['2', '1']);
  // Highlighting and matchesPosition are not restricted: Meilisearch marks the query words in every attribute.
  const formatted = await server.client.post('/indexes/so_exact/search', {
    q: 'captain', attributesToSearchOn: ['desc'], attributesToHighlight: ['title', 'desc'], showMatchesPosition: true,
  });
  t.is(formatted.body.hits.length, 2);
  t.is(formatted.body.hits[0]._formatted.title, '<em>Captain</em> Marvel');
  t.deepEqual(Object.keys(formatted.body.hits[0]._matchesPosition).sort(), ['desc', 'title']);
  t.deepEqual(await ids('so_simple', { q: '"Captain Marvel"', attributesToSearchOn: ['desc'] }), ['1']);
  t.deepEqual(await ids('so_simple', { q: '"Captain Marvel"', attributesToSearchOn: ['title'] }), ['3']);
});

test('the negative operator excludes documents holding the word in the listed attributes only', async (t) => {
  // `shazam` is in 1's title and 3's desc: restricted to title, only 1 is excluded.
  t.deepEqual((await ids('so_simple', { q: 'ersatz -shazam', attributesToSearchOn: ['desc', 'title'] })).sort(), []);
  t.deepEqual((await ids('so_simple', { q: 'captain -shazam', attributesToSearchOn: ['title'] })).sort(), ['2', '3']);
  t.deepEqual((await ids('so_simple', { q: 'captain -shazam', attributesToSearchOn: ['desc'] })).sort(), ['1']);
  t.deepEqual((await ids('so_simple', { q: 'captain -shazam' })).sort(), ['2']);
});

test('explicit searchableAttributes: the order of attributesToSearchOn does not change the attribute rule; `*` is every searchable attribute', async (t) => {
  // desc is ranked before title by the setting, whatever the list's order.
  t.deepEqual(await ids('so_explicit', { q: 'shazam', attributesToSearchOn: ['title', 'desc'] }), ['3', '1']);
  t.deepEqual(await ids('so_explicit', { q: 'shazam', attributesToSearchOn: ['desc', 'title'] }), ['3', '1']);
  t.deepEqual(await ids('so_explicit', { q: 'shazam', attributesToSearchOn: ['title'] }), ['1']);
  t.deepEqual(await ids('so_explicit', { q: 'shazam', attributesToSearchOn: ['*'] }), ['3', '1']);
  // With a filter, and in facet search (its `q` matches the listed attributes only).
  t.deepEqual(await ids('so_explicit', { q: 'shazam', attributesToSearchOn: ['title'], filter: 'id = 3' }), []);
  const facets = await server.client.post('/indexes/so_explicit/facet-search', { facetName: 'id', q: 'shazam', attributesToSearchOn: ['desc'] });
  t.is(facets.status, 200);
  t.deepEqual(facets.body.facetHits, [{ value: '3', count: 1 }]);
  // Still Meilisearch's error for a name that is not searchable.
  const bad = await server.client.post('/indexes/so_explicit/search', { q: 'shazam', attributesToSearchOn: ['id'] });
  t.is(bad.status, 400);
  t.is(bad.body.code, 'invalid_search_attributes_to_search_on');
});

test('nested attributes: exact paths and `*` patterns (`*.title`, `details.*`)', async (t) => {
  t.deepEqual((await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['*.title'] })).sort(), ['2', '3']);
  t.deepEqual((await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['details.title'] })).sort(), ['2', '3']);
  t.is((await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['details.*'] })).length, 3);
  t.deepEqual(await ids('so_nested', { q: 'gold', attributesToSearchOn: ['details.*'] }), ['1']);
  t.deepEqual(await ids('so_nested', { q: 'gold', attributesToSearchOn: ['*.title'] }), []);
  t.deepEqual((await ids('so_nested', { q: 'mag', attributesToSearchOn: ['details.*'] })).sort(), ['1', '3']);
  t.deepEqual(await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['*.title'], matchingStrategy: 'all' }), ['3']);
  t.deepEqual(await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['unknown.*', '*.unknown'] }), []);
  t.deepEqual(await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['*.desc', '*.title'] }), ['3', '1', '2']);
});

test('a plain name selects that field only, not the fields inside it: milli restricts to the name\'s own field id, and an object\'s words are indexed under their full paths', async (t) => {
  // `details` is an object in these documents: its words live in `details.title`, `details.desc`...
  t.deepEqual(await ids('so_nested', { q: 'Captain Marvel', attributesToSearchOn: ['details'] }), []);
  t.deepEqual(await ids('so_nested', { q: 'gold', attributesToSearchOn: ['details.outfit'] }), []);
  t.deepEqual(await ids('so_nested', { q: 'gold', attributesToSearchOn: ['details.outfit.colors.secondary'] }), ['1']);
  // A document whose `details` is a string is found through it; the object ones still are not.
  await server.client.addDocuments('so_parent', [...NESTED, { id: '4', details: 'Captain Marvel in a string' }]);
  t.deepEqual(await ids('so_parent', { q: 'Captain Marvel', attributesToSearchOn: ['details'] }), ['4']);
  // Explicit searchableAttributes naming the parent: its inner fields are searchable, yet `details` still selects its own field only.
  await server.client.run('PATCH', '/indexes/so_parent/settings', { body: { searchableAttributes: ['details', 'id'] } });
  t.deepEqual(await ids('so_parent', { q: 'Captain Marvel', attributesToSearchOn: ['details'] }), ['4']);
  t.deepEqual((await ids('so_parent', { q: 'Captain Marvel', attributesToSearchOn: ['details.title'] })).sort(), ['2', '3']);
  t.is((await ids('so_parent', { q: 'Captain Marvel' })).length, 4);
});

test('explicit searchableAttributes: a field is told by its rank until a document nests fields under the selector, then by its name', async (t) => {
  await server.client.run('PATCH', '/indexes/so_ranks/settings', { body: { searchableAttributes: ['title', 'details'] } });
  await server.client.addDocuments('so_ranks', [{ id: '1', title: 'comet', details: 'Captain Marvel' }, { id: '2', title: 'Captain Marvel', details: 'comet' }]);
  t.deepEqual(await ids('so_ranks', { q: 'Captain Marvel', attributesToSearchOn: ['details'] }), ['1']);
  t.deepEqual(await ids('so_ranks', { q: 'Captain Marvel', attributesToSearchOn: ['title'] }), ['2']);
  // `details.inner` ranks under `details` but is not named by it: `details` must not select it.
  await server.client.addDocuments('so_ranks', [{ id: '3', title: 'comet', details: { inner: 'Captain Marvel' } }]);
  t.deepEqual(await ids('so_ranks', { q: 'Captain Marvel', attributesToSearchOn: ['details'] }), ['1']);
  t.deepEqual(await ids('so_ranks', { q: 'Captain Marvel', attributesToSearchOn: ['details.inner'] }), ['3']);
  t.deepEqual((await ids('so_ranks', { q: 'Captain Marvel', attributesToSearchOn: ['details', 'title'] })).sort(), ['1', '2']);
});

test('searchableAttributes `*`: a rank is told by its one name until a document puts another field at it, then by each document\'s names', async (t) => {
  await server.client.addDocuments('so_star', [{ id: '1', title: 'comet', desc: 'Captain Marvel' }, { id: '2', title: 'Captain Marvel', desc: 'comet' }]);
  t.deepEqual(await ids('so_star', { q: 'Captain Marvel', attributesToSearchOn: ['desc'] }), ['1']);
  t.deepEqual(await ids('so_star', { q: 'Captain Marvel', attributesToSearchOn: ['title'] }), ['2']);
  // Another field order: `desc` is now the first field of a document, where `id` was.
  await server.client.addDocuments('so_star', [{ desc: 'Captain Marvel', title: 'comet', id: '3' }, { id: '4', other: 'Captain Marvel', title: 'comet' }]);
  t.deepEqual((await ids('so_star', { q: 'Captain Marvel', attributesToSearchOn: ['desc'] })).sort(), ['1', '3']);
  t.deepEqual(await ids('so_star', { q: 'Captain Marvel', attributesToSearchOn: ['title'] }), ['2']);
  t.deepEqual(await ids('so_star', { q: 'Captain Marvel', attributesToSearchOn: ['other'] }), ['4']);
  t.deepEqual((await ids('so_star', { q: 'Captain Marvel', attributesToSearchOn: ['desc', 'other'] })).sort(), ['1', '3', '4']);
});

test('documents written after the first search are restricted alike (the shard reads their fields anew)', async (t) => {
  await server.client.addDocuments('so_written', SIMPLE);
  t.deepEqual((await ids('so_written', { q: 'Captain Marvel', attributesToSearchOn: ['title'] })).sort(), ['2', '3']);
  await server.client.addDocuments('so_written', [{ id: '4', title: 'Marvel Captain', desc: 'nothing here' }, { id: '3', title: 'nothing', desc: 'Captain Marvel' }]);
  t.deepEqual((await ids('so_written', { q: 'Captain Marvel', attributesToSearchOn: ['title'] })).sort(), ['2', '4']);
  t.deepEqual(await ids('so_written', { q: 'nothing', attributesToSearchOn: ['title'] }), ['3']);
});

test('explicit searchableAttributes: a name must be a field the index has or an entry of the setting (milli v1.50 checks searchable_fields_and_weights: nested paths included, never a path no document holds); the error lists those fields', async (t) => {
  const { client } = server;
  await client.addDocuments('so_known', NESTED);
  await client.run('PATCH', '/indexes/so_known/settings', { body: { searchableAttributes: ['details', 'id', 'ghost'], displayedAttributes: ['*'], filterableAttributes: ['id'] } });
  const error = async (body: Record<string, unknown>, path = '/indexes/so_known/search') => {
    const response = await client.post(path, { q: 'captain', ...body });
    t.is(response.status, 400, JSON.stringify(body));
    return response.body;
  };
  const fields = 'details, details.blue_skin, details.desc, details.outfit.colors.primary, details.outfit.colors.secondary, details.outfit.has_cape, details.title, details.weaknesses, id';
  const message = (name: string) => `Attribute \`${name}\` is not searchable. Available searchable attributes are: \`${fields}\`.`;
  const inIndex = (name: string) => ({ message: `Index \`so_known\`: ${message(name)}`, code: 'invalid_search_attributes_to_search_on', type: 'invalid_request', link: 'https://docs.meilisearch.com/errors#invalid_search_attributes_to_search_on' });
  // a path inside a searchable attribute that no document has, a setting entry no document has, a pattern matching nothing
  t.deepEqual(await error({ attributesToSearchOn: ['details.nonexistent'] }), inIndex('details.nonexistent'));
  t.deepEqual(await error({ attributesToSearchOn: ['nothing.*'] }), inIndex('nothing.*'));
  t.deepEqual(await error({ attributesToSearchOn: ['details.outfit'] }), inIndex('details.outfit'), 'an object inside a document is not a field (its leaves are)');
  t.deepEqual(await error({ attributesToSearchOn: ['title'] }), inIndex('title'), 'not searchable at all: the same list');
  t.deepEqual(await error({ attributesToSearchOn: ['details.nonexistent'], q: '' }), inIndex('details.nonexistent'), 'a placeholder search checks it too');
  const multi = await client.post('/multi-search', { queries: [{ indexUid: 'so_known', q: 'captain', attributesToSearchOn: ['details.nonexistent'] }] });
  t.is(multi.body.message, `Inside \`.queries[0]\`: Index \`so_known\`: ${message('details.nonexistent')}`);
  const facet = await client.post('/indexes/so_known/facet-search', { facetName: 'id', q: 'captain', attributesToSearchOn: ['details.nonexistent'] });
  t.is(facet.status, 400);
  t.is(facet.body.message, message('details.nonexistent'));
  // fields the index has: nested leaves, the top-level object, patterns matching one, `*`
  t.deepEqual((await ids('so_known', { q: 'Captain Marvel', attributesToSearchOn: ['details.title'] })).sort(), ['2', '3']);
  t.deepEqual(await ids('so_known', { q: 'gold', attributesToSearchOn: ['details.outfit.colors.secondary'] }), ['1']);
  t.deepEqual(await ids('so_known', { q: 'Captain Marvel', attributesToSearchOn: ['details'] }), []);
  t.is((await ids('so_known', { q: 'Captain Marvel', attributesToSearchOn: ['details.*'] })).length, 3);
  t.is((await ids('so_known', { q: 'Captain Marvel', attributesToSearchOn: ['*', 'details.title'] })).length, 3);
  // an entry of the setting passes even when no document has it (v1.50: `defined_searchable` holds it), selecting nothing
  t.deepEqual((await ids('so_known', { q: 'Captain Marvel', attributesToSearchOn: ['details.title', 'ghost'] })).sort(), ['2', '3']);
  // a pattern matching a nested field passes though it matches no entry of the setting
  t.deepEqual((await ids('so_known', { q: 'Captain Marvel', attributesToSearchOn: ['*.title'] })).sort(), ['2', '3']);
  // a field a later document brings becomes valid; deleting it does not forget it (milli's fields map only grows)
  await client.addDocuments('so_known', [{ id: '9', details: { nickname: 'Cap' } }]);
  t.deepEqual(await ids('so_known', { q: 'cap', attributesToSearchOn: ['details.nickname'] }), ['9']);
  await client.run('DELETE', '/indexes/so_known/documents/9');
  t.deepEqual(await ids('so_known', { q: 'cap', attributesToSearchOn: ['details.nickname'] }), []);
});
