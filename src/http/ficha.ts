/**
 * `GET /api/v1/ficha/{fraccion}`: everything about one fraction in one call, the question a customs
 * broker actually asks. Built from the registry like every other route: each record set with a
 * `fraccion` filter contributes its records; the correlation table both ways; the US lines of the
 * same HS subheading.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TArray, TObject, TUnsafe } from '@sinclair/typebox';
import type { FractionFilter, RecordOf, RecordSet, WithOwnFraction } from '../record-sets/define.js';
import { FRACTION_PARAM, ownFractionFilter } from '../record-sets/define.js';
import { filterConditions } from '../record-sets/filters.js';
import { fracciones } from '../record-sets/fracciones.js';
import { byCurrentFraction, byPreviousFraction, fraccionesAnteriores } from '../record-sets/fracciones-anteriores.js';
import { byUsCode, fraccionesUsa } from '../record-sets/fracciones-usa.js';
import { informacionGeneral } from '../record-sets/informacion-general.js';
import type { Registry } from '../record-sets/index.js';
import type { Condition } from '../store/sql.js';
import type { Row, Store } from '../store/store.js';
import type { Read } from './contract.js';
import { pathParams, queryParams } from './contract.js';
import type { ParamSpec } from './params.js';
import { fields, parseParams } from './params.js';
import { RequestValidationError, refusal } from './errors.js';
import type { ProtectedGet } from './route-kinds.js';
import { loadTables } from '../contribuciones/tables.js';
import { reglasDeFraccion } from '../reglas-origen/answer.js';
import { indiceDeStore } from '../reglas-origen/indice.js';
import { ReglaSchema } from '../reglas-origen/schema.js';
import { mexicoCityDate } from '../store/versions.js';
import { nullableText, recordsOf } from './schemas.js';

/** More than any fraction has in any record set; a ficha is one answer, not a page. */
const PER_SET_LIMIT = 1000;

const FRACCION = {
  name: 'fraccion',
  in: 'path',
  kind: 'fraction',
  description: 'Tariff fraction of 8 digits, or 10 for fraction + NICO; dots and spaces are ignored (0101.21.01.00).',
} as const satisfies ParamSpec;

/** The fraction in the path, read as any fraction is; a ficha is for one fraction, 8 digits or 10 with its NICO. */
const fraccionParam: Read<{ readonly fraccion: string }, TObject> = {
  schema: pathParams([FRACCION]).schema,
  read: (value) => {
    const path = fields(value);
    // A blank fraction (spaces, dots) reads as none, and is refused as any other wrong length.
    const { fraccion } = parseParams([FRACCION], path, {});
    if (fraccion !== undefined && (fraccion.length === 8 || fraccion.length === 10)) return { fraccion };
    throw new RequestValidationError([
      {
        type: 'string_pattern_mismatch',
        loc: ['path', 'fraccion'],
        msg: 'A ficha is for one fraction: 8 digits, or 10 for fraction + NICO',
        input: path['fraccion'],
        ctx: { pattern: '^[0-9]{8}([0-9]{2})?$' },
      },
    ]);
  },
};

const query = queryParams([
  { name: 'nico', in: 'query', kind: 'nico', description: 'NICO: only records of this NICO and those that apply to the whole fraction' },
  { name: 'pais', in: 'query', kind: 'code', maxLength: 3, description: 'Country key: only records for this country and those for every country' },
]);

/** Records that apply to the whole fraction or to every country carry no NICO or country: they stay. */
function narrowing(rs: RecordSet, nicoField: string | undefined, nico: string | undefined, pais: string | undefined): Condition[] {
  const conditions: Condition[] = [];
  if (nico && nicoField)
    conditions.push({
      kind: 'or',
      any: [
        { kind: 'eq', field: nicoField, value: nico },
        { kind: 'null', field: nicoField },
      ],
    });
  if (pais && rs.country)
    conditions.push({
      kind: 'or',
      any: [
        { kind: 'ci', field: rs.country, value: pais },
        { kind: 'null', field: rs.country },
      ],
    });
  return conditions;
}

async function all(store: Store, rs: RecordSet, conditions: Condition[]): Promise<Row[]> {
  return store.search(rs, { conditions, skip: 0, limit: PER_SET_LIMIT });
}

