/**
 * The life cycle of `node dist/src/server.js`, as a process: SIGTERM in the middle of load answers every
 * request that reached it and exits 0; connections still busy at the deadline are closed; bad
 * configuration stops it at once with one line; WORKERS runs several processes on one port and
 * replaces one that dies.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { tempDir, within } from './lifetime.js';
import { writeFixtureDatabase } from './databases.js';
import { startServer } from './servers.js';
import { TEST_SECRET } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, tokenFor } from './clients.js';
import type { Service } from './process.js';
import { runService, spawnService, waitFor } from './process.js';

const tmp = tempDir('tariff-lifecycle-');
let database: string;

before(async () => {
  const path = join(tmp.dir, 'lifecycle.sqlite');
  await writeFixtureDatabase(path);
  database = `sqlite:${path}`;
  await addUser(loadConfig({ DATABASE_URL: database, JWT_SECRET: TEST_SECRET }), TEST_USER, TEST_PASSWORD);
});

after(() => tmp.remove());

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

function get(url: string, options: { agent?: Agent | false; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: options.agent ?? false, headers: options.headers }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      res.once('error', reject);
    });
    req.once('error', reject);
    // No test waits for ever: an unanswered request is a failure, not a hang.
    req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('no answer within 30 s'), { code: 'TIMEOUT' })));
    req.end();
  });
}

interface ClientOutcome {
  answered: number;
  notOk: number;
  /** The server ended the connection with `Connection: close` on an answer. */
  closedByServer: boolean;
  error?: string;
}

/**
 * One client on one keep-alive connection, asking again as soon as it is answered, until the server
 * says it closes the connection (or `stop` is set). What a connection pool of a client system does.
 */
async function keepAliveClient(url: string, headers: Record<string, string>, stop: { now: boolean }, outcome: ClientOutcome): Promise<ClientOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    while (!stop.now) {
      const answer = await get(url, { agent, headers });
      outcome.answered++;
      if (answer.status !== 200) outcome.notOk++;
      if (answer.headers.connection === 'close') {
        outcome.closedByServer = true;
        break;
      }
    }
  } catch (error) {
    outcome.error = (error as { code?: string }).code ?? String(error);
  } finally {
    agent.destroy();
  }
  return outcome;
}

/** A raw TCP connection to the service, connected; `closed` resolves when it ends (the server closing it). */
async function rawConnection(base: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, closed };
}

describe('SIGTERM and SIGINT', () => {
  test('in the middle of load: every request on an open connection is answered, new ones are refused, exit 0', async (t) => {
    // A deadline far longer than a shutdown takes: reaching it would mean something held the process.
    const service = await runService(t, { DATABASE_URL: database, SHUTDOWN_TIMEOUT_SECONDS: '120' });
    const auth = { authorization: `Bearer ${await tokenFor(service.base)}` };
    const paths = ['/api/v1/tlcs/?fraccion=01012101', '/api/v1/fracciones/?limit=1000', '/api/v1/aladi2/5', '/health'];
    const stop = { now: false };
    const outcomes = Array.from({ length: 24 }, (): ClientOutcome => ({ answered: 0, notOk: 0, closedByServer: false }));
    const answered = (): number => outcomes.reduce((sum, o) => sum + o.answered, 0);
    const clients = outcomes.map((outcome, i) => keepAliveClient(service.base + paths[i % paths.length]!, auth, stop, outcome));
    // An idle keep-alive connection, as a pool holds: it must not keep the process up until the deadline.
    const idle = new Agent({ keepAlive: true, maxSockets: 1 });
    await get(`${service.base}/health`, { agent: idle });
    await waitFor('the load to run', () => answered() >= 100);

    service.child.kill('SIGTERM');
    const settled = await within(Promise.all(clients), 60_000, null);
    stop.now = true;
    assert.ok(settled, 'every client was told Connection: close');
    for (const outcome of settled) {
      assert.equal(outcome.error, undefined, `no request on an open connection failed: ${JSON.stringify(outcome)}`);
      assert.ok(outcome.closedByServer, 'the last answer closed the connection');
      assert.equal(outcome.notOk, 0, 'every answer was a 200');
    }

    await assert.rejects(get(`${service.base}/health`), (error: { code?: string }) => error.code === 'ECONNREFUSED', 'a new connection is refused');
    const exit = await within(service.exited, 60_000, 'still running 60 s after SIGTERM');
    assert.equal(exit, 0, 'an idle connection did not hold the process until the deadline');
    idle.destroy();
    assert.ok(!service.lines.some((l) => l.msg === 'connections still open at the shutdown deadline were closed'));
    assert.ok(service.lines.some((l) => l.msg?.startsWith('stopping')));
  });

  test('a connection that never sent a byte (a preconnect) is closed at once: it holds neither SIGTERM until the deadline nor app.close()', async (t) => {
    // No connection timeout and a deadline of an hour: only the close itself can end the silent connection in time.
    const service = await runService(t, { DATABASE_URL: database, SHUTDOWN_TIMEOUT_SECONDS: '3600', CONNECTION_TIMEOUT_SECONDS: '0' });
    // A connection that sends nothing, as a browser's preconnect.
    const silent = await rawConnection(service.base);
    service.child.kill('SIGTERM');
    assert.equal(await within(service.exited, 60_000, 'still running 60 s after SIGTERM'), 0);
    assert.equal(await within(silent.closed, 60_000, 'still open'), undefined, 'the server closed the silent connection');
    assert.ok(!service.lines.some((l) => l.msg === 'connections still open at the shutdown deadline were closed'));

    const running = await startServer({ DATABASE_URL: database, CONNECTION_TIMEOUT_SECONDS: '0' }, { user: false });
    const another = await rawConnection(running.base);
    assert.equal(await within(running.app.close(), 60_000, 'app.close() still waiting after 60 s'), undefined);
    assert.equal(await within(another.closed, 60_000, 'still open'), undefined);
  });

  test('SIGINT the same: a connection still busy at the deadline is closed then, and the exit is still 0', async (t) => {
    const service = await runService(t, { DATABASE_URL: database, SHUTDOWN_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '0' });
    // A request whose body never comes: the connection is in use, and stays so until it is closed.
    // The server's 100 Continue says it has read the request's head: no waiting on a guess.
    const { socket, closed } = await rawConnection(service.base);
    const headRead = new Promise<void>((resolve) => socket.on('data', (chunk: Buffer) => chunk.toString().startsWith('HTTP/1.1 100 ') && resolve()));
    socket.write(
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 40\r\nExpect: 100-continue\r\n\r\n',
    );
    assert.equal(await within(headRead, 60_000, 'no 100 Continue within 60 s'), undefined);
    const signalled = Date.now();
    service.child.kill('SIGINT');
    assert.equal(await service.exited, 0);
    await closed;
    const tookMs = Date.now() - signalled;
    assert.ok(tookMs >= 900, `closed at the deadline, not before (${tookMs} ms)`);
    assert.ok(service.lines.some((l) => l.msg === 'connections still open at the shutdown deadline were closed'));
  });
});

