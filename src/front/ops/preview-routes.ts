// GET / and GET /preview/{asset}: the preview page (src/preview/, built into dist/src/preview/), as
// Meilisearch serves its mini-dashboard: in development only. In production, and when the page was not
// built, `/` answers `{"status":"Meilisearch is running"}` as Meilisearch does without its dashboard
// (routes::running) and the asset paths are unknown (an empty 404, as every unknown path).
// The assets are read once, when this module loads, and never change. The page refers to them by
// content hash (`/preview/app.<hash>.js`), so they are cached for a year and the page itself is
// revalidated on every load; it runs under a strict Content-Security-Policy (no inline script or style).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsonReply, type FrontReply } from '../http/http-types.js';
import type { RouteSpec } from '../http/route-spec.js';

const RUNNING = jsonReply(200, { status: 'Meilisearch is running' });
const NOT_FOUND: FrontReply = { status: 404, body: '' };

/** Only what the page needs: its own script and style, API calls to this origin, nothing framed or posted. */
export const PREVIEW_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
  + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface PreviewAssets {
  page: FrontReply;
  /** By hashed file name, e.g. `app.1a2b3c4d5e.js`. */
  files: ReadonlyMap<string, FrontReply>;
}

const SOURCES: ReadonlyArray<{ name: string; contentType: string }> = [
  { name: 'app.js', contentType: 'text/javascript; charset=utf-8' },
  { name: 'preview.css', contentType: 'text/css; charset=utf-8' },
];

/** The built page from `dir`, or null when it is not there (a build without the page). */
export function loadPreviewAssets(dir: URL = new URL('../../preview/', import.meta.url)): PreviewAssets | null {
  let html: string;
  const files = new Map<string, FrontReply>();
  try {
    html = readFileSync(fileURLToPath(new URL('index.html', dir)), 'utf8');
    for (const source of SOURCES) {
      const body = readFileSync(fileURLToPath(new URL(source.name, dir)), 'utf8');
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      const dot = source.name.lastIndexOf('.');
      const hashed = `${source.name.slice(0, dot)}.${hash}${source.name.slice(dot)}`;
      const reference = `/preview/${source.name}`;
      if (!html.includes(`"${reference}"`)) throw new Error(`index.html does not refer to ${reference}`);
      html = html.replace(`"${reference}"`, `"/preview/${hashed}"`);
      files.set(hashed, {
        status: 200, body, contentType: source.contentType,
        headers: [['Cache-Control', 'public, max-age=31536000, immutable'], ['X-Content-Type-Options', 'nosniff']],
      });
    }
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cause;
  }
  const page: FrontReply = {
    status: 200, body: html, contentType: 'text/html; charset=utf-8',
    headers: [
      ['Cache-Control', 'no-cache'],
      ['Content-Security-Policy', PREVIEW_CSP],
      ['X-Content-Type-Options', 'nosniff'],
      ['Referrer-Policy', 'no-referrer'],
    ],
  };
  return { page, files };
}

const ASSETS = loadPreviewAssets();

export const previewRoutes: RouteSpec[] = [
  {
    method: 'GET', path: '/', action: null, body: 'none',
    handle: (_request, context) => context.options.env === 'development' && ASSETS ? ASSETS.page : RUNNING,
  },
  {
    method: 'GET', path: '/preview/{asset}', action: null, body: 'none',
    handle: (request, context) => context.options.env === 'development'
      ? ASSETS?.files.get(request.params.asset!) ?? NOT_FOUND
      : NOT_FOUND,
  },
];
