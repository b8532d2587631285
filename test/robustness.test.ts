/**
 * Proof that load and faults do not bring the service down: a soak against a server process (no
 * errors, memory that levels off), the SQLite file lost and restored while serving (503, then back
 * without a restart, never a crash), the per-client rate limit, load shedding under a saturated event
 * loop, timeouts for slow clients, security headers with /docs still working, and logs that never
 * show a credential.
 */
import assert from 'node:assert/strict';
import { copyFileSync, renameSync, truncateSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import autocannon from 'autocannon';
import type { TestContext } from 'node:test';
import { buildApp } from '../src/app.js';
import { PRESSURE_GRACE_MS, PRESSURE_SAMPLE_MS } from '../src/http/protection.js';
import { recordSets } from '../src/record-sets/index.js';
import type { Running } from './servers.js';
import { defer, tempDir, waitFor } from './lifetime.js';
import { writeFixtureDatabase } from './databases.js';
import { captureLog, serveWithLog, startServer } from './servers.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, login, tokenFor } from './clients.js';
import type { LogLine } from './process.js';
import { runService } from './process.js';

const tmp = tempDir('tariff-robustness-');
let fixture: string;

before(async () => {
  fixture = join(tmp.dir, 'fixture.sqlite');
  await writeFixtureDatabase(fixture);
});

after(() => tmp.remove());

/** A copy of the fixture of the test's own, so a test may break it. */
function fixtureCopy(name: string): string {
  const path = join(tmp.dir, name);
  copyFileSync(fixture, path);
  return path;
}

/** The answer, its body read (an unread body would hold the connection). */
async function read(response: Response | Promise<Response>): Promise<Response> {
  const answer = await response;
  await answer.arrayBuffer();
  return answer;
}

describe('soak', () => {
  /** The server's resident memory, as it reports it to Prometheus. */
  async function rss(base: string): Promise<number> {
    const text = await (await fetch(`${base}/metrics`)).text();
    return Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1] ?? NaN);
  }

  /** The heap that survived each full collection, in MB, from V8's --trace-gc lines since `from`. */
  const retainedAfterCollections = (lines: readonly LogLine[], from: number): number[] =>
    lines
      .slice(from)
      .map((l) => /Mark-Compact[^>]*-> ([\d.]+) /.exec(l.msg ?? '')?.[1])
      .filter((mb): mb is string => mb !== undefined)
      .map(Number);

  test('many clients for a bounded time: no error, and memory in the second half no higher than in the first', async (t) => {
    const path = fixtureCopy('soak.sqlite');
    await addUser(testConfig({ DATABASE_URL: `sqlite:${path}` }), TEST_USER, TEST_PASSWORD);
    // A small answer cache, so that it fills and evicts all along; the limiter on, never reached. A
    // small old space makes V8 collect fully several times a second: what survives each collection is
    // what a leak would raise, and a leak would end in an out-of-memory crash, that is in errors.
    const env = { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'warn', RESPONSE_CACHE_ENTRIES: '50', RATE_LIMIT_MAX: '1000000000' };
    const service = await runService(t, env, ['--trace-gc', '--max-old-space-size=64']);
    const headers = { authorization: `Bearer ${await tokenFor(service.base)}` };
    const requests = [
      ...recordSets.flatMap((rs) => Array.from({ length: 8 }, (_, skip) => ({ path: `/api/v1/${rs.path}/?skip=${skip}&limit=5`, headers }))),
      { path: '/api/v1/tlcs/?fraccion=0101', headers },
      { path: '/api/v1/auth/me', headers },
      { path: '/health' },
    ];
    const load = async (seconds: number): Promise<void> => {
      const result: autocannon.Result = await autocannon({ url: service.base, connections: 32, duration: seconds, requests });
      assert.equal(result.errors + result.timeouts, 0, 'no connection error or timeout');
      assert.equal(result.non2xx, 0, 'every answer a 2xx');
      // How many a second depends on the machine; that some were answered does not.
      assert.ok(result.requests.total > 0, 'load was applied');
    };
    // Caches and the heap reach their working size first; only then is memory compared.
    await load(1);
    const halves: { retained: number[]; rss: number[] }[] = [];
    for (let i = 0; i < 2; i++) {
      const from = service.lines.length;
      const half = { retained: [] as number[], rss: [] as number[] };
      const samples: Promise<void>[] = [];
      const sampling = setInterval(() => {
        samples.push(rss(service.base).then((bytes) => void half.rss.push(bytes / 1e6)));
      }, 250);
      // 2.5 s of load, longer on a machine so busy that V8 had no time to collect fully in them.
      for (let round = 0; round < 8; round++) {
        await load(2.5);
        if (retainedAfterCollections(service.lines, from).length > 0) break;
      }
      clearInterval(sampling);
      await Promise.all(samples);
      half.retained = retainedAfterCollections(service.lines, from);
      halves.push(half);
    }
    const [first, second] = halves as [{ retained: number[]; rss: number[] }, { retained: number[]; rss: number[] }];
    assert.ok(first.retained.length > 0 && second.retained.length > 0, 'full collections in both halves');
    const most = (values: number[]): number => Math.round(Math.max(...values));
    t.diagnostic(
      `heap after full collections at most ${most(first.retained)} MB then ${most(second.retained)} MB ` +
        `(${first.retained.length} and ${second.retained.length} collections); RSS at most ${most(first.rss)} MB then ${most(second.rss)} MB`,
    );
    assert.ok(most(second.retained) <= most(first.retained) * 1.2 + 4, `heap after collections ${most(first.retained)} → ${most(second.retained)} MB`);
    assert.ok(most(second.rss) <= most(first.rss) * 1.25 + 32, `RSS ${most(first.rss)} → ${most(second.rss)} MB`);
  });
});

