/** The public endpoints: root, health and the OpenAPI document. */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/store.js';
import { UnservableDatasetError } from '../store/store.js';
import type { OpenRoute } from './route-kinds.js';

export const SERVICE_NAME = 'Tariff Classification Lookup Service';
export const API_VERSION = '1.0.0';

export function rootRoute(): OpenRoute {
  const root = { name: SERVICE_NAME, version: API_VERSION, docs: '/docs', openapi: '/openapi.json' };
  return {
    schema: { summary: 'Service name and where its documentation is', tags: ['service'] },
    handler: () => root,
  };
}

export function healthRoute(store: () => Store): OpenRoute {
  return {
    schema: { summary: 'Whether the service and its database answer, and which data is loaded', tags: ['service'] },
    handler: async (request, reply) => {
      try {
        const info = await store().dataset();
        const dataset = info && { source: info.source, imported_at: info.importedAt, hash: info.hash, counts: info.counts };
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
