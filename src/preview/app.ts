// The preview page at GET / (development only): pick an index, search as you type, highlighted hits,
// facet counts with refinement, and an API key field when the server asks for one. Served by the
// front thread (src/front/ops/preview-routes.ts) under a strict Content-Security-Policy: no inline script,
// no innerHTML. Document text only ever becomes text nodes; <mark> elements come from our own
// highlight tags, random per page load, so no document can forge one.

const KEY_STORAGE = 'skein-preview-api-key';
const HITS_PER_PAGE = 20;
const FACET_VALUES_SHOWN = 10;
const ATTRIBUTES_SHOWN = 8;

const token = Array.from(crypto.getRandomValues(new Uint32Array(2)), (n) => n.toString(36)).join('');
/** Private-use characters around a random token: text a document cannot contain by chance. */
const PRE_TAG = `\uE000${token}\uE001`;
const POST_TAG = `\uE002${token}\uE003`;

interface IndexInfo { uid: string; primaryKey: string | null }
interface SearchAnswer {
  hits: Array<Record<string, unknown>>;
  facetDistribution?: Record<string, Record<string, number>>;
  processingTimeMs: number;
  estimatedTotalHits?: number;
  totalHits?: number;
}

class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

function element<K extends keyof HTMLElementTagNameMap>(id: string, _tag: K): HTMLElementTagNameMap[K] {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from the page`);
  return found as HTMLElementTagNameMap[K];
}

function make<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const ui = {
  indexPicker: element('index-picker', 'label'),
  index: element('index', 'select'),
  changeKey: element('change-key', 'button'),
  keyForm: element('key-form', 'form'),
  keyMessage: element('key-message', 'p'),
  key: element('key', 'input'),
  keyIndex: element('key-index', 'input'),
  notice: element('notice', 'p'),
  search: element('search', 'main'),
  q: element('q', 'input'),
  stats: element('stats', 'p'),
  error: element('error', 'p'),
  facets: element('facets', 'aside'),
  hits: element('hits', 'ol'),
};

/** The page's state; one owner, this object. */
const state = {
  key: readStoredKey(),
  indexes: [] as IndexInfo[],
  index: null as IndexInfo | null,
  /** Selected facet values: attribute → values (OR within an attribute, AND across attributes). */
  refinements: new Map<string, Set<string>>(),
  inFlight: null as AbortController | null,
  lastFacets: {} as Record<string, Record<string, number>>,
  /** Indexes whose search refused `facets: ["*"]` (no filterable attribute, as Meilisearch answers): searched without facets. */
  facetless: new Set<string>(),
};

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null; // storage disabled: the key lives in memory only
  }
}

function storeKey(key: string | null): void {
  state.key = key;
  try {
    if (key === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // memory only
  }
}

async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = {};
  if (state.key) headers.Authorization = `Bearer ${state.key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: reported below by status
  }
  if (!response.ok) {
    const error = (parsed ?? {}) as { code?: string; message?: string };
    throw new ApiError(response.status, error.code ?? 'unknown', error.message ?? `HTTP ${response.status}`);
  }
  return parsed as T;
}

function isAuthError(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 401 || error.status === 403);
}

function askForKey(message: string): void {
  ui.search.hidden = true;
  ui.indexPicker.hidden = true;
  ui.notice.hidden = true;
  ui.keyForm.hidden = false;
  ui.keyMessage.textContent = message;
  ui.key.value = '';
  ui.keyIndex.value = wantedIndex() ?? '';
  ui.key.focus();
}

async function loadIndexes(): Promise<void> {
  let answer: { results: IndexInfo[] };
  try {
    answer = await api<{ results: IndexInfo[] }>('GET', '/indexes?limit=1000');
  } catch (error) {
    if (!isAuthError(error)) {
      showNotice(`Could not list the indexes: ${messageOf(error)}`);
      return;
    }
    const wanted = wantedIndex();
    if (state.key === null) {
      askForKey('This server has a master key: enter an API key to search.');
      return;
    }
    if (error.status !== 403 || wanted === null) {
      askForKey(`This key cannot list the indexes (${error.code}): give the index to search too, or use a key with the indexes.get action.`);
      return;
    }
    // A search-only key (such as the Default Search API Key) searches the index it was given.
    answer = { results: [{ uid: wanted, primaryKey: null }] };
  }
  ui.keyForm.hidden = true;
  ui.changeKey.hidden = state.key === null;
  state.indexes = answer.results;
  if (state.indexes.length === 0) {
    showNotice('No index yet: add documents (POST /indexes/{uid}/documents), then reload this page.');
    return;
  }
  ui.notice.hidden = true;
  ui.index.replaceChildren(...state.indexes.map((index) => {
    const option = make('option', undefined, index.uid);
    option.value = index.uid;
    return option;
  }));
  const wanted = wantedIndex();
  const chosen = state.indexes.find((index) => index.uid === wanted) ?? state.indexes[0]!;
  ui.index.value = chosen.uid;
  ui.indexPicker.hidden = false;
  ui.search.hidden = false;
  selectIndex(chosen.uid);
}

/** The index named in the page's address (`#index=uid`), if any. */
function wantedIndex(): string | null {
  const uid = new URLSearchParams(location.hash.slice(1)).get('index');
  return uid === null || uid === '' ? null : uid;
}

function showNotice(text: string): void {
  ui.notice.textContent = text;
  ui.notice.hidden = false;
  ui.search.hidden = true;
}

function selectIndex(uid: string): void {
  state.index = state.indexes.find((index) => index.uid === uid) ?? null;
  state.refinements.clear();
  history.replaceState(null, '', `#index=${encodeURIComponent(uid)}`);
  void runSearch();
  ui.q.focus();
}

