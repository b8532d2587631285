/** `/api/v1/versiones`: the dataset versions the service holds (../shared/spec/versiones.md). */
import type { onRequestHookHandler } from 'fastify';
import type { Datasets } from '../store/datasets.js';
import { versionJson } from '../store/versions.js';
import { notFound } from './errors.js';
import type { OpenRoute } from './route-kinds.js';

export interface VersionesContext {
  readonly datasets: Datasets;
  readonly protect: onRequestHookHandler;
}

const versionSchema = {
  type: 'object',
  properties: {
    version: { type: 'string', description: 'Identifier: the date it is in force from and its rank among the versions of that date' },
    vigente_desde: { type: 'string', format: 'date' },
    fuente: { type: 'string' },
    importado: { type: 'string', format: 'date-time' },
    hash: { type: 'string' },
    conteos: { type: 'object', additionalProperties: { type: 'integer' } },
    actual: { type: 'boolean', description: 'Whether this is the version in force today (Mexico City)' },
  },
  required: ['version', 'vigente_desde', 'fuente', 'importado', 'hash', 'conteos', 'actual'],
};

const unauthorised = { 401: { description: 'Not authenticated, or the token is not valid', $ref: 'ErrorMessage#' } };

export function versionesRoute(ctx: VersionesContext): OpenRoute {
  return {
    onRequest: ctx.protect,
    schema: {
      operationId: 'versiones',
      summary: 'Dataset versions, the newest in force first',
      description:
        'Every dataset version the service holds: the date it is in force from, its source, when it was imported, its hash and record ' +
        'counts, and whether it is the one in force today (Mexico City), which answers requests that name no `as_of`.',
      tags: ['versiones'],
      security: [{ HTTPBearer: [] }],
      response: { 200: { description: 'Successful Response', type: 'array', items: versionSchema }, ...unauthorised },
    },
    handler: () => {
      const current = ctx.datasets.current().version;
      return ctx.datasets.versions().map((v) => versionJson(v, current));
    },
  };
}

/** A version's coverage: per record set with a fraction column, how many of its fractions have a record of it. */
const coverageSchema = {
  type: 'object',
  description:
    'Per record set with a fraction column: how many of the version’s fractions (`de`, the fractions of `fracciones`) have at least one record of it (`fracciones`). A fraction with none has no record of that kind in the loaded data, which does not mean that nothing of that kind applies to it.',
  additionalProperties: {
    type: 'object',
    properties: { fracciones: { type: 'integer' }, de: { type: 'integer' } },
    required: ['fracciones', 'de'],
  },
};

export function versionRoute(ctx: VersionesContext): OpenRoute {
  return {
    onRequest: ctx.protect,
    schema: {
      operationId: 'version',
      summary: 'One dataset version',
      description: 'One dataset version by its identifier, as the list gives it; 404 when the service holds no such version.',
      tags: ['versiones'],
      security: [{ HTTPBearer: [] }],
      params: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] },
      response: {
        200: {
          description: 'Successful Response',
          ...versionSchema,
          properties: { ...versionSchema.properties, cobertura: coverageSchema },
          required: [...versionSchema.required, 'cobertura'],
        },
        404: { description: 'No such version', $ref: 'ErrorMessage#' },
        ...unauthorised,
      },
    },
    handler: async (request) => {
      const { version } = request.params as { version: string };
      const found = ctx.datasets.versions().find((v) => v.version === version);
      if (!found) throw notFound(`No dataset version ${version}`);
      return { ...versionJson(found, ctx.datasets.current().version), cobertura: await ctx.datasets.coverage(found) };
    },
  };
}
