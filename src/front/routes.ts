// Every HTTP route of the server, in one router.
import { documentsRoutes } from './documents-routes.js';
import { indexesRoutes } from './indexes-routes.js';
import { Router } from './router.js';
import type { RouteSpec } from './route-spec.js';
import { searchRoutes } from './search-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { statsRoutes } from './stats-routes.js';
import { tasksRoutes } from './tasks-routes.js';

export function buildRouter(): Router<RouteSpec> {
  const router = new Router<RouteSpec>();
  for (const route of [...statsRoutes, ...indexesRoutes, ...documentsRoutes, ...searchRoutes, ...settingsRoutes, ...tasksRoutes]) {
    router.add(route.method, route.path, route);
  }
  return router;
}
