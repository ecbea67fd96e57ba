import { ApiError } from '../errors';

/**
 * REST input lays the path `id` over the body's fields (server/http/api-handler.ts), so an `id`
 * in the body would vanish silently; a field is never ignored.
 */
export function refuseBodyId(body: unknown, kind: string): void {
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'id')) {
    throw new ApiError('parameter_invalid', `\`id\` cannot be changed: the ${kind} is named by the id in the URL path.`, { param: 'id' });
  }
}
