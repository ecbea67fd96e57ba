import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { dropForbiddenScripts, scriptHashesOnly, withoutForbiddenScripts } from '@/server/host/page-scripts';

/** The compression middleware Next itself runs in front of its pages (its router server applies it); it ships no types. */
const compression = createRequire(import.meta.url)('next/dist/compiled/compression') as () => (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const OWN_SCRIPT = 'document.documentElement.dataset.ready="1"';
const OWN_HASH = createHash('sha256').update(OWN_SCRIPT).digest('base64');

/** What Next writes into a page: runtime chunks, a preload hint, inline RSC payload, a noModule polyfill. */
const NEXT_PAGE = [
  '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>',
  '<link rel="stylesheet" href="/_next/static/chunks/a.css" data-precedence="next"/>',
  '<link rel="preload" as="script" fetchPriority="low" href="/_next/static/chunks/b.js"/>',
  '<link rel="modulepreload" href="/_next/static/chunks/m.js"/>',
  '<link rel="preload" as="style" href="/_next/static/chunks/a.css"/>',
  '<script src="/_next/static/chunks/c.js" async=""></script><title>Pay €25.00</title></head>',
  `<body><main><p>Card &lt;script&gt; text stays</p><script>${OWN_SCRIPT}</script></main>`,
  '<script src="/_next/static/chunks/p.js" noModule=""></script>',
  '<script id="_R_">self.__next_r="x"</script><script>(self.__next_f=self.__next_f||[]).push([0])</script>',
  '<SCRIPT>self.__next_f.push([1,"\\u003cdiv\\u003e"])</SCRIPT ></body></html>',
].join('');

const STRIPPED = [
  '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>',
  '<link rel="stylesheet" href="/_next/static/chunks/a.css" data-precedence="next"/>',
  '<link rel="preload" as="style" href="/_next/static/chunks/a.css"/>',
  '<title>Pay €25.00</title></head>',
  `<body><main><p>Card &lt;script&gt; text stays</p><script>${OWN_SCRIPT}</script></main>`,
  '</body></html>',
].join('');

describe('withoutForbiddenScripts', () => {
  it('a policy of only hashes keeps exactly the inline scripts it lists; every external script, other inline script and script preload goes', () => {
    expect(withoutForbiddenScripts(NEXT_PAGE, [{ algorithm: 'sha256', digest: OWN_HASH }])).toBe(STRIPPED);
  });

  it("script-src 'none' takes out every script, the page's own too", () => {
    expect(withoutForbiddenScripts(NEXT_PAGE, [])).toBe(STRIPPED.replace(`<script>${OWN_SCRIPT}</script>`, ''));
  });

  it("reads script-src: 'none' and hashes are a list to apply; an origin, 'self', a nonce or 'unsafe-inline' means scripts are allowed and nothing is rewritten", () => {
    expect(scriptHashesOnly("default-src 'self'; script-src 'none'; style-src 'self'")).toEqual([]);
    expect(scriptHashesOnly(`default-src 'none'; SCRIPT-SRC 'sha256-${OWN_HASH}' 'sha384-abc='`)).toEqual([
      { algorithm: 'sha256', digest: OWN_HASH },
      { algorithm: 'sha384', digest: 'abc=' },
    ]);
    for (const policy of ["script-src 'self'", "script-src 'nonce-abc' 'strict-dynamic'", "script-src 'unsafe-inline'", `script-src 'sha256-${OWN_HASH}' https://cdn.example`, "default-src 'self'"]) {
      expect(scriptHashesOnly(policy)).toBeUndefined();
    }
  });
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering like Next does (headers set, then the body in chunks), behind dropForbiddenScripts and optionally Next's compression. */
async function serve(answer: (res: ServerResponse) => void, options: { compress?: boolean } = {}): Promise<string> {
  const compress = compression();
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    dropForbiddenScripts(res);
    if (options.compress) compress(req, res, () => answer(res));
    else answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The raw answer: status, headers and body bytes as sent (not decompressed). */
function get(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(`${origin}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

/** Streams NEXT_PAGE in three writes after flushing the headers, as Next's dynamic rendering does. */
function streamedPage(policy: string | undefined, type = 'text/html; charset=utf-8') {
  return (res: ServerResponse) => {
    res.setHeader('content-type', type);
    if (policy) res.setHeader('content-security-policy', policy);
    res.flushHeaders();
    const third = Math.ceil(NEXT_PAGE.length / 3);
    res.write(NEXT_PAGE.slice(0, third));
    res.write(Buffer.from(NEXT_PAGE.slice(third, 2 * third)));
    res.end(NEXT_PAGE.slice(2 * third));
  };
}

describe('dropForbiddenScripts on a response', () => {
  const policy = `default-src 'self'; script-src 'sha256-${OWN_HASH}'`;

  it('a streamed page under a policy of hashes arrives without the forbidden scripts', async () => {
    const origin = await serve(streamedPage(policy));
    const answer = await get(origin, '/');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(STRIPPED);
  });

  it('behind the gzip of Next’s compression middleware: decompressed, rewritten, compressed again', async () => {
    const origin = await serve(streamedPage(policy), { compress: true });
    const answer = await get(origin, '/', { 'accept-encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(answer.body).toString()).toBe(STRIPPED);
  });

  it('a page sent whole with its Content-Length gets the length of what is sent', async () => {
    const origin = await serve((res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('content-security-policy', "script-src 'none'");
      res.setHeader('content-length', String(Buffer.byteLength(NEXT_PAGE)));
      res.end(NEXT_PAGE);
    });
    const answer = await get(origin, '/');
    const expected = STRIPPED.replace(`<script>${OWN_SCRIPT}</script>`, '');
    expect(answer.body.toString()).toBe(expected);
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
    // HEAD keeps the length a GET would have had before rewriting: no body is rewritten.
    const head = await get(origin, '/', {}, 'HEAD');
    expect(head.body.byteLength).toBe(0);
  });

  it('pages that allow scripts, pages without a policy and answers that are not HTML pass unchanged', async () => {
    for (const answer of [streamedPage("script-src 'self'"), streamedPage(undefined), streamedPage("script-src 'none'", 'application/javascript')]) {
      const origin = await serve(answer);
      expect((await get(origin, '/')).body.toString()).toBe(NEXT_PAGE);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });
});
