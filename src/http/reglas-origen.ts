/**
 * `GET /api/v1/reglas-origen/{fraccion}` and `POST /api/v1/reglas-origen/evaluar`
 * (../shared/spec/reglas-origen.md): the product-specific rules of origin that apply to a fraction
 * under each agreement in force, and a bill of materials held against them. The rules are the
 * version's (src/reglas-origen/indice.ts); the answers are put together in src/reglas-origen/answer.ts;
 * this module reads the request and names the version. Bearer-protected like every business route.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { loadTables } from '../contribuciones/tables.js';
import type { Tables } from '../contribuciones/tables.js';
import { ownFractionFilter } from '../record-sets/define.js';
import { filterConditions } from '../record-sets/filters.js';
import { fracciones } from '../record-sets/fracciones.js';
import type { Pregunta } from '../reglas-origen/answer.js';
import { EntradaDesconocida, decimal, evaluar, paisValido, reglasDeFraccion, resolverAcuerdo } from '../reglas-origen/answer.js';
import { indiceDeStore } from '../reglas-origen/indice.js';
import type { IndiceReglas } from '../reglas-origen/indice.js';
import type { EvaluarOrigen } from '../reglas-origen/schema.js';
import { EvaluarBody, EvaluarOrigen as EvaluarOrigenSchema, ReglasOrigen, MAX_MATERIALES } from '../reglas-origen/schema.js';
import type { Datasets } from '../store/datasets.js';
import type { Store } from '../store/store.js';
import type { ValidationDetail } from './errors.js';
import { RequestValidationError, refusal } from './errors.js';
import type { ParamSpec, ParsedOf } from './params.js';
import { fields, parseParams } from './params.js';
import type { OpenRoute, ProtectedGet } from './route-kinds.js';
import type { Static, TObject } from '@sinclair/typebox';
import type { Checked, Read } from './contract.js';
import { pathParams, queryParams, typed } from './contract.js';
import { typedDigits } from '../fraccion.js';
import type { ErrorCode } from '../error-codes.js';
import { errorMessage } from '../error-codes.js';

const FRACCION_PATTERN = '^[0-9]{8}([0-9]{2})?$';

const FRACCION = {
  name: 'fraccion',
  in: 'path',
  kind: 'fraction',
  description: 'Tariff fraction of 8 digits, or 10 for fraction + NICO; dots and spaces are ignored (4823.20.01).',
} as const satisfies ParamSpec;

const QUERY = [
  { name: 'acuerdo', in: 'query', kind: 'text', maxLength: 200, description: 'Only this agreement (as acuerdos.csv names it: TIPAT, T-MEC…; any case)' },
  { name: 'pais', in: 'query', kind: 'code', maxLength: 3, description: 'Only the agreements in force with this country (ISO 3166 alpha-3, apéndice 4)' },
  { name: 'fecha', in: 'query', kind: 'date', description: 'The agreements in force on this date (YYYY-MM-DD); `as_of`, else today, when not given' },
] as const satisfies readonly ParamSpec[];

/** The fraction in the path, read as any fraction is: one of 8 digits, or 10 with its NICO. */
const fraccionParam: Read<{ readonly fraccion: string }, TObject> = {
  schema: pathParams([FRACCION]).schema,
  read: (value) => ({ fraccion: fraccionDe(parseParams([FRACCION], fields(value), {}).fraccion ?? '', ['path', 'fraccion']) }),
};

/** The query, read by its parameters' rules; a country must be one the tables know. */
function questionQuery(tables: Tables): Read<ParsedOf<typeof QUERY>, TObject> {
  const { schema } = queryParams(QUERY);
  return {
    schema,
    read: (value) => {
      const p = parseParams(QUERY, {}, fields(value));
      if (p.pais !== undefined && !paisValido(p.pais, tables)) throw refused('ORIGEN_UNKNOWN_COUNTRY', ['query', 'pais'], p.pais);
      return p;
    },
  };
}

interface Parameters {
  /** The fraction's 8 digits, or 10 with its NICO. */
  readonly digits: string;
  readonly acuerdo: string | undefined;
  readonly pais: string | undefined;
  readonly fecha: string;
  /** The `as_of` the request names (checked by the route kind), for the version the answer names. */
  readonly asOf: string | undefined;
}

const invalid = (loc: (string | number)[], msg: string, input: unknown, type = 'value_error'): RequestValidationError =>
  new RequestValidationError([{ type, loc, msg, input }]);

/** A refusal of the table of codes, its message as these routes have always written it (no `Value error, `). */
const refused = (code: ErrorCode, loc: (string | number)[], input: unknown): RequestValidationError =>
  new RequestValidationError([{ type: 'value_error', loc, msg: errorMessage(code), input, ctx: { code } }]);

