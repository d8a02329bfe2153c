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
  'experimental.get', 'experimental.update', 'export', 'network.get', 'network.update',
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

/** Actions an index-restricted key may not hold (v1.49+, index_scoped_api_key_with_global_action). */
const GLOBAL_ONLY_PREFIXES = ['keys.', 'dumps.', 'snapshots.', 'metrics.', 'experimental.', 'network.', 'webhooks.', 'export', 'version'];

export function isKnownAction(action: string): boolean {
  return KNOWN.has(action);
}

/** The concrete actions a list of held actions grants. */
export function expandActions(held: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const action of held) {
    if (action === '*') for (const one of CONCRETE) out.add(one);
    else if (action === '*.get') for (const one of READ_ACTIONS) out.add(one);
    else if (action.endsWith('.*')) {
      const prefix = action.slice(0, -1);
      for (const one of CONCRETE) if (one.startsWith(prefix)) out.add(one);
    } else out.add(action);
  }
  return out;
}

export function isGlobalOnlyAction(action: string): boolean {
  return GLOBAL_ONLY_PREFIXES.some((prefix) => action === prefix || (prefix.endsWith('.') && action.startsWith(prefix)));
}
