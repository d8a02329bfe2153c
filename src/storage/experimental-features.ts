// The runtime-togglable experimental features (Meilisearch v1.53's RuntimeTogglableFeatures, in its
// order): stored as one JSON object under the `meta` key EXPERIMENTAL_FEATURES, written by the
// scheduler only (UpdateFeatures message), read by the front for GET /experimental-features.
// Most are only stored and reported; routes gated by one call requireFeature (documents/edit, tasks/{uid}/documents, logs).
import type { Database } from 'lmdb';
import { SkeinError } from '../errors/index.js';
import { positionedMessage } from '../filter/filter-error.js';
import { containsOperatorOf } from '../filter/filter-input.js';
import { EXPERIMENTAL_FEATURES } from './meta-keys.js';

export const FEATURE_NAMES = [
  'metrics', 'logsRoute', 'tasksStreamingRoute', 'editDocumentsByFunction', 'containsFilter',
  'dynamicSearchRules', 'network', 'getTaskDocumentsRoute', 'taskQueueCompactionRoute',
  'compositeEmbedders', 'chatCompletions', 'multimodal', 'foreignKeys', 'disableDocumentsFetchQueue',
  'legacySearch', 'renderRoute',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];
export type ExperimentalFeatures = Record<FeatureName, boolean>;

type MetaDb = Pick<Database<number | string, string>, 'get'>;

/** The stored flags, every one present (false unless stored true), in Meilisearch's order. */
export function readFeatures(meta: MetaDb): ExperimentalFeatures {
  const raw = meta.get(EXPERIMENTAL_FEATURES);
  const stored = raw === undefined ? {} : JSON.parse(String(raw)) as Record<string, unknown>;
  const features = {} as ExperimentalFeatures;
  for (const name of FEATURE_NAMES) features[name] = stored[name] === true;
  return features;
}

/** `patch` changes the flags it names (validated booleans); the others keep their value. */
export function mergeFeatures(current: ExperimentalFeatures, patch: Record<string, boolean>): ExperimentalFeatures {
  const merged = { ...current };
  for (const name of FEATURE_NAMES) if (typeof patch[name] === 'boolean') merged[name] = patch[name]!;
  return merged;
}

/**
 * Throws Meilisearch's FeatureNotEnabledError unless `feature` is on: "<what> requires enabling the
 * `<feature's words>` experimental feature. See <link>" (code feature_not_enabled).
 */
/** Meilisearch's check_contains_filter: a filter using `CONTAINS` needs the `containsFilter` feature (feature_not_enabled, at the keyword). */
export function requireContainsFeature(meta: MetaDb, filter: unknown): void {
  const keyword = containsOperatorOf(filter);
  if (keyword === null || readFeatures(meta).containsFilter) return;
  throw new SkeinError('feature_not_enabled', positionedMessage('Using `CONTAINS` in a filter requires enabling the `contains filter` experimental feature. See https://github.com/orgs/meilisearch/discussions/763',
    keyword.source, keyword.start, keyword.end, keyword.shownFrom));
}

export function requireFeature(meta: MetaDb, feature: FeatureName, disabledAction: string, words: string, link: string): void {
  if (readFeatures(meta)[feature]) return;
  throw new SkeinError('feature_not_enabled', `${disabledAction} requires enabling the \`${words}\` experimental feature. See ${link}`);
}
