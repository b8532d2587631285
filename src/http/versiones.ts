/** `/api/v1/versiones`: the dataset versions the service holds (../shared/spec/versiones.md). */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { onRequestHookHandler } from 'fastify';
import type { Datasets } from '../store/datasets.js';
import { versionJson } from '../store/versions.js';
import { indiceDeStore } from '../reglas-origen/indice.js';
import { refusal } from './errors.js';
import type { Checked } from './contract.js';
import { typed } from './contract.js';
import type { OpenRoute } from './route-kinds.js';

export interface VersionesContext {
  readonly datasets: Datasets;
  readonly protect: onRequestHookHandler;
}

/** An object of any keys whose values all have one schema, written as the original documents it (`additionalProperties`). */
export const dictionary = <V extends TSchema>(values: V, options: { description?: string } = {}) =>
  Type.Unsafe<Record<string, Static<V>>>({ type: 'object', ...options, additionalProperties: values });

/** A dataset version, as the list gives it. */
const Version = Type.Object({
  version: Type.String({ description: 'Identifier: the date it is in force from and its rank among the versions of that date' }),
  vigente_desde: Type.String({ format: 'date' }),
  fuente: Type.String(),
  importado: Type.String({ format: 'date-time' }),
  hash: Type.String(),
  conteos: dictionary(Type.Integer()),
  actual: Type.Boolean({ description: 'Whether this is the version in force today (Mexico City)' }),
});
export type Version = Static<typeof Version>;

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
      response: { 200: { description: 'Successful Response', ...Type.Array(Version) } },
    },
    handler: (): Version[] => {
      const current = ctx.datasets.current().version;
      return ctx.datasets.versions().map((v) => versionJson(v, current));
    },
  };
}

/** The agreements whose product-specific rules of origin the version holds, with how many rule sets each. */
const ReglasCoverage = Type.Array(
  Type.Object({
    acuerdo: Type.String({ description: 'The agreement, as acuerdos.csv names it' }),
    archivo: Type.String({ description: 'The file the rules were loaded from' }),
    conjuntos: Type.Integer({ description: 'Rule sets in the file' }),
  }),
  { description: 'The agreements with rules of origin in this version (GET /api/v1/reglas-origen/{fraccion}); an agreement not listed has none loaded' },
);

/** A version's coverage: per record set with a fraction column, how many of its fractions have a record of it; and its rules of origin. */
const Coverage = Type.Unsafe<Record<string, { fracciones: number; de: number }> & { reglas_origen: Static<typeof ReglasCoverage> }>({
  type: 'object',
  description:
    'Per record set with a fraction column: how many of the version’s fractions (`de`, the fractions of `fracciones`) have at least one record of it (`fracciones`). A fraction with none has no record of that kind in the loaded data, which does not mean that nothing of that kind applies to it. `reglas_origen` names the agreements whose rules of origin the version holds.',
  properties: { reglas_origen: ReglasCoverage },
  required: ['reglas_origen'],
  additionalProperties: Type.Object({ fracciones: Type.Integer(), de: Type.Integer() }),
});

/** One version with its coverage, as `GET /api/v1/versiones/{version}` answers it. */
const VersionDetail = Type.Composite([Version, Type.Object({ cobertura: Coverage })]);
export type VersionDetail = Static<typeof VersionDetail>;

const VersionPath = Type.Object({ version: Type.String() });

export function versionRoute(ctx: VersionesContext): OpenRoute<Checked<{ params: typeof VersionPath }>> {
  return typed(
    { params: VersionPath },
    {
      onRequest: ctx.protect,
      schema: {
        operationId: 'version',
        summary: 'One dataset version',
        description: 'One dataset version by its identifier, as the list gives it; 404 when the service holds no such version.',
        tags: ['versiones'],
        security: [{ HTTPBearer: [] }],
        response: {
          200: { description: 'Successful Response', ...VersionDetail },
          404: { description: 'No such version', $ref: 'ErrorMessage#' },
        },
      },
      handler: async (request): Promise<VersionDetail> => {
        const { version } = request.params;
        const found = ctx.datasets.versions().find((v) => v.version === version);
        if (!found) throw refusal('NO_VERSION', { version });
        const store = ctx.datasets.storeFor(found.version);
        const reglas = store === undefined ? [] : (await indiceDeStore(store)).acuerdos;
        // The record sets' counts and the rules' list side by side, as the schema above declares them.
        const cobertura = { ...(await ctx.datasets.coverage(found)), reglas_origen: [...reglas] } as VersionDetail['cobertura'];
        return { ...versionJson(found, ctx.datasets.current().version), cobertura };
      },
    },
  );
}
