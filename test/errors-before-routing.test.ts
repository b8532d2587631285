/**
 * Every error has the contract's shape, before routing or after: a URL the router cannot read, an
 * unknown route, and requests Node's HTTP parser refuses before any route sees them (headers too
 * large, a malformed request line, headers or a body too slow). Each answer is `{"detail": "..."}`
 * with the security headers and a random request id. Spoken over raw sockets, as such clients do.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { SECURITY_HEADERS } from '../src/http/protection.js';
import type { Running } from './servers.js';
import { waitFor } from './lifetime.js';
import { serveFixture } from './servers.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Writes `text` on a new connection and reads what comes back until the server closes it. */
async function raw(server: Running, text: string): Promise<RawAnswer> {
  const socket = connect(Number(new URL(server.base).port), '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.once('close', () => (closed = true));
  socket.write(text);
  await waitFor('the server to answer and close the connection', () => closed, 60_000);
  const [head = '', body = ''] = received.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function assertContract(answer: RawAnswer, status: number, what: string): void {
  assert.equal(answer.status, status, `${what}: ${answer.status}`);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/, what);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['detail'], what);
  assert.equal(typeof body['detail'], 'string', what);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(answer.headers[name], value, `${what}: ${name}`);
  assert.match(answer.headers['x-request-id'] ?? '', UUID_V4, what);
}

describe('errors before and after routing are in the contract shape', () => {
  let server!: Running;
  serveFixture('sqlite', { REQUEST_TIMEOUT_SECONDS: '1' }, (s) => (server = s));

  test('a URL the router cannot read (GET /%%%): 400', async () => {
    assertContract(await raw(server, 'GET /%%% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, '/%%%');
    assertContract(await raw(server, 'GET /api/v1/aladi2/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, 'bad escape');
  });

  test('an unknown route: 404', async () => {
    assertContract(await raw(server, 'GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404, '/nowhere');
    assertContract(await raw(server, 'POST /api/v1/nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'), 404, 'POST');
  });

  test('a 20 KB header: 431', async () => {
    const answer = await raw(server, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertContract(answer, 431, 'huge header');
    assert.deepEqual(JSON.parse(answer.body), { detail: 'Request Header Fields Too Large' });
  });

  test('a malformed request line, a bad header, a bad chunk: 400', async () => {
    for (const text of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      'GET /health HTTP/1.1\r\nHost x\r\n\r\n',
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ]) {
      assertContract(await raw(server, text), 400, JSON.stringify(text));
    }
  });

  test('headers or a body that never finish: 408', async () => {
    assertContract(await raw(server, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: '), 408, 'slow headers');
    const slowBody = 'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user';
    assertContract(await raw(server, slowBody), 408, 'slow body');
  });

  test('request ids are random UUIDs, each different', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const response = await server.get('/health');
      await response.arrayBuffer();
      const id = response.headers.get('x-request-id') ?? '';
      assert.match(id, UUID_V4);
      ids.add(id);
    }
    assert.equal(ids.size, 20);
  });

  test('/docs keeps no token in persistent storage: Swagger UI is told not to persist authorization', async () => {
    const response = await server.get('/docs/static/swagger-initializer.js');
    assert.equal(response.status, 200);
    const script = await response.text();
    const config = /const config = (\{.*\})/.exec(script)?.[1];
    assert.ok(config, 'the initializer names its configuration');
    assert.equal((JSON.parse(config) as { persistAuthorization?: boolean }).persistAuthorization, false);
  });
});
