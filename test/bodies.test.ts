/**
 * JSON bodies are read as FastAPI reads them (fastapi/routing.py, get_request_handler): JSON when the
 * request names no Content-Type, or an `application/json` one with any parameters, or an
 * `application/*+json` one; any other type is the body's bytes, which a model refuses
 * (`model_attributes_type`); an empty body is no body (`missing`); JSON that does not parse is
 * `json_invalid`. Held on login and on contribuciones, the two routes that take a body.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Running } from './servers.js';
import { serveFixture } from './servers.js';
import { TEST_PASSWORD, TEST_USER } from './clients.js';

/** Read as JSON by FastAPI; `undefined` is a request with no Content-Type at all. */
const JSON_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'application/json; charset=latin-1',
  'Application/JSON',
  'application/vnd.api+json',
  'application/merge-patch+json; charset=utf-8',
  'application/problem+json',
];

/** Read as bytes by FastAPI, which the body's model then refuses. */
const OTHER_TYPES = ['text/plain', 'text/json', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json+other', 'multipart/mixed'];

interface Detail {
  detail: { type: string; loc: (string | number)[] }[];
}

describe('JSON bodies as FastAPI parses them', () => {
  let server!: Running;
  serveFixture('sqlite', {}, (s) => (server = s));

  /** A POST whose body is bytes, so that fetch adds no Content-Type of its own. */
  const post = (path: string, body: string, type: string | undefined, token?: string): Promise<Response> =>
    fetch(`${server.base}${path}`, {
      method: 'POST',
      headers: { ...(type === undefined ? {} : { 'content-type': type }), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: new TextEncoder().encode(body),
    });
  const login = JSON.stringify({ username: TEST_USER, password: TEST_PASSWORD });
  const contribuciones = JSON.stringify({ pais_origen: 'USA', partidas: [{ fraccion: '01012101', nico: '00', valor_aduana: '100.00', cantidad_umt: '1' }] });

  test('login: a JSON body under every JSON type, no Content-Type included, gives a token', async () => {
    for (const type of JSON_TYPES) {
      const response = await post('/api/v1/auth/login', login, type);
      assert.equal(response.status, 200, String(type));
      assert.equal(((await response.json()) as { token_type: string }).token_type, 'bearer', String(type));
    }
  });

  test('contribuciones: a JSON body under every JSON type, no Content-Type included, is answered', async () => {
    for (const type of JSON_TYPES) {
      const response = await post('/api/v1/contribuciones', contribuciones, type, server.token);
      assert.equal(response.status, 200, `${type}: ${await response.clone().text()}`);
      assert.equal(((await response.json()) as { pais_origen: string }).pais_origen, 'USA', String(type));
    }
  });

  test('any other type is bytes to the model: 422 model_attributes_type on body, on both routes', async () => {
    for (const type of OTHER_TYPES) {
      for (const [path, body] of [
        ['/api/v1/auth/login', login],
        ['/api/v1/contribuciones', contribuciones],
      ] as const) {
        const response = await post(path, body, type, server.token);
        assert.equal(response.status, 422, `${path} ${type}`);
        const json = (await response.json()) as Detail;
        assert.deepEqual([json.detail[0]?.type, json.detail[0]?.loc], ['model_attributes_type', ['body']], `${path} ${type}`);
      }
    }
  });

  test('JSON that does not parse, under no Content-Type or a +json one: 422 json_invalid', async () => {
    for (const type of [undefined, 'application/vnd.api+json']) {
      for (const path of ['/api/v1/auth/login', '/api/v1/contribuciones']) {
        const response = await post(path, '{"username": ', type, server.token);
        assert.equal(response.status, 422, `${path} ${type}`);
        assert.equal(((await response.json()) as Detail).detail[0]?.type, 'json_invalid', `${path} ${type}`);
      }
    }
  });

  test('an empty body with no Content-Type is no body: 422 missing on body', async () => {
    const response = await post('/api/v1/auth/login', '', undefined);
    assert.equal(response.status, 422);
    assert.deepEqual(((await response.json()) as Detail).detail[0], { type: 'missing', loc: ['body'], msg: 'Field required', input: null });
  });

  test('prototype keys are refused under a +json type as under application/json', async () => {
    const body = '{"__proto__": {"x": 1}, "username": "a", "password": "b"}';
    for (const type of ['application/json', 'application/vnd.api+json', undefined]) {
      const response = await post('/api/v1/auth/login', body, type);
      assert.equal(response.status, 422, String(type));
      await response.arrayBuffer();
    }
  });
});
