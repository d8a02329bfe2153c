// Key actions (auth.md §5): the names a key may hold, and what a held action grants. Wildcards are
// expanded once, when a key enters the front's key cache, so checking a request is one Set lookup.

/** Every action name accepted in POST /keys, in the order Meilisearch lists them (keys.rs). */
export const KEY_ACTIONS = [
  '*', 'search', 'documents.*', 'documents.add', 'documents.get', 'documents.delete',
  'indexes.*', 'indexes.create', 'indexes.get', 'indexes.update', 'indexes.delete', 'indexes.swap', 'indexes.compact',
  'tasks.*', 'tasks.cancel', 'tasks.delete', 'tasks.get', 'tasks.compact',
  'settings.*', 'settings.get', 'settings.update',
  'stats.*', 'stats.get', 'metrics.*', 'metrics.get', 'dumps.*', 'dumps.create', 'snapshots.*', 'snapshots.create',
  'version', 'keys.create', 'keys.get', 'keys.update', 'keys.delete',
  'experimental.get', 'experimental.update', 'export', 'network.*', 'network.get', 'network.update',
  'chatCompletions', 'chats.*', 'chats.get', 'chats.delete', 'chatsSettings.*', 'chatsSettings.get', 'chatsSettings.update',
  '*.get', 'webhooks.get', 'webhooks.update', 'webhooks.delete', 'webhooks.create', 'webhooks.*',
  'fields.post', 'dynamicSearchRules.*', 'dynamicSearchRules.get', 'dynamicSearchRules.create',
  'dynamicSearchRules.update', 'dynamicSearchRules.delete',
] as const;

const KNOWN = new Set<string>(KEY_ACTIONS);

/** The concrete (non-wildcard) actions. */
const CONCRETE = KEY_ACTIONS.filter((action) => !action.includes('*'));

/** Read actions `*.get` grants: every `.get` but keys.get, plus search and version (auth.md §5). */
const READ_ACTIONS = CONCRETE.filter((action) => (action.endsWith('.get') && action !== 'keys.get') || action === 'search' || action === 'version');

/**
 * Actions whose routes without an index in their path filter by the key's indexes themselves
 * (Meilisearch's IndexScope::RouteHandlerChecksIndex): an index-restricted key may use them there.
 */
const HANDLER_CHECKS_INDEX = new Set<string>(['search', 'documents.get', 'indexes.create', 'indexes.get', 'indexes.swap',
  'tasks.get', 'tasks.cancel', 'tasks.delete', 'settings.get', 'stats.*', 'stats.get', 'chatCompletions']);

/** Actions that always name an index, or wildcards spanning several scopes (ControllerChecksIndex, MultipleScope). */
const INDEX_OR_MULTIPLE_SCOPE = new Set<string>(['*', '*.get', 'documents.*', 'documents.add', 'documents.delete',
  'indexes.*', 'indexes.update', 'indexes.delete', 'indexes.compact', 'fields.post', 'tasks.*', 'settings.*', 'settings.update']);

export function isKnownAction(action: string): boolean {
  return KNOWN.has(action);
}

/** The concrete actions a list of held actions grants. */
export function expandActions(held: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const action of held) {
    if (action === '*') {
      for (const one of CONCRETE) out.add(one);
      // Meilisearch's Action::All holds every action, wildcards included: `documents.*` is a route's action too (documents/edit).
      out.add('documents.*');
    }
    else if (action === '*.get') for (const one of READ_ACTIONS) out.add(one);
    else if (action.endsWith('.*')) {
      const prefix = action.slice(0, -1);
      for (const one of CONCRETE) if (one.startsWith(prefix)) out.add(one);
    } else out.add(action);
  }
  return out;
}

/**
 * Global actions (Meilisearch's IndexScope::DenyIndexScope: keys, dumps, snapshots, version, metrics,
 * tasks.compact, ...): a key restricted to some indexes may not be created with one
 * (index_scoped_api_key_with_global_action, v1.49+), and a restricted key never uses one.
 */
export function isGlobalOnlyAction(action: string): boolean {
  return !HANDLER_CHECKS_INDEX.has(action) && !INDEX_OR_MULTIPLE_SCOPE.has(action);
}

/**
 * May a key restricted to some indexes use this concrete action on a route with no index in its path?
 * Only when the route filters by the key's indexes itself (GET /tasks, GET /indexes, /multi-search...);
 * never for global actions (/keys, /version, ...), as Meilisearch's is_key_authorized with no index.
 */
export function restrictedKeyMayUseWithoutIndex(action: string): boolean {
  return HANDLER_CHECKS_INDEX.has(action);
}
