/** Test helpers: a real server on a free port over a real SQLite file, called with fetch. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { hashPassword } from '../src/auth/passwords.js';
import type { Config } from '../src/config.js';
import { loadConfig, sqlitePath } from '../src/config.js';
import { SqliteUserAdmin } from '../src/store/sqlite.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';
export const TEST_USER = 'tester';
export const TEST_PASSWORD = 'correct horse battery staple';

export interface Running {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly config: Config;
  /** The bearer token of the test user. */
  readonly token: string;
  /** A request with no Authorization header unless one is given. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A request as the test user, parsed as JSON. */
  json<T = unknown>(path: string, headers?: Record<string, string>): Promise<{ status: number; body: T; response: Response }>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'tariff-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function addUser(config: Config, username: string, password: string): Promise<void> {
  const admin = new SqliteUserAdmin(sqlitePath(config));
  try {
    admin.add(username, await hashPassword(password), null, null);
  } finally {
    admin.close();
  }
}

export async function login(base: string, username: string, password: string): Promise<Response> {
  return fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

/** Starts the service over the database the environment names, with a test user logged in. */
export async function startServer(env: Record<string, string>): Promise<Running> {
  const config = loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_SECRET, ...env });
  await addUser(config, TEST_USER, TEST_PASSWORD);
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const get = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(base + path, { headers });
  const answer = await login(base, TEST_USER, TEST_PASSWORD);
  const { access_token: token } = (await answer.json()) as { access_token: string };
  return {
    app,
    base,
    config,
    token,
    get,
    json: async <T>(path: string, headers: Record<string, string> = {}) => {
      const response = await get(path, { authorization: `Bearer ${token}`, ...headers });
      return { status: response.status, body: (await response.json()) as T, response };
    },
    close: () => app.close(),
  };
}
