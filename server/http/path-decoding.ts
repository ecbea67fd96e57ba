import { ApiError } from '../errors';
import { invalidLinkResponse } from '../kit/hosted-page/invalid-link';

/**
 * Whether every percent-escape of a request path decodes. Next decodes route parameters and fails
 * on one that does not (`%ZZ`), so such a path is answered before it reaches Next: nothing can be
 * at an address that cannot be read.
 */
export function pathDecodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

export const undecodablePathError = () => new ApiError('resource_missing', 'Unrecognized request URL: its path is not valid percent-encoding.');

const PAGE_NOT_FOUND = {
  site: 'Payments',
  title: 'Page not found',
  paragraphs: ['Nothing is at this address. The link may have been copied incompletely or changed.'],
};

/** The 404 of a path that does not decode: the API's error envelope under /api/v1, a page elsewhere. */
export function undecodablePathResponse(path: string, apiPrefix: string): Response {
  if (path === apiPrefix || path.startsWith(`${apiPrefix}/`)) {
    return Response.json(undecodablePathError().toBody(), { status: 404, headers: { 'cache-control': 'no-store' } });
  }
  return invalidLinkResponse(PAGE_NOT_FOUND);
}