/** Every record set with its own fraction filter, with that filter: each contributes its records of the fraction. */
function withOwnFraction(recordSets: readonly RecordSet[]): { readonly rs: RecordSet; readonly filter: FractionFilter }[] {
  return recordSets.flatMap((rs) => {
    const filter = ownFractionFilter(rs);
    return filter ? [{ rs, filter }] : [];
  });
}

/** What a ficha reads, found in the registry once, when the route is registered. */
interface Sources {
  /** The fraction's own line: its tariff-line record set's fraction filter. */
  readonly master: FractionFilter;
  readonly sets: ReturnType<typeof withOwnFraction>;
}

function fichaSources(recordSets: readonly RecordSet[]): Sources {
  const master = ownFractionFilter(fracciones);
  if (!master) throw new Error(`${fracciones.path} has no ${FRACTION_PARAM} filter: a ficha cannot find a fraction`);
  return { master, sets: withOwnFraction(recordSets) };
}

async function ficha(sources: Sources, store: Store, digits: string, nicoParam: string | undefined, pais: string | undefined, fecha: string) {
  const fraction = digits.slice(0, 8);
  const nico = digits.length === 10 ? digits.slice(8) : nicoParam;
  if (digits.length === 10 && nicoParam !== undefined && nicoParam !== nico) throw refusal('FRACTION_NOT_FOUND');
  const byFraction = (rs: RecordSet, filter: FractionFilter, country: string | undefined): Promise<Row[]> =>
    all(store, rs, [...filterConditions(filter, fraction), ...narrowing(rs, filter.nicoField, nico, country)]);
  const master = await byFraction(fracciones, sources.master, undefined);
  if (master.length === 0) throw refusal('FRACTION_NOT_FOUND');

  const result: Record<string, unknown> = { fraccion: fraction, nico: nico ?? null };
  for (const { rs, filter } of sources.sets) result[rs.path] = rs === fracciones ? master : await byFraction(rs, filter, pais);
  result[fraccionesAnteriores.path] = {
    reemplaza: await byFraction(fraccionesAnteriores, byCurrentFraction, undefined),
    reemplazada_por: await byFraction(fraccionesAnteriores, byPreviousFraction, undefined),
  };
  result[fraccionesUsa.path] = await all(store, fraccionesUsa, filterConditions(byUsCode, fraction.slice(0, 6)));
  result[SIN_REGISTROS] = absent(result);
  // The rules of origin of the agreements in force with rules loaded, as GET /api/v1/reglas-origen/{fraccion} gives them.
  const code = `${fraction}${nico ?? '00'}`;
  result[REGLAS_ORIGEN] = reglasDeFraccion(await indiceDeStore(store), loadTables(), code, { pais, fecha }).reglas;
  return result;
}

/** The ficha's field with the fraction's rules of origin. */
const REGLAS_ORIGEN = 'reglas_origen' as const;

/** The ficha's field that says which record sets hold nothing for the fraction: absence in the data, said as such. */
const SIN_REGISTROS = 'sin_registros' as const;

/** The record sets of a ficha with no record for the fraction (as asked: NICO, country), and the note that says so. */
function absent(result: Readonly<Record<string, unknown>>): { conjuntos: string[]; nota: string | null } {
  const empty = (value: unknown): boolean =>
    Array.isArray(value) ? value.length === 0 : typeof value === 'object' && value !== null && Object.values(value).every(empty);
  const conjuntos = Object.entries(result)
    .filter(([key, value]) => key !== 'fraccion' && key !== 'nico' && empty(value))
    .map(([key]) => key);
  if (conjuntos.length === 0) return { conjuntos, nota: null };
  return {
    conjuntos,
    nota: `Los datos cargados no registran ${conjuntos.join(', ')} para esta fracción: que no haya registros no significa que no apliquen (la cobertura de cada conjunto está en /api/v1/versiones/{version}).`,
  };
}

/** The ficha's property of each record set with its own fraction filter: its records of the fraction. */
type OwnRecords<R extends readonly RecordSet[]> = { [RS in WithOwnFraction<R[number]> as RS['path']]: TArray<TUnsafe<RecordOf<RS>>> };

