/**
 * The serialisers compiled once per process: a route's response schema finds the very function
 * Fastify's reply serialises that status with, so the fast path and Fastify's path share it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { serializerOf, sharedSerializers } from '../../src/http/serializers.js';

test("a response schema finds the function Fastify's reply serialises with, once the app is ready", async (t) => {
  const ok = { type: 'object', properties: { SYSID: { type: 'integer' } } };
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: sharedSerializers } } });
  t.after(() => app.close());
  let used: unknown;
  app.get('/r', { schema: { response: { 200: ok } } }, (_request, reply) => {
    used = reply.getSerializationFunction('200');
    return { SYSID: 7, hidden: true };
  });
  assert.equal(serializerOf(ok), undefined, 'nothing compiled before the app is ready');
  await app.ready();
  const serialize = serializerOf(ok);
  assert.equal(typeof serialize, 'function');
  const response = await app.inject('/r');
  assert.equal(used, serialize, 'the same function');
  assert.equal(response.body, serialize!({ SYSID: 7, hidden: true }));
  assert.equal(response.body, '{"SYSID":7}');
  assert.equal(serializerOf({ ...ok }), undefined, 'found by the schema itself');
});