/** A filter value (or attribute name) in double quotes; the grammar's only escape is \" for a quote. */
function quoted(text: string): string {
  return `"${text.replace(/"/g, '\\"')}"`;
}

function filterOf(): string[][] {
  const filter: string[][] = [];
  for (const [attribute, values] of state.refinements) {
    if (values.size > 0) filter.push([...values].map((value) => `${quoted(attribute)} = ${quoted(value)}`));
  }
  return filter;
}

async function runSearch(): Promise<void> {
  const index = state.index;
  if (!index) return;
  state.inFlight?.abort();
  const controller = new AbortController();
  state.inFlight = controller;
  const filter = filterOf();
  const body: Record<string, unknown> = {
    q: ui.q.value,
    limit: HITS_PER_PAGE,
    attributesToHighlight: ['*'],
    highlightPreTag: PRE_TAG,
    highlightPostTag: POST_TAG,
  };
  if (!state.facetless.has(index.uid)) body.facets = ['*'];
  if (filter.length > 0) body.filter = filter;
  let answer: SearchAnswer;
  try {
    answer = await api<SearchAnswer>('POST', `/indexes/${encodeURIComponent(index.uid)}/search`, body, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) return; // a newer keystroke took over
    if (error instanceof ApiError && error.code === 'invalid_search_facets' && !state.facetless.has(index.uid)) {
      state.facetless.add(index.uid);
      void runSearch();
      return;
    }
    if (isAuthError(error)) {
      askForKey(`The server refused the key for searching ${index.uid} (${error.code}).`);
      return;
    }
    ui.error.textContent = messageOf(error);
    ui.error.hidden = false;
    return;
  }
  if (controller.signal.aborted) return;
  state.inFlight = null;
  ui.error.hidden = true;
  const total = answer.estimatedTotalHits ?? answer.totalHits ?? answer.hits.length;
  ui.stats.textContent = `${total.toLocaleString('en')} ${total === 1 ? 'hit' : 'hits'} (estimated) in ${answer.processingTimeMs} ms`;
  ui.stats.dataset.estimatedTotalHits = String(total);
  ui.stats.dataset.processingTimeMs = String(answer.processingTimeMs);
  ui.stats.dataset.filter = JSON.stringify(filter);
  ui.stats.dataset.query = String(body.q);
  state.lastFacets = answer.facetDistribution ?? {};
  renderFacets();
  renderHits(answer.hits, index);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function renderHits(hits: SearchAnswer['hits'], index: IndexInfo): void {
  ui.hits.replaceChildren(...hits.map((hit) => {
    const item = make('li', 'hit');
    const formatted = (hit._formatted ?? hit) as Record<string, unknown>;
    if (index.primaryKey !== null && hit[index.primaryKey] !== undefined) item.dataset.id = String(hit[index.primaryKey]);
    const list = make('dl');
    const names = Object.keys(formatted).filter((name) => !name.startsWith('_')).slice(0, ATTRIBUTES_SHOWN);
    for (const name of names) {
      const value = make('dd');
      value.dataset.attribute = name;
      value.append(...highlighted(textOf(formatted[name])));
      list.append(make('dt', undefined, name), value);
    }
    item.append(list);
    return item;
  }));
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join(', ');
  if (value === null) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Text nodes for the text, <mark> elements where our own tags were; nothing is ever parsed as HTML. */
function highlighted(text: string): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf(PRE_TAG, at);
    if (open === -1) break;
    const close = text.indexOf(POST_TAG, open + PRE_TAG.length);
    if (close === -1) break;
    if (open > at) nodes.push(document.createTextNode(text.slice(at, open)));
    nodes.push(make('mark', undefined, text.slice(open + PRE_TAG.length, close)));
    at = close + POST_TAG.length;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

function renderFacets(): void {
  const sections: HTMLElement[] = [];
  const attributes = new Set([...Object.keys(state.lastFacets), ...state.refinements.keys()]);
  for (const attribute of [...attributes].sort()) {
    const counts = state.lastFacets[attribute] ?? {};
    const selected = state.refinements.get(attribute) ?? new Set<string>();
    const values = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, FACET_VALUES_SHOWN);
    // Selected values stay listed (count 0) even when the other refinements leave them no hit.
    for (const value of selected) if (!values.some(([shown]) => shown === value)) values.push([value, counts[value] ?? 0]);
    if (values.length === 0) continue;
    const section = make('section');
    section.dataset.facet = attribute;
    const list = make('ul');
    for (const [value, count] of values) {
      const box = make('input');
      box.type = 'checkbox';
      box.checked = selected.has(value);
      box.addEventListener('change', () => toggleRefinement(attribute, value, box.checked));
      const label = make('label');
      label.dataset.value = value;
      label.append(box, make('span', 'value', value), make('span', 'count', String(count)));
      const item = make('li');
      item.append(label);
      list.append(item);
    }
    section.append(make('h2', undefined, attribute), list);
    sections.push(section);
  }
  ui.facets.replaceChildren(...sections);
}

function toggleRefinement(attribute: string, value: string, on: boolean): void {
  const values = state.refinements.get(attribute) ?? new Set<string>();
  if (on) values.add(value);
  else values.delete(value);
  if (values.size === 0) state.refinements.delete(attribute);
  else state.refinements.set(attribute, values);
  void runSearch();
}

ui.q.addEventListener('input', () => void runSearch());
ui.index.addEventListener('change', () => selectIndex(ui.index.value));
ui.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = ui.key.value.trim();
  storeKey(key === '' ? null : key);
  const index = ui.keyIndex.value.trim();
  if (index !== '') history.replaceState(null, '', `#index=${encodeURIComponent(index)}`);
  void loadIndexes();
});
ui.changeKey.addEventListener('click', () => {
  storeKey(null);
  askForKey('Enter another API key.');
});

void loadIndexes();
