/**
 * The one authenticated client of the tests (Client): requests to a server carrying a user's bearer
 * token, the test user's unless another logs in.
 */
import assert from 'node:assert/strict';

export const TEST_USER = 'tester';
export const TEST_PASSWORD = 'correct horse battery staple';

export async function login(base: string, username: string, password: string): Promise<Response> {
  return fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

/** A bearer token for the user (the test user by default): the login must succeed. */
export async function tokenFor(base: string, username = TEST_USER, password = TEST_PASSWORD): Promise<string> {
  const response = await login(base, username, password);
  assert.equal(response.status, 200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The one authenticated client of the tests: requests to `base` carrying a user's bearer token. */
export interface Client {
  readonly base: string;
  readonly token: string;
  /** fetch(base + path) with the user's Authorization header over `init`'s headers. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /**
   * A request as the user: a string or bytes body is sent as it is, typed `type`; any other body
   * as JSON. The answer is parsed as JSON (null when empty).
   */
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, type?: string): Promise<{ status: number; body: T; response: Response }>;
}

/** A client sending `token`. */
export function clientWith(base: string, token: string): Client {
  const authed = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(base + path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` } });
  return {
    base,
    token,
    fetch: authed,
    call: async <T>(method: string, path: string, body?: unknown, type = 'application/json') => {
      const raw = typeof body === 'string' || Buffer.isBuffer(body);
      const response = await authed(path, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': type } }),
        body: body === undefined ? undefined : typeof body === 'string' ? body : raw ? new Uint8Array(body as Buffer) : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T, response };
    },
  };
}

/** A client of the user (the test user by default), logged in: the login must succeed. */
export async function clientFor(base: string, username = TEST_USER, password = TEST_PASSWORD): Promise<Client> {
  return clientWith(base, await tokenFor(base, username, password));
}

/** A body the service answered shows nothing of its insides: no stack frame, SQLite error code or module path. */
export function assertNoInternals(body: string, path: string): void {
  assert.ok(!/\(?\/[^ ]+\.js:\d+|SQLITE_[A-Z]|node_modules/.test(body), `no internals in the body of ${path}: ${body.slice(0, 200)}`);
}
