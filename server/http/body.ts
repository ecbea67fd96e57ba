import { ApiError } from '../errors';

/** CONTRACT 3: JSON bodies over 64 KiB are refused before they are parsed. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

const tooLarge = () =>
  new ApiError('payload_too_large', `The request body exceeds the limit of ${MAX_JSON_BODY_BYTES} bytes.`);

export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

async function readCapped(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_JSON_BODY_BYTES) throw tooLarge();
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_JSON_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads the JSON object body of a request. `undefined` when a body-less method sent nothing.
 * Methods that carry a body must say `application/json` (spec 1: 415 otherwise).
 */
export async function readJsonBody(request: Request): Promise<Record<string, unknown> | undefined> {
  const carriesBody = request.method === 'POST' || request.method === 'PATCH' || request.method === 'PUT';
  const contentType = request.headers.get('content-type');
  if (!carriesBody && contentType === null) return undefined;
  if (!isJsonContentType(contentType)) {
    if (!carriesBody) return undefined;
    throw new ApiError(
      'unsupported_media_type',
      contentType === null
        ? 'Missing Content-Type header: send JSON with `Content-Type: application/json`.'
        : `Unsupported Content-Type "${contentType}": send JSON with \`Content-Type: application/json\`.`,
    );
  }
  const text = await readCapped(request);
  if (text.trim() === '') return carriesBody ? {} : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError('parameter_invalid', 'The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
