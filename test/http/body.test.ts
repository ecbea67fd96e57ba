import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readIncomingText } from '@/server/http/body';

/** The server's view of one request, handed to the test before its body is read. */
let server: ReturnType<typeof createServer> | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function requestArrived(): Promise<{ req: Promise<IncomingMessage>; port: number }> {
  let arrived!: (req: IncomingMessage) => void;
  const req = new Promise<IncomingMessage>((resolve) => (arrived = resolve));
  server = createServer((incoming) => arrived(incoming));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { req, port: (server.address() as AddressInfo).port };
}

describe('readIncomingText', () => {
  it('a client gone before the body is read (its request waited its turn) is refused at once, not waited for', async () => {
    const { req, port } = await requestArrived();
    const socket = connect(port, '127.0.0.1');
    socket.write('POST /api/v1/checkout/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"price');
    const incoming = await req;
    socket.destroy();
    await new Promise<void>((resolve) => incoming.once('close', () => resolve()));
    await expect(readIncomingText(incoming, new Headers({ 'content-type': 'application/json' }))).rejects.toThrow('closed the connection before the body was read');
  });

  it('a client gone mid-body while it is read is refused', async () => {
    const { req, port } = await requestArrived();
    const socket = connect(port, '127.0.0.1');
    socket.write('POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"price');
    const reading = readIncomingText(await req, new Headers({ 'content-type': 'application/json' }));
    socket.destroy();
    await expect(reading).rejects.toThrow();
  });

  it('a whole body is read', async () => {
    const { req, port } = await requestArrived();
    const socket = connect(port, '127.0.0.1');
    socket.write('POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"price_id":"a"}');
    expect(await readIncomingText(await req, new Headers({ 'content-type': 'application/json' }))).toBe('{"price_id":"a"}');
    socket.destroy();
  });
});
