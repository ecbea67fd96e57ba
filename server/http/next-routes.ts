import { readdirSync } from 'node:fs';
import path from 'node:path';
import { API_PREFIX } from './api-handler';
import { isTrpcPath } from './trpc-handler';

/** The catch-all route file that hands every other /api/v1 path to the API handler. */
const CATCH_ALL_ROUTE = path.join('api', 'v1', '[...path]');
const ROUTE_FILE = /^route\.(tsx?|jsx?)$/;

/** The URL pattern of one app-router segment (a folder name). */
function segmentPattern(segment: string): string {
  if (/^\[\[\.\.\..+\]\]$/.test(segment)) return '(?:/[^/]+)*';
  if (/^\[\.\.\..+\]$/.test(segment)) return '(?:/[^/]+)+';
  if (/^\[.+\]$/.test(segment)) return '/[^/]+';
  // A route group `(name)` is not part of the URL.
  if (/^\(.+\)$/.test(segment)) return '';
  return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
}

/** Folders under `dir` (relative to `appDir`) holding a route file; private `_folders` are not routed. */
function routeFolders(appDir: string, dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(appDir, dir), { withFileTypes: true })) {
    if (entry.isFile() && ROUTE_FILE.test(entry.name)) found.push(dir);
    else if (entry.isDirectory() && !entry.name.startsWith('_')) found.push(...routeFolders(appDir, path.join(dir, entry.name)));
  }
  return found;
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
