import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';

/**
 * Pages that take card numbers, and the dashboard, run no framework code: their CSP allows no
 * script, or exactly the hashes of the page's own small scripts. Next's App Router has no switch
 * to render a page without its client runtime, so it writes its `<script>` tags (the runtime's
 * chunks, the inline RSC payload, preload hints) into those pages anyway, and the browser then
 * reports every one it refuses as an error in the console. So the front takes out of an HTML
 * answer every script its own policy forbids, before it leaves the process: what the browser
 * would refuse to run is never sent. Pages whose policy allows scripts by origin or nonce (or
 * that have no policy) pass unchanged, streamed as Next writes them.
 *
 * Under `next dev` there is no front, and the console shows Next's refused scripts.
 */

/** The hashes a `script-src` of only hashes (or 'none') allows; undefined when it allows anything else (an origin, a nonce, 'unsafe-inline'…) or is absent. */
export function scriptHashesOnly(policy: string): { algorithm: string; digest: string }[] | undefined {
  const directive = policy
    .split(';')
    .map((part) => part.trim().split(/\s+/))
    .find(([name]) => name?.toLowerCase() === 'script-src');
  if (!directive) return undefined;
  const hashes: { algorithm: string; digest: string }[] = [];
  for (const source of directive.slice(1)) {
    if (source.toLowerCase() === "'none'") continue;
    const hash = /^'(sha256|sha384|sha512)-([A-Za-z0-9+/=]+)'$/i.exec(source);
    if (!hash) return undefined;
    hashes.push({ algorithm: hash[1]!.toLowerCase(), digest: hash[2]! });
  }
  return hashes;
}

/**
 * React escapes `<` and `>` in text and attribute values, and Next escapes `<` inside its inline
 * payload, so in the pages it renders a script element runs from `<script` to the first
 * `</script>`: exactly where the browser's tokenizer ends it too.
 */
const SCRIPT_ELEMENT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
/** Preloads of scripts are fetched under script-src as well (and refused alike). */
const SCRIPT_PRELOAD = /<link\b(?=[^>]*\brel=["']?(?:modulepreload|preload)\b)(?=[^>]*\b(?:rel=["']?modulepreload|as=["']?script)\b)[^>]*>/gi;

/** `html` without the scripts (and script preloads) a policy of only hashes forbids: an external script always, an inline one unless its hash is listed. */
export function withoutForbiddenScripts(html: string, allowed: { algorithm: string; digest: string }[]): string {
  const allows = (content: string) => allowed.some(({ algorithm, digest }) => createHash(algorithm).update(content, 'utf8').digest('base64') === digest);
  return html.replace(SCRIPT_ELEMENT, (element, attributes: string, content: string) => (!/\bsrc\s*=/i.test(attributes) && allows(content) ? element : '')).replace(SCRIPT_PRELOAD, '');
}

const CODECS: Record<string, { decode: (body: Buffer) => Buffer; encode: (body: Buffer) => Buffer }> = {
  gzip: { decode: gunzipSync, encode: gzipSync },
  deflate: { decode: inflateSync, encode: deflateSync },
};

type Callback = (error?: Error | null) => void;

/**
 * Makes `res` send its HTML body without the scripts its CSP forbids (withoutForbiddenScripts).
 * Whether it applies is decided on the first write, once the handler has set its headers; only
 * then is the body held back, to be rewritten as a whole (decompressed and compressed again when
 * Next compressed it) at the end.
 */
export function dropForbiddenScripts(res: ServerResponse): void {
  const write = res.write.bind(res) as (chunk: unknown, encoding?: BufferEncoding, callback?: Callback) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, encoding?: BufferEncoding, callback?: Callback) => ServerResponse;
  let decided = false;
  let held: Buffer[] | undefined;
  let allowed: { algorithm: string; digest: string }[] = [];

  const decide = () => {
    if (decided) return;
    decided = true;
    const type = String(res.getHeader('content-type') ?? '');
    const policy = res.getHeader('content-security-policy');
    const encoding = String(res.getHeader('content-encoding') ?? 'identity').toLowerCase();
    if (!type.startsWith('text/html') || typeof policy !== 'string' || !(encoding === 'identity' || encoding in CODECS)) return;
    const hashes = scriptHashesOnly(policy);
    if (!hashes) return;
    allowed = hashes;
    held = [];
  };
  const toBuffer = (chunk: unknown, encoding?: BufferEncoding) => (Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk as Uint8Array));

  res.write = ((chunk: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => {
    decide();
    if (!held) return write(chunk, encoding as BufferEncoding, callback);
    if (typeof encoding === 'function') [callback, encoding] = [encoding, undefined];
    held.push(toBuffer(chunk, encoding));
    callback?.();
    return true;
  }) as typeof res.write;

  res.end = ((chunk?: unknown, encoding?: BufferEncoding | Callback, callback?: Callback) => {
    if (typeof chunk === 'function') [callback, chunk] = [chunk as Callback, undefined];
    if (typeof encoding === 'function') [callback, encoding] = [encoding, undefined];
    decide();
    if (!held) return end(chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null) held.push(toBuffer(chunk, encoding));
    const body = Buffer.concat(held);
    held = undefined;
    // A HEAD answer has no body to rewrite, and keeps the length its GET would have.
    if (body.byteLength === 0) return end(undefined, undefined, callback);
    const codec = CODECS[String(res.getHeader('content-encoding') ?? '').toLowerCase()];
    const html = (codec ? codec.decode(body) : body).toString('utf8');
    const rewritten = Buffer.from(withoutForbiddenScripts(html, allowed), 'utf8');
    const out = codec ? codec.encode(rewritten) : rewritten;
    // Headers already sent (streamed) went without a length; otherwise the length is the new one.
    if (!res.headersSent) res.setHeader('content-length', String(out.byteLength));
    return end(out, undefined, callback);
  }) as typeof res.end;
}