describe('the SQLite file lost and restored while serving', () => {
  let server: Running | undefined;
  after(() => server?.close());

  const status = async (path: string, auth = true): Promise<number> => {
    const response = auth ? (await server!.json(path)).response : await server!.get(path);
    await response.arrayBuffer().catch(() => undefined);
    return response.status;
  };

  test('moved away: 503 everywhere, cached answers included, and /health says the database is down; moved back: served again', async () => {
    const path = fixtureCopy('lost.sqlite');
    server = await startServer({ DATABASE_URL: `sqlite:${path}` });
    assert.equal(await status('/api/v1/aladi2/5'), 200);
    renameSync(path, `${path}.away`);
    await waitFor('503 on a cached lookup', async () => (await status('/api/v1/aladi2/5')) === 503, 6000);
    const search = await server.json('/api/v1/cupos/?fraccion=0101');
    assert.equal(search.status, 503);
    assert.deepEqual(search.body, { detail: 'Service Unavailable' });
    assert.ok(Number(search.response.headers.get('retry-after')) > 0);
    const health = await server.get('/health');
    assert.equal(health.status, 503);
    assert.deepEqual(await health.json(), { status: 'unhealthy', database: 'unavailable', dataset: null });

    renameSync(`${path}.away`, path);
    await waitFor('the lookup served again', async () => (await status('/api/v1/aladi2/5')) === 200, 6000);
    assert.equal(await status('/health', false), 200);
    assert.equal(await status('/api/v1/cupos/?fraccion=0101'), 200);
  });

  test('emptied in place and copied back (cp over the file): 503, no crash, then served again without a restart', async (t) => {
    const path = fixtureCopy('in-place.sqlite');
    const { base, log } = await serveWithLog(t, { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'error' });
    const headers = { authorization: `Bearer ${await tokenFor(base)}` };
    const status = async (path: string): Promise<number> => (await read(fetch(base + path, { headers }))).status;
    const backup = join(tmp.dir, 'backup.sqlite');
    copyFileSync(path, backup);
    assert.equal(await status('/health'), 200);
    truncateSync(path, 0);
    assert.equal(await status('/health'), 503);
    assert.equal(await status('/api/v1/noms/?fraccion=0101'), 503);
    // The service's next look at the file (every 2 s) tries it anew, fails, and says so.
    await waitFor('a look at the emptied file', () => log.text().includes('the new data cannot be served'));
    assert.equal(await status('/health'), 503, 'still down while the file is empty, and still running');
    // The connection that read the empty file is replaced by a new one on the file put back.
    copyFileSync(backup, path);
    await waitFor('the file served again', async () => (await status('/health')) === 200, 6000);
    assert.equal(await status('/api/v1/noms/?fraccion=0101'), 200);
  });
});

