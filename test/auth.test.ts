/** Login, tokens and the protection of every business route, over real HTTP. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { recordSets } from '../src/record-sets/index.js';
import { openUserAdmin } from '../src/store/drivers.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { defer, waitFor } from './lifetime.js';
import { storeKinds } from './stores.js';
import { serve, serveFixture } from './servers.js';
import { TEST_SECRET } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, login, tokenFor } from './clients.js';

let server: Running;
let db: TestDatabase;
const key = new TextEncoder().encode(TEST_SECRET);

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

async function expect401(headers: Record<string, string>, detail: string, path = '/api/v1/aladi2/'): Promise<void> {
  const response = await server.get(path, headers);
  assert.equal(response.status, 401, `${JSON.stringify(headers).slice(0, 80)} on ${path}`);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  assert.deepEqual(await response.json(), { detail });
}

function signed(claims: Record<string, unknown>, options: { alg?: string; secret?: Uint8Array; exp?: number | string; nbf?: number | string } = {}) {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .setIssuedAt()
    .setJti('test');
  jwt.setExpirationTime(options.exp ?? '10m');
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  return jwt.sign(options.secret ?? key);
}

for (const kind of await storeKinds()) {
  describe(`${kind} store`, () => {
    // The user-state cache off: a change of a user's state must show on the very next request.
    serveFixture(kind, { LOGIN_MAX_FAILURES: '50', LOGIN_MAX_FAILURES_PER_ADDRESS: '500', AUTH_USER_CACHE_SECONDS: '0' }, (running, made) => {
      server = running;
      db = made;
    });

    describe('login', () => {
      test('valid credentials give a bearer JWT with sub, iat, exp and jti', async () => {
        const response = await login(server.base, TEST_USER, TEST_PASSWORD);
        assert.equal(response.status, 200);
        const body = (await response.json()) as { access_token: string; token_type: string; expires_in: number };
        assert.deepEqual(Object.keys(body), ['access_token', 'token_type', 'expires_in']);
        assert.equal(body.token_type, 'bearer');
        assert.equal(body.expires_in, 30 * 60);
        assert.equal(decodeProtectedHeader(body.access_token).alg, 'HS256');
        const claims = decodeJwt(body.access_token);
        assert.equal(claims.sub, TEST_USER);
        assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 30 * 60);
        assert.equal(typeof claims.jti, 'string');
      });

      test('a wrong password and an unknown user get the same 401', async () => {
        for (const [username, password] of [
          [TEST_USER, 'wrong'],
          ['nobody', TEST_PASSWORD],
          ['ñandú', 'x'],
          ['x'.repeat(5000), 'x'],
        ] as const) {
          const response = await login(server.base, username, password);
          assert.equal(response.status, 401);
          assert.equal(response.headers.get('www-authenticate'), 'Bearer');
          assert.deepEqual(await response.json(), { detail: 'Incorrect username or password' });
        }
      });

      test('a bad login body is 422 in FastAPI shape', async () => {
        const post = (body: string | undefined, type = 'application/json') =>
          fetch(`${server.base}/api/v1/auth/login`, { method: 'POST', headers: body === undefined ? {} : { 'content-type': type }, body });
        const cases: [string | undefined, string, string, (string | number)[]][] = [
          [undefined, 'application/json', 'missing', ['body']],
          ['{"username": "a"', 'application/json', 'json_invalid', ['body', 0]],
          ['{"username": "a"}', 'application/json', 'missing', ['body', 'password']],
          ['{"username": 1, "password": "x"}', 'application/json', 'string_type', ['body', 'username']],
          ['[1, 2]', 'application/json', 'model_attributes_type', ['body']],
          ['username=a&password=b', 'application/x-www-form-urlencoded', 'model_attributes_type', ['body']],
        ];
        for (const [body, type, errorType, loc] of cases) {
          const response = await post(body, type);
          assert.equal(response.status, 422, String(body));
          const json = (await response.json()) as { detail: { type: string; loc: unknown[] }[] };
          assert.equal(json.detail[0]?.type, errorType, String(body));
          assert.deepEqual(json.detail[0]?.loc, loc, String(body));
        }
        const both = (await (await post('{}')).json()) as { detail: unknown[] };
        assert.equal(both.detail.length, 2);
      });

      test('an oversized login body is refused with a 4xx, not read', async () => {
        const response = await fetch(`${server.base}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'a', password: 'x'.repeat(100_000) }),
        });
        assert.equal(response.status, 413);
        assert.ok('detail' in ((await response.json()) as object));
      });
    });

    describe('protection', () => {
      test('/auth/me answers who the token names', async () => {
        const { status, body } = await server.json('/api/v1/auth/me');
        assert.equal(status, 200);
        assert.deepEqual(body, { username: TEST_USER, full_name: null, email: null, disabled: false });
      });

      test('every business route refuses a request without a token', async () => {
        for (const rs of recordSets) {
          await expect401({}, 'Not authenticated', `/api/v1/${rs.path}/`);
          await expect401({}, 'Not authenticated', `/api/v1/${rs.path}/1${rs.key.length > 1 ? '/01012101' : ''}`);
        }
        await expect401({}, 'Not authenticated', '/api/v1/fundamentos-tlc/tipat');
        await expect401({}, 'Not authenticated', '/api/v1/auth/me');
      });

      test('another scheme or an empty bearer is "Not authenticated"', async () => {
        await expect401({ authorization: 'Basic dGVzdDp0ZXN0' }, 'Not authenticated');
        await expect401({ authorization: 'Bearer' }, 'Not authenticated');
        await expect401({ authorization: 'Bearer   ' }, 'Not authenticated');
      });

      test('bad tokens are "Could not validate credentials"', async () => {
        const otherKey = new TextEncoder().encode('another-secret-that-is-long-enough-987654321');
        const cases: Record<string, string> = {
          garbage: 'not.a.token',
          'bad signature': await signed({ sub: TEST_USER }, { secret: otherKey }),
          expired: await signed({ sub: TEST_USER }, { exp: Math.floor(Date.now() / 1000) - 60 }),
          'not yet valid': await signed({ sub: TEST_USER }, { nbf: '1h' }),
          'alg none': new UnsecuredJWT({ sub: TEST_USER }).setIssuedAt().setExpirationTime('10m').encode(),
          'other algorithm': await signed({ sub: TEST_USER }, { alg: 'HS512' }),
          'no subject': await signed({}),
          'unknown user': await signed({ sub: 'ghost' }),
          huge: 'x'.repeat(8000),
        };
        for (const [name, token] of Object.entries(cases)) {
          const response = await server.get('/api/v1/aladi2/', bearer(token));
          assert.equal(response.status, 401, name);
          assert.deepEqual(await response.json(), { detail: 'Could not validate credentials' }, name);
        }
        const valid = await signed({ sub: TEST_USER });
        assert.equal((await server.get('/api/v1/aladi2/', bearer(valid))).status, 200, 'the same construction with the right key is accepted');
      });

      test('a disabled or removed user loses access at once, and a re-enabled one gets it back', async (t) => {
        await addUser(server.config, 'temp', 'temporary password');
        const token = await tokenFor(server.base, 'temp', 'temporary password');
        assert.equal((await server.get('/api/v1/aladi2/', bearer(token))).status, 200);
        const admin = await openUserAdmin(server.config);
        defer(t, () => admin.close());
        await admin.setDisabled('temp', true);
        await expect401(bearer(token), 'Could not validate credentials');
        assert.equal((await login(server.base, 'temp', 'temporary password')).status, 401, 'a disabled user cannot log in');
        await admin.setDisabled('temp', false);
        assert.equal((await server.get('/api/v1/aladi2/', bearer(token))).status, 200);
        await admin.remove('temp');
        await expect401(bearer(token), 'Could not validate credentials');
      });

      test('with the user-state cache on, a disabled user loses access within its time', async (t) => {
        const local = await serve(t, { DATABASE_URL: db.url, AUTH_USER_CACHE_SECONDS: '1' });
        const admin = await openUserAdmin(server.config);
        defer(t, () => admin.close());
        await addUser(local.config, 'cached', 'cached password');
        const token = await tokenFor(local.base, 'cached', 'cached password');
        const call = async (): Promise<number> => {
          const response = await local.get('/api/v1/aladi2/?limit=1', bearer(token));
          await response.arrayBuffer();
          return response.status;
        };
        assert.equal(await call(), 200);
        await admin.setDisabled('cached', true);
        // Within the second the service trusts what it last read of a user (then it reads again).
        await waitFor('the disabled user refused', async () => (await call()) === 401, 30_000);
      });

      test('HEAD and OPTIONS open no way around the check', async () => {
        const head = await fetch(`${server.base}/api/v1/aladi2/5`, { method: 'HEAD' });
        assert.equal(head.status, 401);
        await head.arrayBuffer();
        const options = await fetch(`${server.base}/api/v1/aladi2/5`, { method: 'OPTIONS' });
        assert.equal(options.status, 405);
        assert.ok(!(await options.text()).includes('FRACCION'));
      });

      test('the public endpoints need no token', async () => {
        for (const path of ['/', '/health', '/openapi.json', '/docs']) {
          const response = await server.get(path);
          assert.equal(response.status, 200, path);
          await response.arrayBuffer();
        }
      });

      test('the OpenAPI document describes login and marks protected operations', async () => {
        const doc = (await server.json<{ paths: Record<string, Record<string, { security?: unknown; requestBody?: unknown }>> }>('/openapi.json')).body;
        const loginOp = doc.paths['/api/v1/auth/login']?.['post'];
        assert.ok(loginOp?.requestBody);
        assert.deepEqual(loginOp.security, [], 'public: no token asked');
        assert.deepEqual(doc.paths['/api/v1/auth/me']?.['get']?.security, [{ HTTPBearer: [] }]);
      });
    });

    describe('brute-force protection', () => {
      test('after repeated failures for a username, 429 with Retry-After, even with the right password', async (t) => {
        const local = await serve(t, { DATABASE_URL: db.url, LOGIN_MAX_FAILURES: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '100' });
        for (let i = 0; i < 3; i++) assert.equal((await login(local.base, TEST_USER, 'wrong')).status, 401);
        const blocked = await login(local.base, TEST_USER, TEST_PASSWORD);
        assert.equal(blocked.status, 429);
        const wait = Number(blocked.headers.get('retry-after'));
        assert.ok(wait > 0 && wait <= 15 * 60, `Retry-After ${wait}`);
        assert.equal(typeof ((await blocked.json()) as { detail: unknown }).detail, 'string');
        await addUser(local.config, 'other', 'other password');
        assert.equal((await login(local.base, 'other', 'other password')).status, 200, 'other usernames are not blocked');
      });

      test('after repeated failures from one address, 429 for every username', async (t) => {
        const local = await serve(t, { DATABASE_URL: db.url, LOGIN_MAX_FAILURES: '100', LOGIN_MAX_FAILURES_PER_ADDRESS: '4' });
        for (let i = 0; i < 4; i++) assert.equal((await login(local.base, `user${i}`, 'wrong')).status, 401);
        const blocked = await login(local.base, TEST_USER, TEST_PASSWORD);
        assert.equal(blocked.status, 429);
        assert.ok(blocked.headers.get('retry-after'));
      });
    });
  });
}
