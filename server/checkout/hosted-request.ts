/**
 * What a hosted page's request carries: the signed link (`expires`, `signature` in the query)
 * and, for the form's POST, the form-encoded body. Shared by the checkout and subscription pages.
 */
import type { HostedLinkParams } from './hosted';
import type { SubmitInput } from './hosted-submit';

export type SearchParams = Record<string, string | string[] | undefined>;

/** A query value given once; a repeated or missing parameter reads as absent. */
export function singleParam(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function hostedLinkFromQuery(id: string, query: SearchParams): HostedLinkParams {
  return { id, expires: singleParam(query.expires), signature: singleParam(query.signature) };
}

/** The link from the POST's URL and its body, read once (never logged: it holds card data); an unreadable body reads as empty. */
export async function readHostedSubmission(request: Request, id: string): Promise<SubmitInput> {
  const url = new URL(request.url);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    form = new FormData();
  }
  return { id, expires: url.searchParams.get('expires') ?? undefined, signature: url.searchParams.get('signature') ?? undefined, form };
}
