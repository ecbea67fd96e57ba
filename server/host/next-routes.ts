import { readdirSync } from 'node:fs';
import path from 'node:path';
import { API_PREFIX } from '../http/api-handler';
import { isTrpcPath } from '../http/trpc-handler';

/** The catch-all route file that hands every other /api/v1 path to the API handler. */
const CATCH_ALL_ROUTE = path.join('api', 'v1', '[...path]');
const ROUTE_FILE = /^route\.(tsx?|jsx?)$/;
const PAGE_OR_ROUTE_FILE = /^(page|route)\.(tsx?|jsx?)$/;

/** The URL pattern of one app-router segment (a folder name). */
function segmentPattern(segment: string): string {
  if (/^\[\[\.\.\..+\]\]$/.test(segment)) return '(?:/[^/]+)*';
  if (/^\[\.\.\..+\]$/.test(segment)) return '(?:/[^/]+)+';
  if (/^\[.+\]$/.test(segment)) return '/[^/]+';
  // A route group `(name)` is not part of the URL.
  if (/^\(.+\)$/.test(segment)) return '';
  return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
}

/** The same segment in a route template for logs and metrics: `[id]` is `{id}`, never a value. */
function segmentTemplate(segment: string): string {
  const dynamic = /^\[{1,2}(?:\.\.\.)?(.+?)\]{1,2}$/.exec(segment);
  if (dynamic) return `/{${dynamic[1]}}`;
  return /^\(.+\)$/.test(segment) ? '' : `/${segment}`;
}

/** Folders under `dir` (relative to `appDir`) holding a file named like `file`; private `_folders` are not routed. */
function routeFolders(appDir: string, dir: string, file = ROUTE_FILE): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(appDir, dir), { withFileTypes: true })) {
    if (entry.isFile() && file.test(entry.name)) found.push(dir);
    else if (entry.isDirectory() && !entry.name.startsWith('_')) found.push(...routeFolders(appDir, path.join(dir, entry.name), file));
  }
  return [...new Set(found)];
}

/**
 * The route template of a path Next serves (a page or a route file under `appDir`), for logs and
 * metrics: `/checkout/cs_123` is `/checkout/{id}`. Static folders are tried before dynamic ones
 * and catch-alls, as Next routes; anything else (static assets, unknown paths) has one label each.
 */
export function createRouteTemplates(appDir: string): (requestPath: string) => string {
  const routes = routeFolders(appDir, '', PAGE_OR_ROUTE_FILE)
    .map((folder) => {
      const segments = folder === '' ? [] : folder.split(path.sep);
      return {
        pattern: new RegExp(`^${segments.map(segmentPattern).join('')}/?$`),
        template: segments.map(segmentTemplate).join('') || '/',
        catchAll: segments.some((segment) => segment.startsWith('[...') || segment.startsWith('[[...')),
        dynamic: segments.filter((segment) => segment.startsWith('[')).length,
        depth: segments.length,
      };
    })
    // Catch-alls last, then fewer dynamic segments first, then the longer (more specific) path.
    .sort((a, b) => Number(a.catchAll) - Number(b.catchAll) || a.dynamic - b.dynamic || b.depth - a.depth);
  return (requestPath) => {
    if (requestPath.startsWith('/_next/')) return '/_next/{asset}';
    return routes.find((route) => route.pattern.test(requestPath))?.template ?? '/{unmatched}';
  };
}

/**
 * Whether a request path goes straight to the API handler, read from the route files under
 * `<appDir>/api/v1`, the same files `next dev` routes by: an /api/v1 path that a route file of
 * its own serves (the OpenAPI document, the confirm endpoint with its CORS headers) is Next's;
 * every other one is what the catch-all hands to the handler. Every /api/trpc path is the
 * handler's (its one route file hands them all over).
 */
export function createApiPathMatcher(appDir: string): (requestPath: string) => boolean {
  const ownRoutes = routeFolders(appDir, path.join('api', 'v1'))
    .filter((folder) => folder !== CATCH_ALL_ROUTE)
    .map((folder) => new RegExp(`^${folder.split(path.sep).map(segmentPattern).join('')}$`));
  return (requestPath) => {
    if (isTrpcPath(requestPath)) return true;
    if (requestPath !== API_PREFIX && !requestPath.startsWith(`${API_PREFIX}/`)) return false;
    return !ownRoutes.some((route) => route.test(requestPath));
  };
}
