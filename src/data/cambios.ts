/**
 * What changed between two dataset versions (`/api/v1/cambios`, ../shared/spec/versiones.md): each
 * record set's rows of both versions, in identifier order, merged. A record is the same record in both
 * when its identifier is the same; rows are compared field by field as stored.
 */
import type { RecordSet } from '../record-sets/define.js';
import { ownFractionFilter } from '../record-sets/define.js';
import { filterConditions } from '../record-sets/filters.js';
import { CHANGE_KINDS } from '../store/core.js';
import type { Datasets, VersionInForce } from '../store/datasets.js';
import type { Store, Values } from '../store/store.js';

type Value = string | number | null;

export interface Cambio {
  readonly conjunto: string;
  /** The identifier: its one value, or its values in key order when it has several fields. */
  readonly id: Value | Value[];
  readonly cambio: (typeof CHANGE_KINDS)[number];
  readonly fraccion: string | null;
  readonly nico: string | null;
  readonly campos?: { campo: string; antes: Value; despues: Value }[];
}

function compareValues(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/** Orders identifiers as the stores' ORDER BY does (numbers by value, text byte by byte). */
export function compareKeys(a: readonly Value[], b: readonly Value[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareValues(a[i] ?? null, b[i] ?? null);
    if (c !== 0) return c;
  }
  return 0;
}

const keyIndexes = (rs: RecordSet): number[] => rs.key.map((k) => rs.fields.findIndex((f) => f.name === k));

export const keyOf = (rs: RecordSet, row: Values): Value[] => keyIndexes(rs).map((i) => row[i] ?? null);

/** The fraction and NICO a record names, when its record set is searched by fraction. */
function fractionOf(rs: RecordSet, row: Values): { fraccion: string | null; nico: string | null } {
  const filter = ownFractionFilter(rs);
  if (!filter) return { fraccion: null, nico: null };
  const at = (name: string): Value => row[rs.fields.findIndex((f) => f.name === name)] ?? null;
  const fraccion = at(filter.field);
  const nico = at(filter.nicoField);
  return { fraccion: fraccion === null ? null : String(fraccion), nico: nico === null ? null : String(nico) };
}

/** The change of one record, from its row in each version (undefined where it is not); null when nothing differs. */
export function change(rs: RecordSet, kind: Cambio['cambio'], before: Values | undefined, after: Values | undefined): Cambio | null {
  const named = (after ?? before)!;
  const key = keyOf(rs, named);
  const base = { conjunto: rs.path, id: key.length === 1 ? key[0]! : key, ...fractionOf(rs, named) };
  if (kind !== 'modificacion') return { ...base, cambio: kind };
  const campos = rs.fields.flatMap((f, i) => {
    const antes = before![i] ?? null;
    const despues = after![i] ?? null;
    return antes === despues ? [] : [{ campo: f.name, antes, despues }];
  });
  return campos.length === 0 ? null : { ...base, cambio: kind, campos };
}

/** The changes of one record set, in identifier order, from two row sequences each in identifier order. */
export async function* diffRecordSet(rs: RecordSet, before: AsyncIterable<Values> | Iterable<Values>, after: AsyncIterable<Values> | Iterable<Values>): AsyncGenerator<Cambio> {
  const left = rowsOf(before);
  const right = rowsOf(after);
  let a = await left.next();
  let b = await right.next();
  while (!a.done || !b.done) {
    const order = a.done ? 1 : b.done ? -1 : compareKeys(keyOf(rs, a.value), keyOf(rs, b.value));
    if (order < 0) {
      yield change(rs, 'baja', a.value as Values, undefined)!;
      a = await left.next();
    } else if (order > 0) {
      yield change(rs, 'alta', undefined, b.value as Values)!;
      b = await right.next();
    } else {
      const modified = change(rs, 'modificacion', a.value as Values, b.value as Values);
      if (modified) yield modified;
      a = await left.next();
      b = await right.next();
    }
  }
}

async function* rowsOf(rows: AsyncIterable<Values> | Iterable<Values>): AsyncGenerator<Values> {
  for await (const row of rows) yield row;
}

/** One page of a sequence of changes, and how many there are in all. */
export async function page(changes: AsyncIterable<Cambio>, skip: number, limit: number): Promise<{ items: Cambio[]; total: number }> {
  const items: Cambio[] = [];
  let total = 0;
  for await (const c of changes) {
    if (total >= skip && items.length < limit) items.push(c);
    total++;
  }
  return { items, total };
}

/** More records than one fraction has in any record set. */
const ONE_FRACTION_LIMIT = 100_000;

const toValues = (rs: RecordSet, row: Readonly<Record<string, string | number | null>>): Values => rs.fields.map((f) => row[f.name] ?? null);

/** One fraction's records of a record set in both versions; a record that changed fraction is found on both sides by its identifier. */
async function fractionRows(rs: RecordSet, digits: string, desde: Store, hasta: Store): Promise<[Values[], Values[]]> {
  const filter = ownFractionFilter(rs)!;
  const conditions = filterConditions(filter, digits);
  const read = async (store: Store): Promise<Values[]> =>
    (await store.search(rs, { conditions, skip: 0, limit: ONE_FRACTION_LIMIT })).map((r) => toValues(rs, r));
  const [before, after] = await Promise.all([read(desde), read(hasta)]);
  const complete = async (mine: Values[], other: Values[], store: Store): Promise<Values[]> => {
    const have = new Set(mine.map((r) => JSON.stringify(keyOf(rs, r))));
    for (const row of other) {
      const key = keyOf(rs, row);
      if (have.has(JSON.stringify(key))) continue;
      const found = await store.lookup(rs, key as (string | number)[]);
      if (found) mine.push(toValues(rs, found));
    }
    return mine.sort((a, b) => compareKeys(keyOf(rs, a), keyOf(rs, b)));
  };
  return [await complete(before, after, desde), await complete(after, before, hasta)];
}

/** The changes of the records of one fraction (or prefix) in each of `sets`: `/api/v1/cambios?fraccion=`, and the changes a watch list is told of. */
export async function* fractionChanges(sets: readonly RecordSet[], from: VersionInForce, to: VersionInForce, digits: string): AsyncGenerator<Cambio> {
  for (const rs of sets) {
    if (!ownFractionFilter(rs)) continue;
    const [before, after] = await fractionRows(rs, digits, from.store, to.store);
    yield* diffRecordSet(rs, before, after);
  }
}

/** The changes of one record set the store's comparison found, with the records of both sides read by identifier, a statement per side. */
async function changesOf(rs: RecordSet, found: readonly Values[], from: Store, to: Store): Promise<Cambio[]> {
  const keyed = found.map((row) => ({ key: row.slice(0, -1) as (string | number)[], kind: CHANGE_KINDS[Number(row[row.length - 1])]! }));
  const read = async (store: Store, kinds: readonly Cambio['cambio'][]): Promise<Map<string, Values>> => {
    const rows = await store.lookupMany(
      rs,
      keyed.filter((c) => kinds.includes(c.kind)).map((c) => c.key),
    );
    return new Map(rows.map((row) => toValues(rs, row)).map((values) => [JSON.stringify(keyOf(rs, values)), values]));
  };
  const [before, after] = await Promise.all([read(from, ['baja', 'modificacion']), read(to, ['alta', 'modificacion'])]);
  return keyed.map(({ key, kind }) => {
    const id = JSON.stringify(key);
    const item = change(rs, kind, before.get(id), after.get(id));
    // The store found it changed: it is in its version(s), and differs.
    if (!item || (kind !== 'alta' && !before.has(id)) || (kind !== 'baja' && !after.has(id))) {
      throw new Error(`${rs.path} ${id}: the versions compared do not hold what their comparison found`);
    }
    return item;
  });
}

/** A page of the changes of whole record sets (`/api/v1/cambios` without `fraccion`): the total from the kept comparison, the records read for the page alone. */
export async function wholePage(
  datasets: Datasets,
  sets: readonly RecordSet[],
  from: VersionInForce,
  to: VersionInForce,
  skip: number,
  limit: number,
): Promise<{ items: Cambio[]; total: number }> {
  // The content hash covers every record set: the same hash, the same records.
  if (from.version!.hash === to.version!.hash) return { items: [], total: 0 };
  const compared = await datasets.changes(sets, from.version!, to.version!);
  const pages: Promise<Cambio[]>[] = [];
  let at = 0;
  compared.forEach((changes, i) => {
    const wanted = changes.slice(Math.max(0, skip - at), Math.max(0, skip + limit - at));
    if (wanted.length > 0) pages.push(changesOf(sets[i]!, wanted, from.store, to.store));
    at += changes.length;
  });
  return { items: (await Promise.all(pages)).flat(), total: at };
}