/** A fraction of 8 digits or 10 (with its NICO) in any typed form, or the 422 at `loc`. */
function fraccionDe(raw: unknown, loc: (string | number)[]): string {
  const digits = typeof raw === 'string' ? typedDigits(raw) : '';
  if (/^\d{8}(\d{2})?$/.test(digits)) return digits;
  const detail: ValidationDetail = {
    type: 'string_pattern_mismatch',
    loc,
    msg: 'A rule of origin is for one fraction: 8 digits, or 10 for fraction + NICO',
    input: raw,
    ctx: { pattern: FRACCION_PATTERN },
  };
  throw new RequestValidationError([detail]);
}

/** The fraction (and NICO) in the version, or the contract's 404. */
async function fraccionExiste(store: Store, digits: string): Promise<void> {
  const master = ownFractionFilter(fracciones);
  if (!master) throw new Error(`${fracciones.path} has no fraction filter`);
  const fraction = digits.slice(0, 8);
  const rows = await store.search(fracciones, { conditions: filterConditions(master, fraction), skip: 0, limit: 1000 });
  const nico = digits.length === 10 ? digits.slice(8) : undefined;
  const field = master.nicoField;
  const found = rows.filter((r) => nico === undefined || field === undefined || r[field] === nico || r[field] === null);
  if (found.length === 0) throw refusal('FRACTION_NOT_FOUND');
}

/** The question's agreement, resolved among those known, or a 422 on `loc`. */
function acuerdoDe(nombre: string | undefined, tables: Tables, indice: IndiceReglas, loc: (string | number)[]): string | undefined {
  if (nombre === undefined) return undefined;
  const resolved = resolverAcuerdo(nombre, tables, indice);
  if (resolved === undefined) {
    const known = [...new Set((tables.acuerdos ?? []).filter((a) => a.tratamiento === 'tlc').map((a) => a.acuerdo))];
    throw invalid(loc, `Unknown agreement: expected one of ${known.map((k) => `'${k}'`).join(', ')}`, nombre, 'enum');
  }
  return resolved;
}

/** The 10-digit code a rule set is looked up by: 8 digits + NICO, or + 00. */
const codigoDiez = (digits: string): string => (digits.length === 10 ? digits : `${digits}00`);

export interface ReglasOrigenContext {
  readonly datasets: Datasets;
  readonly tables?: Tables;
}