describe('configuration errors at start', () => {
  test('a bad value is one line on stderr and a non-zero exit, for one process and for a cluster', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ WORKERS: 'many' }, /^tariff-lookup: invalid WORKERS="many": /],
      [{ RATE_LIMIT_MAX: '-1' }, /^tariff-lookup: invalid RATE_LIMIT_MAX="-1": /],
      [{ TRUST_PROXY: 'my-proxy' }, /^tariff-lookup: invalid TRUST_PROXY="my-proxy": "my-proxy" is not an address/],
      [{ JWT_SECRET: 'short', WORKERS: '2' }, /tariff-lookup: JWT_SECRET must be set/],
    ];
    for (const [env, message] of cases) {
      const service: Service = spawnService({ DATABASE_URL: database, ...env });
      const code = await service.exited;
      assert.notEqual(code, 0, JSON.stringify(env));
      const lines = service.stderr().trim().split('\n');
      assert.match(lines[0] ?? '', message);
      // A cluster whose workers cannot start stops, instead of starting them again and again.
      if (env['WORKERS'] === undefined) assert.equal(lines.length, 1, service.stderr());
    }
  });
});

describe('WORKERS=2', () => {
  const workerPids = (s: Service): number[] => s.lines.filter((l) => l.msg === 'server process listening').map((l) => l['worker_pid'] as number);

  test('two processes serve one port; a killed one is replaced while requests keep succeeding; SIGTERM stops all with 0', async (t) => {
    const service = await runService(t, { DATABASE_URL: database, WORKERS: '2' });
    await waitFor('two server processes', () => workerPids(service).length === 2);
    const [first, second] = workerPids(service);
    assert.ok(first && second && first !== second);
    for (let i = 0; i < 20; i++) assert.equal((await get(`${service.base}/health`)).status, 200);

    process.kill(first, 'SIGKILL');
    // From the moment the primary knows (a connection it handed over in the instant before is lost
    // with the process: docs/operations.md), each new connection goes to a live process.
    await waitFor('the primary to see the death', () => service.lines.some((l) => l.msg === 'a server process died; replacing it'));
    const statuses: number[] = [];
    await waitFor('a new server process', async () => {
      statuses.push((await get(`${service.base}/health`)).status);
      return workerPids(service).length === 3;
    });
    for (let i = 0; i < 20; i++) statuses.push((await get(`${service.base}/health`)).status);
    assert.ok(
      statuses.every((s) => s === 200),
      `every request after the kill succeeded: ${statuses.join(' ')}`,
    );
    const replacement = workerPids(service)[2]!;
    assert.ok(![first, second].includes(replacement));
    assert.ok(service.lines.some((l) => l.msg === 'a server process died; replacing it' && l['worker_pid'] === first));

    service.child.kill('SIGTERM');
    assert.equal(await service.exited, 0);
    for (const pid of [second, replacement]) assert.throws(() => process.kill(pid, 0), 'the server processes are gone');
  });
});
