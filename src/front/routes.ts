// Every HTTP route of the server, in one router.
import { documentsRoutes } from './indexes/documents-routes.js';
import { dumpsRoutes } from './tasks/dumps-routes.js';
import { documentsFilterRoutes } from './indexes/documents-filter.js';
import { documentsEditRoutes } from './indexes/documents-edit-routes.js';
import { experimentalFeaturesRoutes } from './ops/experimental-features-routes.js';
import { facetSearchRoutes } from './search/facet-search-routes.js';
import { indexesRoutes } from './indexes/indexes-routes.js';
import { keysRoutes } from './keys/keys-routes.js';
import { metricsRoutes } from './ops/metrics-routes.js';
import { logsRoutes } from './ops/logs-routes.js';
import { multiSearchRoutes } from './search/multi-search-routes.js';
import { previewRoutes } from './ops/preview-routes.js';
import { Router } from './http/router.js';
import type { RouteSpec } from './http/route-spec.js';
import { searchRoutes } from './search/search-routes.js';
import { settingsRoutes } from './indexes/settings-routes.js';
import { snapshotsRoutes } from './tasks/snapshots-routes.js';
import { statsRoutes } from './indexes/stats-routes.js';
import { swapIndexesRoutes } from './indexes/swap-indexes-routes.js';
import { tasksRoutes } from './tasks/tasks-routes.js';
import { batchesRoutes } from './tasks/batches-routes.js';
import { fieldsRoutes } from './indexes/fields-routes.js';
import { networkRoutes } from '../network/network-routes.js';

/** Every route (the security matrix test walks them all). */
export function allRoutes(): RouteSpec[] {
  return [
    ...statsRoutes,
    ...indexesRoutes,
    ...documentsRoutes,
    ...searchRoutes,
    ...facetSearchRoutes,
    ...documentsFilterRoutes,
    ...documentsEditRoutes,
    ...multiSearchRoutes,
    ...settingsRoutes,
    ...tasksRoutes,
    ...batchesRoutes,
    ...fieldsRoutes,
    ...keysRoutes,
    ...experimentalFeaturesRoutes,
    ...networkRoutes,
    ...previewRoutes,
    ...metricsRoutes,
    ...swapIndexesRoutes,
    ...snapshotsRoutes,
    ...dumpsRoutes,
    ...logsRoutes,
  ];
}

export function buildRouter(): Router<RouteSpec> {
  const router = new Router<RouteSpec>();
  for (const route of allRoutes()) router.add(route.method, route.path, route);
  return router;
}
