import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors';

/** JSON bodies over 64 KiB are refused before they are parsed. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

const tooLarge = () => new ApiError('payload_too_large', `The request body exceeds the limit of ${MAX_JSON_BODY_BYTES} bytes.`);

export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

/** A request as the body reader sees it: from a fetch `Request` or straight from node:http. */
export interface BodySource {
  method: string;
  headers: Headers;
  /** The body as text, refused with `payload_too_large` once it passes MAX_JSON_BODY_BYTES. */
  readText(): Promise<string>;
}

function assertDeclaredSize(headers: Headers): void {
  if (Number(headers.get('content-length') ?? '0') > MAX_JSON_BODY_BYTES) throw tooLarge();
}

/** The capped body of a fetch `Request` (Next's route handler, the test server). */
export async function readRequestText(request: Request): Promise<string> {
  assertDeclaredSize(request.headers);
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
 * The capped body of a node:http request (scripts/serve.ts). Past the cap it stops collecting
 * and lets the rest drain, so that the 413 answer still reaches the client.
 */
export function readIncomingText(req: IncomingMessage, headers: Headers): Promise<string> {
  assertDeclaredSize(headers);
  return new Promise((resolve, reject) => {
    // Gone already (while the request waited its turn): its 'close' was before these listeners.
    if (req.destroyed) return reject(new Error('The client closed the connection before the body was read.'));
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => req.off('data', onData).off('end', onEnd).off('error', reject).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= MAX_JSON_BODY_BYTES) return void chunks.push(chunk);
      stop();
      req.resume();
      reject(tooLarge());
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    // A client that goes away mid-body: nothing will answer it, but the request must not hang.
    const onClose = () => reject(new Error('The client closed the connection before the body ended.'));
    req.on('data', onData).once('end', onEnd).once('error', reject).once('close', onClose);
  });
}

/**
 * Reads the JSON object body of a request. `undefined` when a body-less method sent nothing.
 * Methods that carry a body must say `application/json` (415 otherwise).
 */
export async function readJsonBody(source: BodySource): Promise<Record<string, unknown> | undefined> {
  const carriesBody = source.method === 'POST' || source.method === 'PATCH' || source.method === 'PUT';
  const contentType = source.headers.get('content-type');
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
  const text = await source.readText();
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
