// GET / PATCH /experimental-features (Meilisearch v1.53's shape): the flags are read from LMDB here and
// written by the scheduler thread (UpdateFeatures), answered synchronously with every flag.
// Key actions experimental.get / experimental.update: global actions (indexes ["*"] only).
import { FEATURE_NAMES, readFeatures } from '../../storage/experimental-features.js';
import { invalidValueType, isPlainObject, unknownField } from '../http/deserr-messages.js';
import { jsonReply } from '../http/http-types.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';

export const experimentalFeaturesRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/experimental-features', action: 'experimental.get', body: 'none',
    handle: (_request, context) => jsonReply(200, withStartOptions(readFeatures(context.storage.meta), context)),
  },
  {
    method: 'PATCH', path: '/experimental-features', action: 'experimental.update', body: 'json',
    handle: async (request, context) => {
      const patch = parseFeaturesPatch(request.json);
      return jsonReply(200, withStartOptions(await context.scheduler.updateFeatures(patch), context));
    },
  },
];

/** `--experimental-enable-metrics` shows as `metrics: true`, as Meilisearch's instance features do. */
function withStartOptions<T extends Record<string, boolean>>(features: T, context: Pick<FrontContext, 'options'>): T {
  return context.options.enableMetrics ? { ...features, metrics: true } : features;
}

const KNOWN: ReadonlySet<string> = new Set(FEATURE_NAMES);

/**
 * deserr's RuntimeTogglableFeatures (deny_unknown_fields, every field `Option<bool>`): the first bad
 * field in body order is the error, code bad_request; null means "unchanged", as an absent field.
 */
export function parseFeaturesPatch(body: unknown): Record<string, boolean> {
  if (!isPlainObject(body)) throw invalidValueType('bad_request', '', 'an object', body);
  const patch: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!KNOWN.has(name)) throw unknownField(name, FEATURE_NAMES);
    if (value === null) continue;
    if (typeof value !== 'boolean') throw invalidValueType('bad_request', `.${name}`, 'a boolean', value);
    patch[name] = value;
  }
  return patch;
}
