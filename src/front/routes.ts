// Every HTTP route of the server, in one router.
import { documentsRoutes } from './documents-routes.js';
import { dumpsRoutes } from './dumps-routes.js';
import { documentsFilterRoutes } from './documents-filter.js';
import { documentsEditRoutes } from './documents-edit-routes.js';
import { experimentalFeaturesRoutes } from './experimental-features-routes.js';
import { facetSearchRoutes } from './facet-search-routes.js';
import { indexesRoutes } from './indexes-routes.js';
import { keysRoutes } from './keys-routes.js';
import { metricsRoutes } from './metrics-routes.js';
import { logsRoutes } from './logs-routes.js';
import { multiSearchRoutes } from './multi-search-routes.js';
import { previewRoutes } from './preview-routes.js';
import { Router } from './router.js';
import type { RouteSpec } from './route-spec.js';
import { searchRoutes } from './search-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { snapshotsRoutes } from './snapshots-routes.js';
import { statsRoutes } from './stats-routes.js';
import { swapIndexesRoutes } from './swap-indexes-routes.js';
import { tasksRoutes } from './tasks-routes.js';
import { batchesRoutes } from './batches-routes.js';
import { fieldsRoutes } from './fields-routes.js';
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