export function reglasOrigenRoute(
  ctx: ReglasOrigenContext,
): ProtectedGet<{ readonly fraccion: string }, ParsedOf<typeof QUERY>, Parameters, typeof ReglasOrigen> {
  const tables = ctx.tables ?? loadTables();
  return {
    ok: ReglasOrigen,
    operationId: 'get_reglas_origen',
    summary: 'The rules of origin a fraction must meet for each trade preference, as published and as requirements a program can check',
    description:
      'For each free-trade agreement in force on `fecha` (only `acuerdo`, or only those with `pais`, when given) whose product-specific rules ' +
      'of origin are loaded: every rule set that applies to the fraction (its 10-digit code within the set’s bounds), with the text as ' +
      'published (`idioma`), its structure (`alternativas` of `requisitos`), the project’s own Spanish reading (`texto_es`) and where it is in ' +
      'its file; `sin_reglas` names the agreements in force with no rule loaded. 404 for a fraction the data does not hold; 422 for an ' +
      'unknown agreement or country.',
    tag: 'reglas-origen',
    parts: { params: fraccionParam, querystring: questionQuery(tables) },
    responses: { 404: { description: 'No such fraction', $ref: 'ErrorMessage#' } },
    // Without `fecha` or `as_of` the parameters take today's date: the same URL asks for another day tomorrow.
    urlNamesParameters: ({ query }) => query.fecha !== undefined || query.as_of !== undefined,
    parameters: ({ params, query: { acuerdo, pais, fecha, as_of } }) => ({
      digits: params.fraccion,
      acuerdo: acuerdo?.trim() || undefined,
      pais,
      fecha: fecha ?? as_of ?? ctx.datasets.today(),
      asOf: as_of,
    }),
    compute: async (store, q) => {
      const indice = await indiceDeStore(store);
      const pregunta: Pregunta = { acuerdo: acuerdoDe(q.acuerdo, tables, indice, ['query', 'acuerdo']), pais: q.pais, fecha: q.fecha };
      await fraccionExiste(store, q.digits);
      const version = (q.asOf === undefined ? ctx.datasets.current() : ctx.datasets.on(q.asOf))?.version?.version ?? null;
      const { reglas, sin_reglas } = reglasDeFraccion(indice, tables, codigoDiez(q.digits), pregunta);
      return { fraccion: q.digits.slice(0, 8), nico: q.digits.length === 10 ? q.digits.slice(8) : null, version, reglas, sin_reglas };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The evaluation

/** A body of 1,000 materials with long descriptions fits; a larger one is a 413. */
export const EVALUAR_BODY_LIMIT = 1024 * 1024;

const evaluarParts = { body: EvaluarBody };

export interface EvaluarContext {
  readonly datasets: Datasets;
  readonly protect: onRequestHookHandler;
  readonly tables?: Tables;
}

/** The evaluation of a bill of materials, as the MCP tool and the route answer it. */
export async function evaluarOrigen(
  datasets: Datasets,
  tables: Tables,
  b: Static<typeof EvaluarBody>,
): Promise<{ answer: EvaluarOrigen; version: string | undefined }> {
  let digits = fraccionDe(b.fraccion, ['body', 'fraccion']);
  if (b.nico !== undefined && b.nico !== null) {
    if (digits.length === 10 && digits.slice(8) !== b.nico) throw refused('ORIGEN_NICO_MISMATCH', ['body', 'nico'], b.nico);
    digits = `${digits.slice(0, 8)}${b.nico}`;
  }
  const materiales = b.materiales.map((m, i) => {
    const codigo = typedDigits(m.fraccion);
    if (!/^\d{2,10}$/.test(codigo)) {
      throw invalid(['body', 'materiales', i, 'fraccion'], 'A material’s fraction: 2 to 10 digits, any typed form', m.fraccion, 'string_pattern_mismatch');
    }
    return { codigo, originario: m.originario, valor: decimal(m.valor)! };
  });
  const fecha = b.fecha ?? datasets.today();
  const inForce = datasets.on(fecha);
  if (!inForce) throw refusal('NO_DATASET_ON', { fecha });
  const { store, version } = inForce;
  const indice = await indiceDeStore(store);
  const acuerdo = acuerdoDe(b.acuerdo, tables, indice, ['body', 'acuerdo'])!;
  await fraccionExiste(store, digits);
  const v = b.valores ?? {};
  const hechos = {
    codigo: codigoDiez(digits),
    valores: { valor_transaccion: decimal(v.valor_transaccion), precio_franco_fabrica: decimal(v.precio_franco_fabrica), costo_neto: decimal(v.costo_neto) },
    totalmenteObtenido: b.totalmente_obtenido ?? undefined,
    materiales,
  };
  let evaluation;
  try {
    evaluation = evaluar(indice, acuerdo, hechos, b.entrada ?? undefined);
  } catch (error) {
    if (error instanceof EntradaDesconocida) throw refused('ORIGEN_NO_RULE_AT_ENTRY', ['body', 'entrada'], b.entrada);
    throw error;
  }
  const answer: EvaluarOrigen = {
    fraccion: digits.slice(0, 8),
    nico: digits.length === 10 ? digits.slice(8) : null,
    acuerdo,
    fecha,
    version: version?.version ?? null,
    ...evaluation,
  };
  return { answer, version: version?.version };
}

export function evaluarOrigenRoute(app: FastifyInstance, ctx: EvaluarContext): OpenRoute<Checked<typeof evaluarParts>> {
  for (const schema of [EvaluarBody, EvaluarOrigenSchema]) app.addSchema(schema);
  const tables = ctx.tables ?? loadTables();
  return typed(evaluarParts, {
    onRequest: ctx.protect,
    bodyLimit: EVALUAR_BODY_LIMIT,
    config: {
      requestExamples: {
        tornillos: {
          summary: 'Screws from Japan under TIPAT: wire rod not originating, with the values',
          value: {
            fraccion: '7318.15.99',
            acuerdo: 'TIPAT',
            valores: { valor_transaccion: '1000.00', precio_franco_fabrica: '950.00', costo_neto: '900.00' },
            totalmente_obtenido: false,
            materiales: [
              { fraccion: '7213.91', originario: false, valor: '300.00', descripcion: 'alambrón' },
              { fraccion: '7318.15', originario: true, valor: '50.00' },
            ],
          },
        },
      },
    },
    schema: {
      operationId: 'post_reglas_origen_evaluar',
      summary: 'Whether a bill of materials meets the rule of origin of a fraction under an agreement, requirement by requirement',
      description:
        'For every rule of `acuerdo` that applies to the fraction, each alternative and each requirement: `cumple`, `no_cumple` or ' +
        '`no_determinable`, the reason in Spanish, the materials that fail (their index in `materiales`) and the percentage computed exactly ' +
        '(build-up, build-down, focused value, net cost, maximum non-originating value; 2 decimals, half-up); what is missing to decide is ' +
        `named, never assumed. At most ${MAX_MATERIALES} materials. An estimate: the agreement’s general rules (de minimis, accumulation, ` +
        'tolerances, direct transport) are not applied. From the dataset version in force on `fecha`; 404 for a fraction the data does not hold.',
      tags: ['reglas-origen'],
      security: [{ HTTPBearer: [] }],
      response: {
        200: { description: 'Successful Response', $ref: 'EvaluarOrigenResponse#' },
        404: { description: 'The fraction (and NICO) is not in the data, or no dataset is in force on `fecha`', $ref: 'ErrorMessage#' },
        413: { description: 'The body is over 1 MiB', $ref: 'ErrorMessage#' },
        422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
      },
    },
    handler: async (request, reply) => {
      const { answer, version } = await evaluarOrigen(ctx.datasets, tables, request.body);
      if (version !== undefined) void reply.header('x-dataset-version', version);
      // An answer about one bill of materials, computed on request: never stored by a cache on the way.
      return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(JSON.stringify(answer));
    },
  });
}
