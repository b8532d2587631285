/** What an operator relies on: metrics, their switch and token, CORS when configured. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from './lifetime.js';
import { writeFixtureDatabase } from './databases.js';
import { serve } from './servers.js';

const tmp = tempDir();
let dbPath: string;

before(async () => {
  dbPath = join(tmp.dir, 'ops.sqlite');
  await writeFixtureDatabase(dbPath);
});

after(() => tmp.remove());

describe('metrics', () => {
  test('GET /metrics gives Prometheus text: requests by route template and status, store timings, the dataset', async (t) => {
    const server = await serve(t, { DATABASE_URL: `sqlite:${dbPath}` });
    await server.json('/api/v1/tlcs/?fraccion=01012101');
    await server.json('/api/v1/tlcs/5/01012101');
    await server.json('/api/v1/tlcs/999/01012101');
    const response = await server.get('/metrics');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    assert.match(text, /http_requests_total\{method="GET",route="\/api\/v1\/tlcs\/",status="200"\} 1/);
    assert.match(text, /http_requests_total\{method="GET",route="\/api\/v1\/tlcs\/:sysid\/:fraccion",status="404"\} 1/);
    assert.match(text, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/tlcs\/"/);
    assert.match(text, /store_query_duration_seconds_count\{record_set="tlcs",operation="search"\} 1/);
    assert.match(text, /dataset_records\{record_set="aladi2"\} 8/);
    assert.match(text, /dataset_info\{source="test fixture",/);
    assert.match(text, /process_cpu_seconds_total/);
  });

  test('with METRICS_TOKEN, /metrics needs that token; with METRICS_ENABLED=false it is not there', async (t) => {
    const guarded = await serve(t, { DATABASE_URL: `sqlite:${dbPath}`, METRICS_TOKEN: 'scrape-token' });
    const refused = await guarded.get('/metrics');
    assert.equal(refused.status, 401);
    await refused.arrayBuffer();
    const userToken = await guarded.get('/metrics', { authorization: `Bearer ${guarded.token}` });
    assert.equal(userToken.status, 401, 'a user token is not the scrape token');
    await userToken.arrayBuffer();
    const allowed = await guarded.get('/metrics', { authorization: 'Bearer scrape-token' });
    assert.equal(allowed.status, 200);
    await allowed.arrayBuffer();
    const off = await serve(t, { DATABASE_URL: `sqlite:${dbPath}`, METRICS_ENABLED: 'false' });
    const response = await off.get('/metrics');
    assert.equal(response.status, 404);
    await response.arrayBuffer();
  });
});

describe('CORS', () => {
  test('configured origins get CORS headers and a preflight answer; others none', async (t) => {
    const server = await serve(t, { DATABASE_URL: `sqlite:${dbPath}`, CORS_ORIGINS: 'https://broker.example' });
    const preflight = await fetch(`${server.base}/api/v1/aladi2/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://broker.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://broker.example');
    const allowed = await server.get('/health', { origin: 'https://broker.example' });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://broker.example');
    await allowed.arrayBuffer();
    const other = await server.get('/health', { origin: 'https://elsewhere.example' });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    await other.arrayBuffer();
  });
});
