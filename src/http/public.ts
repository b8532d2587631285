/** The public endpoints: root, health and the OpenAPI document. */
import type { FastifyInstance } from 'fastify';
import type { Datasets } from '../store/datasets.js';
import { UnservableDatasetError } from '../store/store.js';
import type { OpenRoute } from './route-kinds.js';

export const SERVICE_NAME = 'Tariff Classification Lookup Service';
export const API_VERSION = '1.0.0';

const rootSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    version: { type: 'string', description: 'The API version' },
    docs: { type: 'string', description: 'Path of the interactive documentation' },
    openapi: { type: 'string', description: 'Path of this OpenAPI document' },
  },
  required: ['name', 'version', 'docs', 'openapi'],
};

/** /health's answer, in the order the handler writes it (the serialiser keeps this order). */
const healthSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['healthy', 'unhealthy'] },
    database: { type: 'string', enum: ['ok', 'unavailable'] },
    dataset: {
      type: ['object', 'null'],
      description: 'The dataset in force today; null when the database does not answer',
      properties: {
        source: { type: 'string' },
        imported_at: { type: 'string', format: 'date-time' },
        hash: { type: 'string' },
        counts: { type: 'object', description: 'Records per record set', additionalProperties: { type: 'integer' } },
        version: { type: 'string', description: 'Its version identifier, when versions are held' },
        vigente_desde: { type: 'string', format: 'date', description: 'The date its version is in force from' },
      },
      required: ['source', 'imported_at', 'hash', 'counts'],
    },
    detail: { type: 'string', description: 'What the operator must do about a dataset that cannot be served; or why a request was shed' },
  },
};

export function rootRoute(): OpenRoute {
  const root = { name: SERVICE_NAME, version: API_VERSION, docs: '/docs', openapi: '/openapi.json' };
  return {
    schema: {
      operationId: 'root',
      summary: 'Service name and where its documentation is',
      description: "The service's name and API version, and where its interactive documentation and this OpenAPI document are served.",
      tags: ['service'],
      response: { 200: { description: 'Successful Response', ...rootSchema } },
    },
    handler: () => root,
  };
}

export function healthRoute(datasets: Datasets): OpenRoute {
  return {
    schema: {
      operationId: 'health',
      summary: 'Whether the service and its database answer, and which data is loaded',
      description:
        'For load balancers and probes: no token, no rate limit. 200 when the database answers, with the dataset in force today ' +
        '(source, import time, hash, records per record set, version); 503 when it does not, naming what the operator must do when ' +
        'the dataset cannot be served.',
      tags: ['service'],
      response: {
        200: { description: 'The service and its database answer', ...healthSchema, required: ['status', 'database'] },
        // Nothing required: a 503 of load shedding has the detail alone (src/http/protection.ts).
        503: { description: 'The database does not answer or its dataset cannot be served; or the process sheds load (detail alone)', ...healthSchema },
      },
    },
    handler: async (request, reply) => {
      try {
        // The version in force today: the one a client sending no as_of is answered from. The catalog
        // is read afresh, so that the version named and the dataset described are always the same.
        await datasets.refresh();
        const { store, version } = datasets.current();
        const info = await store.dataset();
        const named = version && { version: version.version, vigente_desde: version.vigenteDesde };
        const dataset = info && { source: info.source, imported_at: info.importedAt, hash: info.hash, counts: info.counts, ...named };
        return { status: 'healthy', database: 'ok', dataset };
      } catch (error) {
        request.log.error({ err: error }, 'health check failed');
        // What the operator must do about a dataset that cannot be served; other failures stay unnamed.
        const detail = error instanceof UnservableDatasetError ? { detail: error.message } : {};
        return reply.code(503).send({ status: 'unhealthy', database: 'unavailable', dataset: null, ...detail });
      }
    },
  };
}

/** The document itself is not one of its operations, as FastAPI leaves it out. */
export function openapiRoute(app: FastifyInstance): OpenRoute {
  return { schema: { hide: true }, handler: () => app.swagger() };
}
