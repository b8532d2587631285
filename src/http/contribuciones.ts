/**
 * `POST /api/v1/contribuciones`: what an import will pay and what it needs
 * (../shared/spec/contribuciones.md). The body is checked by hand with Pydantic's error shapes; the
 * records of every line are read in one batch per record set; the computation is pure
 * (src/contribuciones/). Bearer-protected like every business route, checked before the body is read.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import pLimit from 'p-limit';
import { answerContribuciones } from '../contribuciones/answer.js';
import { answerJson, paced } from '../contribuciones/compute.js';
import { DECIMAL_PATTERNS, MAX_LINES, REGIMES, parseRequest } from '../contribuciones/request.js';
import { contributionSources } from '../contribuciones/sources.js';
import type { Tables } from '../contribuciones/tables.js';
import { loadTables } from '../contribuciones/tables.js';
import type { RecordSet } from '../record-sets/define.js';
import { mexicoCityDate } from '../store/versions.js';
import type { Store } from '../store/store.js';
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
   * served dataset answers for every date.
   */
  readonly storeOn?: (fecha: string) => { readonly store: Store; readonly version: string | undefined };
  readonly tables?: Tables;
  /**
   * The store whose exchange-rate series gives the rate of `fecha` when a request needs one and gives
   * none: the current version's (docs/contribuciones.md says why); the served store when not given.
   */
  readonly ratesStore?: () => Store;
  /** Today in Mexico City (`YYYY-MM-DD`) by the app's clock: the `fecha` of a request that names none. */
  readonly today?: () => string;
}

const decimalString = (pattern: string, description: string) => ({ type: 'string', pattern, description });

const requestSchema = {
  $id: 'ContribucionesRequest',
  title: 'ContribucionesRequest',
  type: 'object',
  properties: {
    fecha: { type: 'string', format: 'date', description: 'Date of entry of the goods (Ley Aduanera art. 56); default today in Mexico City' },
    pais_origen: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'Country of origin, Anexo 22 apéndice 4 key (USA, CHN, DEU…)' },
    regimen: { type: 'string', enum: [...REGIMES], default: 'definitivo' },
    tipo_cambio: decimalString(
      DECIMAL_PATTERNS.exchangeRate,
      'Pesos per US dollar for converting specific amounts in dollars; when not given, the rate the data holds for `fecha` is used and named in `tipo_cambio_aplicado` (a 422 on this field when it holds none)',
    ),
    partidas: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_LINES,
      items: {
        type: 'object',
        properties: {
          fraccion: { type: 'string', description: '8 digits, or 10 for fraction + NICO; dots and spaces are ignored', examples: ['0101.21.01'] },
          nico: { type: 'string', pattern: '^[0-9]{2}$', description: 'Needed when the fraction has several NICO and fraccion has 8 digits' },
          valor_aduana: decimalString(DECIMAL_PATTERNS.money, 'Customs value in pesos (Ley Aduanera arts. 64–65)'),
          cantidad_umt: decimalString(DECIMAL_PATTERNS.quantity, 'Quantity in the tariff unit, when a specific amount needs it'),
          certificado_origen: { type: 'boolean', default: false, description: 'The goods qualify as originating and the proof of origin is held' },
          sector_prosec: { type: 'string', description: 'PROSEC sector of the importer (I … XXIV)' },
          exportador: { type: 'string', description: "Exporter's name, to pick a company-specific compensatory duty" },
        },
        required: ['fraccion', 'valor_aduana'],
      },
    },
  },
  required: ['pais_origen', 'partidas'],
  examples: [{ fecha: '2024-06-03', pais_origen: 'USA', partidas: [{ fraccion: '0101.21.01.00', valor_aduana: '100000.00', certificado_origen: true }] }],
};

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
};

const nullableString = { type: ['string', 'null'] };

