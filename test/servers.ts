/**
 * A real server for a test: the service built with the test's configuration (over TEST_ENV) and
 * buildApp's options, listening on a free port over the database the environment names, with its
 * user added and logged in (startServer); `serve(t, …)` closes it when the test ends, `serveFixture`
 * gives a describe one server over a database of its own.
 */
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { AppOptions } from '../src/app.js';
import type { Config } from '../src/config.js';
import type { StoreKind } from '../src/config-values.js';
import type { DatasetWriter } from '../src/store/store.js';
import type { Client } from './clients.js';
import { TEST_PASSWORD, TEST_USER, clientWith, login } from './clients.js';
import type { TestDatabase } from './databases.js';
import { createTestDatabase } from './databases.js';
import { fillFixture } from './fixtures.js';
import { defer } from './lifetime.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';

export interface Running {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly config: Config;
  /** The bearer token of the test user. */
  readonly token: string;
  /** Requests as the test user. */
  readonly authed: Client;
  /** A request with no Authorization header unless one is given. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A request as the test user, parsed as JSON. */
  json<T = unknown>(path: string, headers?: Record<string, string>): Promise<{ status: number; body: T; response: Response }>;
  close(): Promise<void>;
}

/** startServer, closed when the test ends. */
export async function serve(t: TestContext, env: Record<string, string>, options: ServerOptions = {}): Promise<Running> {
  const server = await startServer(env, options);
  defer(t, () => server.close());
  return server;
}

/**
 * Inside a describe: a database of `kind` holding the fixture and a server over it, made before the
 * suite's tests and removed after them; `use` receives both once they are ready.
 */
export function serveFixture(
  kind: StoreKind,
  env: Record<string, string>,
  use: (server: Running, db: TestDatabase) => void,
  fill: (writer: DatasetWriter) => void = fillFixture,
): void {
  let db: TestDatabase | undefined;
  let server: Running | undefined;
  before(async () => {
    db = await createTestDatabase(kind, fill);
    server = await startServer({ DATABASE_URL: db.url, ...env });
    use(server, db);
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });
}

/** How a test's server starts: `app` are buildApp's options (a clock, a store, no batch worker…). */
export interface ServerOptions {
  /** The user added and logged in: the test user by default (true), another by name, or none (false). */
  readonly user?: boolean | string;
  readonly app?: AppOptions;
}

/**
 * Starts the service over the database the environment names (over TEST_ENV), on a free port, with
 * its user (the test user unless `user` says otherwise; password TEST_PASSWORD) added and logged in.
 */
export async function startServer(env: Record<string, string>, options: ServerOptions = {}): Promise<Running> {
  const config = testConfig(env);
  const username = typeof options.user === 'string' ? options.user : TEST_USER;
  if (options.user !== false) await addUser(config, username, TEST_PASSWORD);
  const app = await buildApp(config, options.app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const get = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(base + path, { headers });
  const answer = await login(base, username, TEST_PASSWORD);
  const token = answer.ok ? ((await answer.json()) as { access_token: string }).access_token : '';
  return {
    app,
    base,
    config,
    token,
    authed: clientWith(base, token),
    get,
    json: async <T>(path: string, headers: Record<string, string> = {}) => {
      const response = await get(path, { authorization: `Bearer ${token}`, ...headers });
      return { status: response.status, body: (await response.json()) as T, response };
    },
    close: () => app.close(),
  };
}

/** A stream for an app's log (buildApp's `log.stream`) that keeps every line written: as text, or parsed. */
export function captureLog(): { stream: Writable; text: () => string; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, text, lines };
}

/** The app on a port of its own with the test user, every line of its log kept; closed when the test ends. */
export async function serveWithLog(
  t: TestContext,
  env: Record<string, string>,
): Promise<{ app: FastifyInstance; base: string; log: ReturnType<typeof captureLog> }> {
  const config = testConfig(env);
  await addUser(config, TEST_USER, TEST_PASSWORD);
  const log = captureLog();
  const app = await buildApp(config, { log: { stream: log.stream } });
  defer(t, () => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, log, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}
