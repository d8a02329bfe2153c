// /indexes/{uid}/settings and its per-setting sub-routes. Reads come from the index record; updates
// are validated then enqueued as settingsUpdate tasks (a missing index is created by the task).
import { defaultSettings, SETTING_NAMES, type IndexSettings } from '../../settings/index-settings.js';
import { jsonReply, type FrontRequest } from '../http/http-types.js';
import { validateIndexUid } from './index-uid.js';
import type { FrontContext, HttpMethod, RouteSpec } from '../http/route-spec.js';
import { validateSetting, validateSettingsBody } from './settings-validation.js';
import { readFeatures, requireFeature } from '../../storage/experimental-features.js';

/** Sub-route name -> setting key and the verb that updates it (PATCH for object settings). */
const SUB_ROUTES: Array<[string, keyof IndexSettings, HttpMethod]> = [
  ['displayed-attributes', 'displayedAttributes', 'PUT'],
  ['searchable-attributes', 'searchableAttributes', 'PUT'],
  ['filterable-attributes', 'filterableAttributes', 'PUT'],
  ['sortable-attributes', 'sortableAttributes', 'PUT'],
  ['foreign-keys', 'foreignKeys', 'PUT'],
  ['ranking-rules', 'rankingRules', 'PUT'],
  ['stop-words', 'stopWords', 'PUT'],
  ['non-separator-tokens', 'nonSeparatorTokens', 'PUT'],
  ['separator-tokens', 'separatorTokens', 'PUT'],
  ['dictionary', 'dictionary', 'PUT'],
  ['synonyms', 'synonyms', 'PUT'],
  ['distinct-attribute', 'distinctAttribute', 'PUT'],
  ['proximity-precision', 'proximityPrecision', 'PUT'],
  ['typo-tolerance', 'typoTolerance', 'PATCH'],
  ['faceting', 'faceting', 'PATCH'],
  ['pagination', 'pagination', 'PATCH'],
  ['embedders', 'embedders', 'PATCH'],
  ['search-cutoff-ms', 'searchCutoffMs', 'PUT'],
  ['localized-attributes', 'localizedAttributes', 'PUT'],
  ['facet-search', 'facetSearch', 'PUT'],
  ['prefix-search', 'prefixSearch', 'PUT'],
];

/** Every setting in the canonical key order, defaults filled in for anything the record lacks. */
export function settingsView(settings: Partial<IndexSettings>): IndexSettings {
  const defaults = defaultSettings();
  const out = {} as Record<string, unknown>;
  for (const name of SETTING_NAMES) out[name] = settings[name] ?? defaults[name];
  return out as unknown as IndexSettings;
}

/**
 * Setting `foreignKeys` (not resetting it) needs the foreignKeys experimental feature, checked when
 * enqueuing, as Meilisearch's validate_settings does; GET /settings shows it only while the feature is on.
 */
function requireForeignKeysFeature(context: FrontContext, settings: Record<string, unknown>): void {
  if (settings.foreignKeys === undefined || settings.foreignKeys === null) return;
  requireFeature(context.storage.meta, 'foreignKeys', 'setting `foreignKeys` in the index settings', 'foreign_keys',
    'https://github.com/orgs/meilisearch/discussions/873');
}

/**
 * `reset`: a DELETE route, which never creates a missing index (Meilisearch's autobatcher: allow_index_creation
 * && !is_deletion, every DELETE settings route registering is_deletion): the task fails with index_not_found.
 */
function enqueueSettings(request: FrontRequest, context: FrontContext, indexUid: string, settings: Record<string, unknown>, isDeletion: boolean, reset = isDeletion) {
  requireForeignKeysFeature(context, settings);
  return context.scheduler.enqueue({ type: 'settingsUpdate', indexUid, settings, isDeletion, allowIndexCreation: request.access.allowIndexCreation && !reset });
}

const everySettingReset = (): Record<string, unknown> => Object.fromEntries(SETTING_NAMES.map((name) => [name, null]));

export const settingsRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/indexes/{indexUid}/settings', action: 'settings.get', body: 'none',
    handle: (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      const view: Partial<IndexSettings> = settingsView(context.indexes.require(uid).settings);
      if (!readFeatures(context.storage.meta).foreignKeys) delete view.foreignKeys;
      return jsonReply(200, view);
    },
  },
  {
    method: 'PATCH', path: '/indexes/{indexUid}/settings', action: 'settings.update', body: 'json',
    handle: async (request, context) => {
      const settings = validateSettingsBody(request.json);
      const uid = validateIndexUid(request.params.indexUid!);
      return jsonReply(202, await enqueueSettings(request, context, uid, settings, false));
    },
  },
  {
    method: 'DELETE', path: '/indexes/{indexUid}/settings', action: 'settings.update', body: 'none',
    handle: async (request, context) => {
      const uid = validateIndexUid(request.params.indexUid!);
      return jsonReply(202, await enqueueSettings(request, context, uid, everySettingReset(), true));
    },
  },
  ...SUB_ROUTES.flatMap(([route, key, verb]): RouteSpec[] => {
    const path = `/indexes/{indexUid}/settings/${route}`;
    return [
      {
        method: 'GET', path, action: 'settings.get', body: 'none',
        handle: (request, context) => {
          const uid = validateIndexUid(request.params.indexUid!);
          return jsonReply(200, settingsView(context.indexes.require(uid).settings)[key]);
        },
      },
      {
        method: verb, path, action: 'settings.update', body: 'json',
        handle: async (request, context) => {
          validateSetting(key, request.json);
          const uid = validateIndexUid(request.params.indexUid!);
          return jsonReply(202, await enqueueSettings(request, context, uid, { [key]: request.json }, false));
        },
      },
      {
        method: 'DELETE', path, action: 'settings.update', body: 'none',
        handle: async (request, context) => {
          const uid = validateIndexUid(request.params.indexUid!);
          // A reset of one setting, not a DELETE /settings (isDeletion means "every setting").
          return jsonReply(202, await enqueueSettings(request, context, uid, { [key]: null }, false, true));
        },
      },
    ];
  }),
];
