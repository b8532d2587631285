/**
 * `/api/v1/cambios`: what changed between the version in force on `desde` and the one in force on
 * `hasta` (../shared/spec/versiones.md). With `fraccion`, only that fraction's records are read from
 * each version through the usual indexed search (milliseconds). Without it, the store compares the two
 * versions record set by record set once per pair (versions never change, so the comparison is kept:
 * Datasets.changes), which gives the total; a page then reads only its own records from each version.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { onRequestHookHandler } from 'fastify';
import { fractionChanges, page, wholePage } from '../data/cambios.js';
import type { RecordSet } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import { CHANGE_KINDS } from '../store/core.js';
import type { Datasets } from '../store/datasets.js';
import type { VersionInfo } from '../store/versions.js';
import { RequestValidationError, refusal, valueError } from './errors.js';
import type { ParamSpec } from './params.js';
import { PAGING } from './params.js';
import type { Checked } from './contract.js';
import { queryParams, typed } from './contract.js';
import type { OpenRoute } from './route-kinds.js';
import { nullableText } from './schemas.js';

export interface CambiosContext {
  readonly datasets: Datasets;
  readonly protect: onRequestHookHandler;
}

const PARAMS = [
  { name: 'desde', in: 'query', kind: 'date', required: true, description: 'Changes since the version in force on this date (YYYY-MM-DD)' },
  { name: 'hasta', in: 'query', kind: 'date', description: 'Up to the version in force on this date (YYYY-MM-DD); today when not given' },
  {
    name: 'fraccion',
    in: 'query',
    kind: 'fraction',
    description: 'Only the records of this fraction (8 digits, 10 with NICO, fewer a prefix), on either side',
  },
  { name: 'conjunto', in: 'query', kind: 'text', description: 'Only this record set (its path: tlcs, aladi2, …)' },
  ...PAGING,
] as const satisfies readonly ParamSpec[];

/** A field's value as stored: a text (decimals and dates too), an integer, or none. */
const Value = Type.Unsafe<string | number | null>({ type: ['string', 'number', 'null'] });

/** One record added, removed or changed (../shared/spec/versiones.md). */
const Change = Type.Object({
  conjunto: Type.String({ description: 'The record set (its path: tlcs, aladi2, …)' }),
  id: Type.Union([Value, Type.Array(Value)], { description: 'The record’s identifier: its one value, or its values in key order when it has several fields' }),
  cambio: Type.Union(CHANGE_KINDS.map((kind) => Type.Literal(kind))),
  fraccion: nullableText({ description: 'The record’s fraction (of its `hasta` side when changed), if it has one' }),
  nico: nullableText({ description: 'The record’s NICO (of its `hasta` side when changed), if it has one' }),
  campos: Type.Optional(
    Type.Array(Type.Object({ campo: Type.String(), antes: Value, despues: Value }), {
      description: 'Only for `modificacion`: the fields whose values differ, each with its value in `desde` and in `hasta`',
    }),
  ),
});

/** The answer: a page of the changes between the two versions, ordered by record set (registry order), then identifier. */
const Cambios = Type.Object({
  desde_version: Type.String({ description: 'The version in force on `desde`' }),
  hasta_version: Type.String({ description: 'The version in force on `hasta`' }),
  items: Type.Array(Change),
  total: Type.Integer({ description: 'Changes matching the filters, all pages together' }),
  skip: Type.Integer(),
  limit: Type.Integer(),
});
export type Cambios = Static<typeof Cambios>;

function recordSetsAsked(conjunto: string | undefined): readonly RecordSet[] {
  if (conjunto === undefined) return recordSets;
  const rs = recordSets.find((r) => r.path === conjunto);
  if (rs) return [rs];
  const expected = recordSets.map((r) => `'${r.path}'`).join(', ');
  throw new RequestValidationError([{ type: 'enum', loc: ['query', 'conjunto'], msg: `Input should be ${expected}`, input: conjunto, ctx: { expected } }]);
}

/**
 * The 422 of a `hasta` before `desde`, on the parameter the client sent: `hasta` when given, else
 * `desde` (a date after today, which `hasta` defaults to), each with the client's own value.
 */
function hastaBeforeDesde(desde: string, given: string | undefined, hasta: string): RequestValidationError {
  if (given !== undefined) {
    return new RequestValidationError([valueError('CAMBIOS_HASTA_BEFORE_DESDE', ['query', 'hasta'], given)]);
  }
  return new RequestValidationError([valueError('CAMBIOS_DESDE_AFTER_TODAY', ['query', 'desde'], desde, { hasta })]);
}

/** The query, read by the parameters' rules; `desde` being required and `hasta` not before it are the handler's refinements. */
const parts = { querystring: queryParams(PARAMS) };

export function cambiosRoute(ctx: CambiosContext): OpenRoute<Checked<typeof parts>> {
  return typed(parts, {
    onRequest: ctx.protect,
    schema: {
      operationId: 'cambios',
      summary: 'What changed between the versions in force on two dates',
      description:
        'The records added, removed and changed between the dataset version in force on `desde` and the one in force on `hasta` ' +
        '(today when not given), for every record set or the one `conjunto` names, optionally for one fraction: a page (skip, limit) ' +
        'with the total; 404 when no version is in force on `desde`.',
      tags: ['versiones'],
      security: [{ HTTPBearer: [] }],
      response: {
        200: { description: 'Successful Response', ...Cambios },
        404: { description: 'No dataset in force on desde', $ref: 'ErrorMessage#' },
        422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
      },
    },
    handler: async (request): Promise<Cambios> => {
      const p = request.query;
      const desde = p.desde;
      if (desde === undefined) throw new RequestValidationError([{ type: 'missing', loc: ['query', 'desde'], msg: 'Field required', input: null }]);
      const given = p.hasta;
      const hasta = given ?? ctx.datasets.today();
      if (hasta < desde) throw hastaBeforeDesde(desde, given, hasta);
      const sets = recordSetsAsked(p.conjunto);
      const from = ctx.datasets.on(desde);
      const to = ctx.datasets.on(hasta);
      if (!from?.version || !to?.version) throw refusal('NO_DATASET_ON', { fecha: desde });
      const { skip, limit } = p;
      const same = from.version === to.version;
      const digits = p.fraccion;
      const { items, total } = same
        ? { items: [], total: 0 }
        : digits === undefined
          ? await wholePage(ctx.datasets, sets, from, to, skip, limit)
          : await page(fractionChanges(sets, from, to, digits), skip, limit);
      const name = (v: VersionInfo): string => v.version;
      return { desde_version: name(from.version), hasta_version: name(to.version), items, total, skip, limit };
    },
  });
}