describe('rate limit', () => {
  let server: Running | undefined;
  after(() => server?.close());

  test('per user with a valid token, per address otherwise: RateLimit headers, then 429 with Retry-After; probes never limited', async () => {
    server = await startServer({ DATABASE_URL: `sqlite:${fixtureCopy('limited.sqlite')}`, RATE_LIMIT_MAX: '3' });
    await addUser(server.config, 'other', 'another password');
    // The logins above count for this address: 2 of its 3.
    const otherToken = await tokenFor(server.base, 'other', 'another password');

    for (const remaining of ['2', '1', '0']) {
      const { status, response }: { status: number; response: Response } = await server.json('/api/v1/aladi2/5');
      assert.equal(status, 200);
      assert.equal(response.headers.get('ratelimit-limit'), '3');
      assert.equal(response.headers.get('ratelimit-remaining'), remaining);
      assert.ok(Number(response.headers.get('ratelimit-reset')) > 0);
    }
    const refused = await server.json('/api/v1/aladi2/5');
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { detail: 'Too Many Requests' });
    assert.ok(Number(refused.response.headers.get('retry-after')) > 0);
    assert.equal(refused.response.headers.get('ratelimit-remaining'), '0');

    const other = await read(server.get('/api/v1/aladi2/5', { authorization: `Bearer ${otherToken}` }));
    assert.equal(other.status, 200, 'another user has a budget of its own');
    assert.equal((await read(server.get('/'))).status, 200, 'the address had one request left');
    const badToken = await read(server.get('/api/v1/aladi2/5', { authorization: 'Bearer not-a-token' }));
    assert.equal(badToken.status, 429, 'a bad token is counted by address, before it is even checked');

    for (let i = 0; i < 5; i++) {
      const health: Response = await read(server.get('/health'));
      assert.equal(health.status, 200);
      assert.equal(health.headers.get('ratelimit-limit'), null);
    }
  });

  test('after Retry-After the client is served again; RATE_LIMIT_MAX=0 turns the limit off', async () => {
    await server?.close();
    // The service's clock, moved by the test past the Retry-After instead of waiting it out.
    let at = Date.now();
    server = await startServer(
      { DATABASE_URL: `sqlite:${fixture}`, RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_SECONDS: '1' },
      { user: false, app: { now: () => new Date(at) } },
    );
    // startServer's login counted in the address's first window; a window later, two requests in one
    // window (the clock stands still until the test moves it): the second is refused.
    at += 1000;
    assert.equal((await server.get('/')).status, 200);
    const refused = await server.get('/');
    assert.equal(refused.status, 429, 'a second request within the window is refused with 429');
    const wait = Number(refused.headers.get('retry-after'));
    assert.ok(wait > 0);
    // Still refused until the window ends; served again once the Retry-After has passed.
    at += wait * 1000 - 100;
    assert.equal((await server.get('/')).status, 429, 'refused before the Retry-After has passed');
    at += 100;
    assert.equal((await server.get('/')).status, 200);
    await server.close();

    server = await startServer({ DATABASE_URL: `sqlite:${fixture}`, RATE_LIMIT_MAX: '0' }, { user: false });
    const statuses = await Promise.all(Array.from({ length: 20 }, () => server!.get('/').then((r) => r.status)));
    assert.ok(statuses.every((s) => s === 200));
  });
});

