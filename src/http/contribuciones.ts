/**
 * `POST /api/v1/contribuciones`: what an import will pay and what it needs
 * (../shared/spec/contribuciones.md). The body and the answer are TypeBox schemas
 * (src/contribuciones/schema.ts): the operation documents them, the body is checked by its schema
 * (src/http/typed.ts) then refined into normalised parameters (src/contribuciones/request.ts); the records of
 * every line are read in one batch per record set; the computation is pure (src/contribuciones/).
 * Bearer-protected like every business route, checked before the body is read.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import pLimit from 'p-limit';
import { contribucionesResult } from '../contribuciones/answer.js';
import { answerJson, paced } from '../contribuciones/compute.js';
import { contribucionesParameters } from '../contribuciones/request.js';
import { ANSWER_SCHEMAS, ContribucionesBody } from '../contribuciones/schema.js';
import { contribucionesSources, countryKeys } from '../contribuciones/sources.js';
import type { Tables } from '../contribuciones/tables.js';
import { loadTables } from '../contribuciones/tables.js';
import type { RecordSet } from '../record-sets/define.js';
import { conNotasDeOrigen } from '../reglas-origen/contribuciones.js';
import { indiceDeStore } from '../reglas-origen/indice.js';
import { mexicoCityDate } from '../store/versions.js';
import type { Store } from '../store/store.js';
import type { Checked } from './contract.js';
import { typed } from './contract.js';
import type { OpenRoute } from './route-kinds.js';

/** A body of 500 lines fits with room to spare; a larger one is a 413. */
export const CONTRIBUCIONES_BODY_LIMIT = 1024 * 1024;

export interface ContribucionesContext {
  readonly store: () => Store;
  readonly protect: onRequestHookHandler;
  readonly recordSets: readonly RecordSet[];
  /**
   * The store holding the dataset in force on `fecha` (Ley Aduanera art. 56) and that version's name,
   * which the answer carries in `X-Dataset-Version` as every business answer does. Without it the
   * main store's dataset answers for every date.
   */
  readonly storeOn?: (fecha: string) => { readonly store: Store; readonly version: string | undefined };
  readonly tables?: Tables;
  /**
   * The store whose exchange-rate series gives the rate of `fecha` when a request needs one and gives
   * none: the current version's (docs/contribuciones.md says why); the main store when not given.
   */
  readonly ratesStore?: () => Store;
  /** Today in Mexico City (`YYYY-MM-DD`) by the app's clock: the `fecha` of a request that names none. */
  readonly today?: () => string;
}

/** The request body's examples in the OpenAPI document, as a client would send them. */
const REQUEST_EXAMPLES = {
  una_partida: {
    summary: 'One line: live horses from the United States with proof of origin (T-MEC)',
    value: { fecha: '2024-06-03', pais_origen: 'USA', partidas: [{ fraccion: '0101.21.01.00', valor_aduana: '100000.00', certificado_origen: true }] },
  },
  varias_partidas: {
    summary: 'Several lines from China, one with a specific amount in dollars (tipo_cambio and cantidad_umt)',
    value: {
      pais_origen: 'CHN',
      regimen: 'definitivo',
      tipo_cambio: '17.1234',
      partidas: [
        { fraccion: '7208.51.01', valor_aduana: '250000.00' },
        { fraccion: '2203.00.01', valor_aduana: '48000.00', cantidad_umt: '1200.000' },
      ],
    },
  },
} satisfies Record<string, { summary: string; value: ContribucionesBody }>;

/**
 * Estimates computed at once; the others wait their turn, without holding the event loop. Each one
 * gives the loop a turn every TURN_BUDGET_MS, but every estimate in progress takes its budget on each
 * turn, so with eight 500-line requests at once a lookup waited up to 77 ms (bench:contribuciones,
 * /health p99); with two at a time, no longer than two budgets. Two rather than one so that an estimate
 * waiting for PostgreSQL's records does not leave the CPU idle.
 */
const ESTIMATES_AT_ONCE = 2;

/** The route, for the routing table (routes.ts); its schemas are added to `app` for the responses to refer to. */
const parts = { body: ContribucionesBody };

export function contribucionesRoute(app: FastifyInstance, ctx: ContribucionesContext): OpenRoute<Checked<typeof parts>> {
  for (const schema of [ContribucionesBody, ...ANSWER_SCHEMAS]) app.addSchema(schema);
  const sources = contribucionesSources(ctx.recordSets);
  const tables = ctx.tables ?? loadTables();
  const storeOn = ctx.storeOn ?? (() => ({ store: ctx.store(), version: undefined }));
  const ratesStore = ctx.ratesStore ?? ctx.store;
  const today = ctx.today ?? (() => mexicoCityDate(new Date()));
  const inTurn = pLimit(ESTIMATES_AT_ONCE);
  return typed(parts, {
    onRequest: ctx.protect,
    bodyLimit: CONTRIBUCIONES_BODY_LIMIT,
    config: { requestExamples: REQUEST_EXAMPLES },
    schema: {
      operationId: 'post_contribuciones',
      summary: 'What an import will pay: IGI, DTA, compensatory duties, IEPS and IVA per line, each preference it qualifies for, and the requirements',
      description:
        'For each line (fraction, customs value, quantity) and the country of origin: every duty and tax with its base, rate, amount ' +
        'in whole pesos and the record or legal basis it comes from, under the general rate and under each preference the goods qualify ' +
        'for (trade agreements, ALADI, PROSEC, quotas), the cheapest option, and the permits, regulations and NOMs that apply. Computed ' +
        'from the dataset version in force on `fecha` (Ley Aduanera art. 56); 404 when a fraction is not in it.',
      tags: ['contribuciones'],
      security: [{ HTTPBearer: [] }],
      response: {
        200: { description: 'Successful Response', $ref: 'ContribucionesResponse#' },
        404: { description: "A line's fraction (and NICO) is not in the data", $ref: 'ErrorMessage#' },
        413: { description: 'The body is over 1 MiB', $ref: 'ErrorMessage#' },
        422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
      },
    },
    // Serialised here rather than by the response schema, which would put optional fields (tasa, cuota,
    // acuerdo) after the required ones: the answer keeps the contract's order; the schema documents it.
    handler: async (request, reply) => {
      const parameters = contribucionesParameters(request.body, today());
      const { store, version } = storeOn(parameters.fecha);
      if (version !== undefined) void reply.header('x-dataset-version', version);
      const json = await inTurn(async () => {
        const result = await contribucionesResult(store, sources, tables, parameters, { ratesStore: ratesStore(), paced: true });
        // A tlc option names the rule of origin its goods must meet (../shared/spec/reglas-origen.md, "Elsewhere").
        const countries = countryKeys(parameters.paisOrigen, tables.groups);
        return paced(answerJson(conNotasDeOrigen(result, await indiceDeStore(store), tables, countries)));
      });
      // An answer about one shipment, computed on request: never stored by a cache on the way.
      return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(json);
    },
  });
}
