/**
 * `GET /api/v1/ficha/{fraccion}`: everything about one fraction in one call, the question a customs
 * broker actually asks. Built from the registry like every other route: each record set with a
 * `fraccion` filter contributes its records; the correlation table both ways; the US lines of the
 * same HS subheading.
 */
import type { FastifyInstance } from 'fastify';
import type { RecordSet } from '../record-sets/define.js';
import type { Condition } from '../store/sql.js';
import type { Row, Store } from '../store/store.js';
import type { ParamSpec } from './params.js';
import { conditionsFor } from './records.js';
import { RequestValidationError, notFound } from './errors.js';
import type { ProtectedContext } from './routes.js';
import { parseDeclared, protectedGet } from './routes.js';

/** More than any fraction has in any record set; a ficha is one answer, not a page. */
const PER_SET_LIMIT = 1000;

const PARAMS: readonly ParamSpec[] = [
  {
    name: 'fraccion',
    in: 'path',
    kind: 'fraction',
    description: 'Tariff fraction of 8 digits, or 10 for fraction + NICO; dots and spaces are ignored (0101.21.01.00).',
  },
  { name: 'nico', in: 'query', kind: 'nico', description: 'NICO: only records of this NICO and those that apply to the whole fraction' },
  { name: 'pais', in: 'query', kind: 'code', maxLength: 3, description: 'Country key: only records for this country and those for every country' },
];

export interface FichaContext extends ProtectedContext {
  readonly recordSets: readonly RecordSet[];
}

const hasField = (rs: RecordSet, name: string): boolean => rs.fields.some((f) => f.name === name);
const fractionFilterOf = (rs: RecordSet) => rs.filters.find((f) => f.rule === 'fraction' && f.param === 'fraccion');

/** Records that apply to the whole fraction or to every country carry no NICO or PAIS: they stay. */
function narrowing(rs: RecordSet, nicoField: string | undefined, nico: string | undefined, pais: string | undefined): Condition[] {
  const conditions: Condition[] = [];
  if (nico && nicoField) conditions.push({ kind: 'or', any: [{ kind: 'eq', field: nicoField, value: nico }, { kind: 'null', field: nicoField }] });
  if (pais && hasField(rs, 'PAIS')) conditions.push({ kind: 'or', any: [{ kind: 'ci', field: 'PAIS', value: pais }, { kind: 'null', field: 'PAIS' }] });
  return conditions;
}

async function all(store: Store, rs: RecordSet, conditions: Condition[]): Promise<Row[]> {
  return store.search(rs, { conditions, skip: 0, limit: PER_SET_LIMIT });
}

/** The record sets a ficha reads, found in the registry once, when the route is registered. */
interface FichaSets {
  readonly fracciones: RecordSet;
  readonly anteriores: RecordSet;
  readonly usa: RecordSet;
  /** Every record set with a `fraccion` filter, with the column holding its NICO. */
  readonly withFraction: readonly { readonly rs: RecordSet; readonly nicoField: string }[];
}

function fichaSets(recordSets: readonly RecordSet[]): FichaSets {
  const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
  const withFraction = recordSets.flatMap((rs) => {
    const filter = fractionFilterOf(rs);
    return filter?.rule === 'fraction' ? [{ rs, nicoField: filter.nicoField }] : [];
  });
  return { fracciones: byPath.get('fracciones')!, anteriores: byPath.get('fracciones-anteriores')!, usa: byPath.get('fracciones-usa')!, withFraction };
}