/** An app of the test's own, closed when the test ends: the service's configuration plus whatever routes the test adds. */
async function testApp(t: TestContext, env: Record<string, string>, extend: (app: Awaited<ReturnType<typeof buildApp>>) => void = () => undefined) {
  const app = await buildApp(testConfig({ DATABASE_URL: `sqlite:${fixture}`, ...env }));
  defer(t, () => app.close());
  extend(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  return { app, base: `http://127.0.0.1:${port}` };
}

describe('load shedding (under-pressure)', () => {
  test('configured by MAX_EVENT_LOOP_DELAY_MS, and off with 0', async (t) => {
    const on = await testApp(t, { MAX_EVENT_LOOP_DELAY_MS: '1000' });
    assert.equal(typeof on.app.isUnderPressure, 'function');
    const off = await testApp(t, { MAX_EVENT_LOOP_DELAY_MS: '0' });
    assert.equal(off.app.hasDecorator('isUnderPressure'), false);
  });

  test('the work of starting up is not taken for load: answered at once after a second of it', async (t) => {
    // Fastify compiles every route's validator and serializer when it gets ready, synchronously: on a
    // slow or busy machine a second or more, measured by the load shedding like any other delay.
    const { base } = await testApp(t, { MAX_EVENT_LOOP_DELAY_MS: '1000' }, (a) => {
      void a.register((_instance, _options, done) => {
        const until = Date.now() + 1500;
        while (Date.now() < until);
        done();
      });
    });
    for (const path of ['/health', '/', '/health']) assert.equal((await read(fetch(base + path))).status, 200, path);
  });

  test('a saturated event loop gives 503 {"detail": "Service Unavailable"} with Retry-After; /metrics is still answered', async (t) => {
    const { base } = await testApp(t, { MAX_EVENT_LOOP_DELAY_MS: '1' }, (a) => {
      a.get('/test/busy', () => {
        const until = Date.now() + 300;
        while (Date.now() < until);
        return { busy: true };
      });
    });
    // Pressure counts from PRESSURE_GRACE_MS after the app is ready (before testApp returned): the loop
    // is saturated only once that has passed, rather than for nothing all along it. A sample of the
    // delay (every PRESSURE_SAMPLE_MS) that measured the block refuses requests until the next one:
    // within two samples of a block the requests that look see it; only then is the loop blocked again.
    const graceOver = performance.now() + PRESSURE_GRACE_MS;
    let blockedAt = Number.NEGATIVE_INFINITY;
    let refused: Response | undefined;
    await waitFor(
      'a request refused under pressure',
      async () => {
        if (performance.now() < graceOver) return false;
        if (performance.now() - blockedAt > 2 * PRESSURE_SAMPLE_MS) {
          await read(fetch(`${base}/test/busy`));
          blockedAt = performance.now();
        }
        const response = await fetch(`${base}/`);
        if (response.status === 503) refused = response;
        else await response.arrayBuffer();
        return refused !== undefined;
      },
      120_000,
      50,
    );
    assert.deepEqual(await refused!.json(), { detail: 'Service Unavailable' });
    assert.equal(refused!.headers.get('retry-after'), '5');
    assert.equal((await read(fetch(`${base}/metrics`))).status, 200);
  });
});

describe('timeouts', () => {
  test('the server takes its timeouts from the configuration', async (t) => {
    const { app } = await testApp(t, { REQUEST_TIMEOUT_SECONDS: '7', CONNECTION_TIMEOUT_SECONDS: '8', KEEP_ALIVE_TIMEOUT_SECONDS: '9' });
    assert.equal(app.server.requestTimeout, 7000);
    assert.equal(app.server.headersTimeout, 7000);
    assert.equal(app.server.timeout, 8000);
    assert.equal(app.server.keepAliveTimeout, 9000);
  });

  test('a client that never finishes its headers gets 408 and the connection closed', async (t) => {
    const { base } = await testApp(t, { REQUEST_TIMEOUT_SECONDS: '1' });
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => undefined);
    let closed = false;
    socket.once('close', () => (closed = true));
    defer(t, () => socket.destroy());
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    // Node's own limit is 300 s: a close well before it is the configured one.
    await waitFor('the server to close the connection', () => closed, 60_000);
    assert.match(received, /^HTTP\/1\.1 408 /);
  });
});

