// GET /metrics: Prometheus text (metrics.ts), when `--experimental-enable-metrics` or the `metrics`
// experimental feature is on. Key action metrics.get, a global action: as Meilisearch, the key must
// reach every index.
import { invalidApiKey } from '../../auth/index.js';
import { SkeinError } from '../../errors/index.js';
import { readFeatures } from '../../storage/experimental-features.js';
import { METRICS_CONTENT_TYPE } from './metrics.js';
import type { FrontContext, RouteSpec } from '../http/route-spec.js';

export const metricsRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/metrics', action: 'metrics.get', body: 'none',
    handle: async (request, context) => {
      if (!metricsEnabled(context)) {
        throw new SkeinError('feature_not_enabled',
          'Getting metrics requires enabling the `metrics` experimental feature. See https://github.com/meilisearch/product/discussions/625');
      }
      if (request.access.indexes !== null) {
        const error = invalidApiKey();
        throw new SkeinError(error.code, `${error.message} The API key for the \`/metrics\` route must allow access to all indexes.`);
      }
      return { status: 200, body: await context.metrics.scrape(), contentType: METRICS_CONTENT_TYPE };
    },
  },
];

/** The start option turns the feature on for the process' life, as Meilisearch's instance features do. */
export function metricsEnabled(context: Pick<FrontContext, 'options' | 'storage'>): boolean {
  return context.options.enableMetrics || readFeatures(context.storage.meta).metrics;
}