async function ficha(sets: FichaSets, store: Store, digits: string, nicoParam: string | undefined, pais: string | undefined) {
  const fraction = digits.slice(0, 8);
  const nico = digits.length === 10 ? digits.slice(8) : nicoParam;
  if (digits.length === 10 && nicoParam !== undefined && nicoParam !== nico) throw notFound('Fraction not found');
  const { fracciones, anteriores, usa } = sets;
  const master = await all(store, fracciones, [...conditionsFor(fracciones, { fraccion: fraction }), ...narrowing(fracciones, 'NICO', nico, undefined)]);
  if (master.length === 0) throw notFound('Fraction not found');

  const result: Record<string, unknown> = { fraccion: fraction, nico: nico ?? null };
  for (const { rs, nicoField } of sets.withFraction) {
    result[rs.path] =
      rs === fracciones ? master : await all(store, rs, [...conditionsFor(rs, { fraccion: fraction }), ...narrowing(rs, nicoField, nico, pais)]);
  }
  result['fracciones-anteriores'] = {
    reemplaza: await all(store, anteriores, [...conditionsFor(anteriores, { fraccion_actual: fraction }), ...narrowing(anteriores, 'NICOACTUAL', nico, undefined)]),
    reemplazada_por: await all(store, anteriores, [...conditionsFor(anteriores, { fraccion_anterior: fraction }), ...narrowing(anteriores, 'NICOANTERIOR', nico, undefined)]),
  };
  result['fracciones-usa'] = await all(store, usa, conditionsFor(usa, { fraccion: fraction.slice(0, 6) }));
  return result;
}

export function fichaSchema(recordSets: readonly RecordSet[]): Record<string, unknown> {
  const arrayOf = (rs: RecordSet) => ({ type: 'array', items: { $ref: `${rs.schema}#` } });
  const anteriores = recordSets.find((rs) => rs.path === 'fracciones-anteriores')!;
  const properties: Record<string, unknown> = {
    fraccion: { type: 'string', description: 'The 8-digit fraction' },
    nico: { type: ['string', 'null'], description: 'The NICO asked for, if any' },
  };
  // The fraction's own records first, then every other record set in the registry's order.
  const first = ['fracciones', 'informacion-general'];
  const ordered = [...recordSets.filter((rs) => first.includes(rs.path)), ...recordSets.filter((rs) => !first.includes(rs.path))];
  for (const rs of ordered) if (fractionFilterOf(rs)) properties[rs.path] = arrayOf(rs);
  properties['fracciones-anteriores'] = {
    type: 'object',
    description: 'The fractions this one replaced (reemplaza) and those that replaced it (reemplazada_por)',
    properties: { reemplaza: arrayOf(anteriores), reemplazada_por: arrayOf(anteriores) },
    required: ['reemplaza', 'reemplazada_por'],
  };
  properties['fracciones-usa'] = { ...arrayOf(recordSets.find((rs) => rs.path === 'fracciones-usa')!), description: 'US HTS lines of the same HS subheading' };
  return { $id: 'Ficha', title: 'Ficha', type: 'object', properties, required: Object.keys(properties) };
}

export function registerFicha(app: FastifyInstance, ctx: FichaContext): void {
  app.addSchema(fichaSchema(ctx.recordSets));
  const sets = fichaSets(ctx.recordSets);
  const parse = parseDeclared(PARAMS);
  protectedGet(app, ctx, {
    url: '/api/v1/ficha/:fraccion',
    operationId: 'get_ficha',
    summary: 'Everything that applies to one fraction, in one answer',
    tag: 'ficha',
    params: PARAMS,
    responses: {
      200: { description: 'Successful Response', $ref: 'Ficha#' },
      404: { description: 'No such fraction', $ref: 'ErrorMessage#' },
    },
    parse: (request) => {
      const p = parse(request);
      const digits = String(p['fraccion']);
      if (digits.length !== 8 && digits.length !== 10) {
        throw new RequestValidationError([
          {
            type: 'string_pattern_mismatch',
            loc: ['path', 'fraccion'],
            msg: 'A ficha is for one fraction: 8 digits, or 10 for fraction + NICO',
            input: (request.params as Record<string, string>)['fraccion'],
            ctx: { pattern: '^[0-9]{8}([0-9]{2})?$' },
          },
        ]);
      }
      return { digits, nico: p['nico'] as string | undefined, pais: p['pais'] as string | undefined };
    },
    answer: (store, q) => ficha(sets, store, q.digits, q.nico, q.pais),
  });
}