const responseSchemas = [
  {
    $id: 'Contribucion',
    title: 'Contribucion',
    type: 'object',
    properties: {
      clave: { type: 'string', enum: ['IGI', 'DTA', 'CC', 'IEPS', 'IVA'] },
      base: { type: 'string' },
      tasa: { type: 'string', description: 'Percent' },
      cuota: { type: 'string', description: 'Specific amount per `unidad`' },
      unidad: { type: 'string' },
      tipo: { type: 'string', enum: ['ad valorem', 'especifico', 'mixto', 'exento', 'cuota minima'] },
      importe: { type: 'string', description: 'As paid: whole pesos (CFF art. 20)' },
      importe_exacto: { type: 'string', description: 'To the centavo, half up' },
      fundamento: { type: 'string' },
      fuente: {
        type: 'object',
        description: 'The record (conjunto, id) or the project table (tabla, fila) the rate came from',
        properties: { conjunto: { type: 'string' }, id: { type: ['integer', 'string', 'null'] }, tabla: { type: 'string' }, fila: { type: 'integer' } },
        additionalProperties: true,
      },
    },
    required: ['clave', 'base', 'tipo', 'importe', 'importe_exacto', 'fundamento', 'fuente'],
  },
  {
    $id: 'OpcionContribuciones',
    title: 'OpcionContribuciones',
    type: 'object',
    properties: {
      tratamiento: { type: 'string', enum: ['general', 'tlc', 'aladi', 'prosec', 'cupo'] },
      acuerdo: { type: 'string' },
      contribuciones: { type: 'array', items: { $ref: 'Contribucion#' } },
      identificadores: { type: 'array', items: { type: 'string' } },
      total: { type: 'string' },
    },
    required: ['tratamiento', 'contribuciones', 'identificadores', 'total'],
  },
  {
    $id: 'PartidaContribuciones',
    title: 'PartidaContribuciones',
    type: 'object',
    properties: {
      fraccion: { type: 'string' },
      nico: { type: 'string' },
      descripcion: nullableString,
      umt: nullableString,
      valor_aduana: { type: 'string' },
      opciones: { type: 'array', items: { $ref: 'OpcionContribuciones#' } },
      mejor_opcion: { type: 'string' },
      requisitos: {
        type: 'array',
        items: {
          type: 'object',
          properties: { conjunto: { type: 'string' }, id: { type: ['integer', 'string', 'null'] }, descripcion: { type: 'string' } },
          required: ['conjunto', 'id', 'descripcion'],
        },
      },
      notas: { type: 'array', items: { type: 'string' } },
      ausencias: {
        type: 'array',
        description:
          'Preferences the origin’s agreements with Mexico grant (the project’s table data/contribuciones/acuerdos.csv, with the country’s groups) of which the loaded data holds no record for the fraction: absence in the data, not absence of the preference. Each is also a note ("Los datos cargados no registran preferencia …"), so that the general treatment is never the best option without it.',
        items: {
          type: 'object',
          properties: {
            tratamiento: { type: 'string', enum: ['tlc', 'aladi'] },
            conjunto: { type: 'string', description: 'The record set that holds such preferences' },
            acuerdos: { type: 'array', items: { type: 'string' }, description: 'The agreements in force on `fecha` under which the origin has preferences' },
            nota: { type: 'string' },
          },
          required: ['tratamiento', 'conjunto', 'acuerdos', 'nota'],
        },
      },
    },
    required: ['fraccion', 'nico', 'descripcion', 'umt', 'valor_aduana', 'opciones', 'mejor_opcion', 'requisitos', 'notas', 'ausencias'],
  },
  {
    $id: 'ContribucionesResponse',
    title: 'ContribucionesResponse',
    type: 'object',
    properties: {
      fecha: { type: 'string' },
      pais_origen: { type: 'string' },
      regimen: { type: 'string' },
      tipo_cambio_aplicado: {
        type: 'object',
        description:
          'Present when a conversion from US dollars used the exchange rate of `fecha` because the request gave no `tipo_cambio`: the Banxico FIX determined on `determinado` and published in the DOF on `publicado_dof`, the last banking day before `fecha` (CFF art. 20; Ley Aduanera art. 56; GET /api/v1/tipos-cambio)',
        properties: {
          tipo_cambio: { type: 'string', description: 'Pesos per US dollar, as published' },
          determinado: { type: 'string', format: 'date' },
          publicado_dof: { type: 'string', format: 'date' },
        },
        required: ['tipo_cambio', 'determinado', 'publicado_dof'],
      },
      partidas: { type: 'array', items: { $ref: 'PartidaContribuciones#' } },
      totales: { type: 'object', properties: { general: { type: 'string' }, mejor: { type: 'string' } }, required: ['general', 'mejor'] },
      advertencias: { type: 'array', items: { type: 'string' } },
    },
    required: ['fecha', 'pais_origen', 'regimen', 'partidas', 'totales', 'advertencias'],
  },
];

/** The route, for the routing table (routes.ts); its schemas are added to `app` for the responses to refer to. */
/**
 * Estimates computed at once; the others wait their turn, without holding the event loop. Each one
 * gives the loop a turn every TURN_BUDGET_MS, but every estimate in progress takes its budget on each
 * turn, so with eight 500-line requests at once a lookup waited up to 77 ms (bench:contribuciones,
 * /health p99); with two at a time, no longer than two budgets. Two rather than one so that an estimate
 * waiting for PostgreSQL's records does not leave the CPU idle.
 */
const ESTIMATES_AT_ONCE = 2;

export function contribucionesRoute(app: FastifyInstance, ctx: ContribucionesContext): OpenRoute {
  app.addSchema(requestSchema);
  for (const schema of responseSchemas) app.addSchema(schema);
  const sources = contributionSources(ctx.recordSets);
  const tables = ctx.tables ?? loadTables();
  const storeOn = ctx.storeOn ?? (() => ({ store: ctx.store(), version: undefined }));
  const ratesStore = ctx.ratesStore ?? ctx.store;
  const today = ctx.today ?? (() => mexicoCityDate(new Date()));
  const inTurn = pLimit(ESTIMATES_AT_ONCE);
  return {
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
      body: { $ref: 'ContribucionesRequest#' },
      response: {
        200: { description: 'Successful Response', $ref: 'ContribucionesResponse#' },
        401: { description: 'Not authenticated, or the token is not valid', $ref: 'ErrorMessage#' },
        404: { description: "A line's fraction (and NICO) is not in the data", $ref: 'ErrorMessage#' },
        413: { description: 'The body is over 1 MiB', $ref: 'ErrorMessage#' },
        422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
      },
    },
    // Serialised here rather than by the response schema, which would put optional fields (tasa, cuota,
    // acuerdo) after the required ones: the answer keeps the contract's order; the schema documents it.
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const question = parseRequest(request.body, today());
      const { store, version } = storeOn(question.fecha);
      if (version !== undefined) void reply.header('x-dataset-version', version);
      const json = await inTurn(async () => {
        const answer = await answerContribuciones(store, sources, tables, question, { ratesStore: ratesStore(), paced: true });
        return paced(answerJson(answer));
      });
      // An answer about one shipment, computed on request: never stored by a cache on the way.
      return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(json);
    },
  };
}
