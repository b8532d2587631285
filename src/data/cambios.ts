/**
 * What changed between two dataset versions (`/api/v1/cambios`, ../shared/spec/versiones.md): each
 * record set's rows of both versions, in identifier order, merged. A record is the same record in both
 * when its identifier is the same; rows are compared field by field as stored.
 */
import type { RecordSet } from '../record-sets/define.js';
import { ownFractionFilter } from '../record-sets/define.js';
import type { Values } from '../store/store.js';

type Value = string | number | null;

export interface Cambio {
  readonly conjunto: string;
  /** The identifier: its one value, or its values in key order when it has several fields. */
  readonly id: Value | Value[];
  readonly cambio: 'alta' | 'baja' | 'modificacion';
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