/**
 * The ficha's answer as one TypeBox schema, built from the record sets given (the registry's): its
 * OpenAPI schema and serialiser, and through `Static` the type the page reads (`Ficha`).
 */
export function fichaSchema<const R extends readonly RecordSet[]>(recordSets: R) {
  // The fraction's own records first, then every other record set in the registry's order.
  const first: readonly RecordSet[] = [fracciones, informacionGeneral];
  const ordered = [...recordSets.filter((rs) => first.includes(rs)), ...recordSets.filter((rs) => !first.includes(rs))];
  const own = Object.fromEntries(withOwnFraction(ordered).map(({ rs }) => [rs.path, recordsOf(rs)])) as OwnRecords<R>;
  return Type.Object(
    {
      fraccion: Type.String({ description: 'The 8-digit fraction' }),
      nico: nullableText({ description: 'The NICO asked for, if any' }),
      ...own,
      [fraccionesAnteriores.path]: Type.Object(
        { reemplaza: recordsOf(fraccionesAnteriores), reemplazada_por: recordsOf(fraccionesAnteriores) },
        { description: 'The fractions this one replaced (reemplaza) and those that replaced it (reemplazada_por)' },
      ),
      [fraccionesUsa.path]: recordsOf(fraccionesUsa, { description: 'US HTS lines of the same HS subheading' }),
      [SIN_REGISTROS]: Type.Object(
        { conjuntos: Type.Array(Type.String()), nota: nullableText() },
        {
          description:
            'The record sets above with no record for this fraction (as asked: NICO, country) in the loaded data, and a note saying so ("Los datos cargados no registran …"; null when every one has records). Absence in the data, not a sign that nothing of that kind applies; each version’s coverage per record set is in /api/v1/versiones/{version}.',
        },
      ),
      [REGLAS_ORIGEN]: Type.Array(ReglaSchema, {
        description:
          'The rules of origin the fraction must meet under each agreement in force today (or on `as_of`) whose rules are loaded (only those with `pais`, when given), as GET /api/v1/reglas-origen/{fraccion} answers them',
      }),
    },
    { $id: 'Ficha', title: 'Ficha' },
  );
}

/** The ficha's schema as typed by the registry's record sets. */
type FichaSchema = ReturnType<typeof fichaSchema<Registry>>;

/** The ficha as the service answers it, from the registry's record sets: the page's type for it (`import type`). */
export type Ficha = Static<FichaSchema>;

interface FichaParameters {
  readonly digits: string;
  readonly nico: string | undefined;
  readonly pais: string | undefined;
  /** The date of the agreements in force for the rules of origin: `as_of`, or today. */
  readonly fecha: string;
}

/** The ficha of the record sets given (the registry's, in the service). */
export function fichaRoute(
  recordSets: Registry,
  today: () => string = () => mexicoCityDate(new Date()),
): ProtectedGet<{ readonly fraccion: string }, ReturnType<typeof query.read>, FichaParameters, FichaSchema> {
  const sources = fichaSources(recordSets);
  return {
    ok: fichaSchema(recordSets),
    operationId: 'get_ficha',
    summary: 'Everything that applies to one fraction, in one answer',
    description:
      'The fraction (8 digits, or 10 for fraction and NICO; dots and spaces ignored) with its description and, from every record set, ' +
      'the records that apply to it: duties, preferences, quotas, compensatory duties, PROSEC, permits, regulations, NOMs, IEPS, estimated ' +
      'prices, vehicles, US equivalents and replaced fractions; 404 when the data has no such fraction. Answered from the dataset version in ' +
      'force today, or on the date `as_of` names.',
    tag: 'ficha',
    parts: { params: fraccionParam, querystring: query },
    responses: { 404: { description: 'No such fraction', $ref: 'ErrorMessage#' } },
    parameters: ({ params, query: { nico, pais, as_of } }) => ({ digits: params.fraccion, nico, pais, fecha: as_of ?? today() }),
    // The answer is put together record set by record set, from the same list the schema is built
    // from; TypeScript cannot follow that loop, so this is the one place its type is asserted.
    compute: async (store, q) => (await ficha(sources, store, q.digits, q.nico, q.pais, q.fecha)) as Ficha,
  };
}
