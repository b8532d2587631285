/** The public endpoints: root, health and the OpenAPI document. */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Datasets } from '../store/datasets.js';
import { UnservableDatasetError } from '../store/store.js';
import type { OpenRoute } from './route-kinds.js';

export const SERVICE_NAME = 'Tariff Classification Lookup Service';
export const API_VERSION = '1.0.0';

const Root = Type.Object({
  name: Type.String(),
  version: Type.String({ description: 'The API version' }),
  docs: Type.String({ description: 'Path of the interactive documentation' }),
  openapi: Type.String({ description: 'Path of this OpenAPI document' }),
});

/** The dataset /health names: an object, or null when the database does not answer. */
const HealthDataset = Type.Object({
  source: Type.String(),
  imported_at: Type.String({ format: 'date-time' }),
  hash: Type.String(),
  counts: Type.Unsafe<Record<string, number>>({ type: 'object', description: 'Records per record set', additionalProperties: { type: 'integer' } }),
  version: Type.Optional(Type.String({ description: 'Its version identifier, when versions are held' })),
  vigente_desde: Type.Optional(Type.String({ format: 'date', description: 'The date its version is in force from' })),
});

/** /health's answer, in the order the handler writes it (the serialiser keeps this order); what is required is said per status. */
const healthProperties = {
  status: Type.Unsafe<'healthy' | 'unhealthy'>({ type: 'string', enum: ['healthy', 'unhealthy'] }),
  database: Type.Unsafe<'ok' | 'unavailable'>({ type: 'string', enum: ['ok', 'unavailable'] }),
  dataset: Type.Unsafe<Static<typeof HealthDataset> | null>({
    ...HealthDataset,
    type: ['object', 'null'],
    description: 'The dataset in force today; null when the database does not answer',
  }),
  detail: Type.String({ description: 'What the operator must do about a dataset that cannot be served; or why a request was shed' }),
};
/** A healthy answer: status and database required. */
const Healthy = Type.Object({
  status: healthProperties.status,
  database: healthProperties.database,
  dataset: Type.Optional(healthProperties.dataset),
  detail: Type.Optional(healthProperties.detail),
});
/** An unhealthy one, or load shed (src/http/protection.ts): nothing required, the detail alone at times. */
const Unhealthy = Type.Partial(Type.Object(healthProperties));

export function rootRoute(): OpenRoute {
  const root: Static<typeof Root> = { name: SERVICE_NAME, version: API_VERSION, docs: '/docs', openapi: '/openapi.json' };
  return {
    schema: {
      operationId: 'root',
      summary: 'Service name and where its documentation is',
      description: "The service's name and API version, and where its interactive documentation and this OpenAPI document are served.",
      tags: ['service'],
      response: { 200: { description: 'Successful Response', ...Root } },
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
        200: { description: 'The service and its database answer', ...Healthy },
        // Nothing required: a 503 of load shedding has the detail alone (src/http/protection.ts).
        503: { description: 'The database does not answer or its dataset cannot be served; or the process sheds load (detail alone)', ...Unhealthy },
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
        const healthy: Static<typeof Healthy> = { status: 'healthy', database: 'ok', dataset };
        return healthy;
      } catch (error) {
        request.log.error({ err: error }, 'health check failed');
        // What the operator must do about a dataset that cannot be served; other failures stay unnamed.
        const detail = error instanceof UnservableDatasetError ? { detail: error.message } : {};
        const unhealthy: Static<typeof Unhealthy> = { status: 'unhealthy', database: 'unavailable', dataset: null, ...detail };
        return reply.code(503).send(unhealthy);
      }
    },
  };
}

/** The document itself is not one of its operations, as FastAPI leaves it out. */
export function openapiRoute(app: FastifyInstance): OpenRoute {
  return { schema: { hide: true }, handler: () => app.swagger() };
}