describe('security headers', () => {
  let server: Running | undefined;
  before(async () => {
    server = await startServer({ DATABASE_URL: `sqlite:${fixture}` }, { user: false });
  });
  after(() => server?.close());

  test('an API answer carries headers for a JSON API: nothing may load, frame or sniff it', async () => {
    const response = await read(server!.get('/api/v1/aladi2/'));
    assert.equal(response.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.match(response.headers.get('strict-transport-security') ?? '', /^max-age=\d+/);
    assert.equal(response.headers.get('x-powered-by'), null);
    // Headers that concern documents only are left to the pages a browser shows (docs/adr/0006-hot-path.md).
    for (const name of ['x-frame-options', 'referrer-policy', 'cross-origin-opener-policy', 'cross-origin-resource-policy']) {
      assert.equal(response.headers.get(name), null, name);
    }
  });

  test('the /docs pages, documents a browser shows, carry the headers for documents as well', async () => {
    for (const path of ['/docs', '/docs/static/index.html']) {
      const page = await read(server!.get(path));
      assert.equal(page.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(page.headers.get('cross-origin-opener-policy'), 'same-origin', path);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff', path);
    }
  });

  test('/docs still loads: the page, every script and style it names, and the OpenAPI document, all allowed by its CSP', async () => {
    const page = await server!.get('/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /style-src 'self'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, page.url));
    assert.ok(assets.filter((u) => u.pathname.endsWith('.js')).length >= 3, 'the page names its scripts');
    for (const asset of assets) {
      assert.equal(asset.origin, new URL(server!.base).origin, 'everything comes from the service itself');
      assert.equal((await read(fetch(asset))).status, 200, asset.pathname);
    }
    const initializer = await (await fetch(new URL('static/swagger-initializer.js', page.url.endsWith('/') ? page.url : `${page.url}/`))).text();
    assert.match(initializer, /resolveUrl\('\.\/json'\)/);
    const spec = await fetch(`${server!.base}/docs/json`);
    assert.equal(((await spec.json()) as { openapi: string }).openapi, '3.1.0');
  });
});

describe('logs', () => {
  test('never a password, token or Authorization header, at the most detailed level, after a login and authenticated calls', async (t) => {
    const path = fixtureCopy('logs.sqlite');
    const { app, base, log: out } = await serveWithLog(t, { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'trace', METRICS_TOKEN: 'scrape-secret-4711' });
    const token = await tokenFor(base);
    const call = (path: string, authorization: string, cookie = ''): Promise<void> =>
      read(fetch(base + path, { headers: { authorization, cookie } })).then(() => undefined);
    await call('/api/v1/auth/me', `Bearer ${token}`);
    await call('/api/v1/aladi2/5', `Bearer ${token}`, 'session=cookie-secret-0815');
    await call('/api/v1/aladi2/5', 'Bearer forged.token-secret.1234');
    await call('/metrics', 'Bearer scrape-secret-4711');
    assert.equal((await login(base, TEST_USER, 'wrong-password-secret')).status, 401);
    // A store failure is logged with its error: it must not carry a credential either.
    renameSync(path, `${path}.away`);
    await app.reloadStore('test').catch(() => undefined);
    renameSync(`${path}.away`, path);
    // Closed before the log is read, so that every line is written.
    await app.close();
    const text = out.text();
    for (const secret of [TEST_PASSWORD, 'wrong-password-secret', 'cookie-secret-0815', 'forged.token-secret.1234', 'scrape-secret-4711']) {
      assert.ok(!text.includes(secret), `the log shows ${secret}`);
    }
    assert.doesNotMatch(text, /bearer|eyJ/i, 'no bearer token, no JWT');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const requestLine = lines.find((l) => l['msg'] === 'request' && l['route'] === '/api/v1/aladi2/:sysid' && l['status'] === 200);
    assert.ok(requestLine, 'the request line is there');
    assert.equal(requestLine['user'], TEST_USER);
    assert.equal(typeof requestLine['reqId'], 'string');
    assert.equal(typeof requestLine['ms'], 'number');
  });

  test('pretty output is readable lines, not JSON, with the same redaction', async (t) => {
    const out = captureLog();
    const config = testConfig({ DATABASE_URL: `sqlite:${fixture}`, LOG_LEVEL: 'info' });
    const app = await buildApp(config, { log: { pretty: true, stream: out.stream } });
    defer(t, () => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    app.log.info({ headers: { authorization: 'Bearer pretty-secret-99' } }, 'a line to read');
    await app.close();
    // The pretty printer writes on its own turn of the event loop.
    await waitFor('the pretty line written', () => /INFO.*a line to read/.test(out.text()));
    const text = out.text();
    assert.throws(() => JSON.parse(text.split('\n')[0] ?? ''));
    assert.ok(!text.includes('pretty-secret-99'));
  });
});
