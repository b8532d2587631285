/**
 * A deterministic fixture for the table-driven tests: every record set gets the same small family of
 * records over real fractions (horses 0101.21.01 / 0101.29.99, beef 0201.10.01, computers 8471.30.01),
 * with every field filled on some records and null on others. Records are written in a shuffled
 * order so that the service's ordering is what the tests see, not insertion order.
 */
import type { Field, RecordSet } from '../src/record-sets/define.js';
import { recordSets } from '../src/record-sets/index.js';
import { recordToRow } from '../src/data/record-row.js';
import type { DatasetWriter } from '../src/store/store.js';

export type FixtureRecord = Record<string, string | number | null>;

const FRACTIONS = ['01012101', '01012101', '01012999', '02011001', '84713001', '01012101', '84713001', '02011001'];
const NICOS = ['00', '01', '00', '00', '00', '02', '99', '00'];
const US_CODES = ['0101210010', '0101210020', '01012900', '0101', '8471300100', null, '847130', '0201100000'];
const CODES = ['USA', 'CAN', 'usa', 'JPN', 'XXIV', 'I', 'can', null];
const SYSIDS = [5, 3, 8, 1, 7, 2, 6, 4];

function dotted(code: string): string {
  return [code.slice(0, 4), code.slice(4, 6), code.slice(6, 8)].filter(Boolean).join('.') + code.slice(8);
}

function value(rs: RecordSet, field: Field, i: number): string | number | null {
  const name = field.name;
  const fraction = FRACTIONS[i]!;
  if (name === 'SYSID' || name === 'CONSECUTIVO') return SYSIDS[i]!;
  if (rs.path === 'fracciones-usa' && name.startsWith('FRACCION_')) {
    const code = US_CODES[i] ?? null;
    if (code === null) return null;
    if (name === 'FRACCION_SIN_PUNTO') return code;
    const withDots = code.length > 8 ? `${dotted(code.slice(0, 8))}.${code.slice(8)}` : dotted(code);
    return name === 'FRACCION_CON_PUNTO' ? withDots : withDots.replace(/\./g, ' ');
  }
  if (name === 'FRACCION_SIN_PUNTO' || name === 'FRACCION' || name === 'FRACCIONACTUAL') return fraction;
  if (name === 'FRACCION_CON_PUNTO' || name === 'FRACCIONPUNTO') return dotted(fraction);
  if (name === 'FRACCIONANTERIOR') return FRACTIONS[(i + 3) % FRACTIONS.length]!;
  if (name === 'NICO' || name === 'NICOACTUAL') return NICOS[i]!;
  if (name === 'NICOANTERIOR') return NICOS[(i + 3) % NICOS.length]!;
  if (name === 'PAIS' || name === 'SECTOR' || name === 'ARTICULO') {
    const code = CODES[i] ?? null;
    const t = field.type;
    return code !== null && t.kind === 'str' && code.length > t.length ? code.slice(0, t.length) : code;
  }
  if (name === 'FUNDAMENTO2') return i % 2 === 0 ? 'TIPAT' : 'TMEC';
  if (name === 'NIVEL') return (i % 3) + 1;
  // Every other field: filled on even records, null on odd ones, so both shapes are served.
  if (i % 2 === 1) return null;
  const t = field.type;
  switch (t.kind) {
    case 'int':
      return i * 10 + 1;
    case 'dec':
      return (i + 1).toFixed(t.scale);
    case 'date8':
      return `202${i}0115`;
    case 'str':
      return `${name} ${i}`.slice(0, t.length);
    case 'text':
      return `${name} texto ${i}: café, niño`;
  }
}

export function fixtureRecords(rs: RecordSet): FixtureRecord[] {
  return FRACTIONS.map((_, i) => Object.fromEntries(rs.fields.map((f) => [f.name, value(rs, f, i)])));
}

/** The fixture's rows, for a loader of either store. */
export function fillFixture(writer: DatasetWriter): void {
  for (const rs of recordSets) for (const record of fixtureRecords(rs)) writer.insert(rs, recordToRow(rs, record));
}

/** The fixture with only the first `n` records of aladi2 (every other record set whole): versions that differ in one record set. */
export const withAladi2 =
  (n: number) =>
  (writer: DatasetWriter): void => {
    for (const rs of recordSets) {
      const records = rs.path === 'aladi2' ? fixtureRecords(rs).slice(0, n) : fixtureRecords(rs);
      for (const record of records) writer.insert(rs, recordToRow(rs, record));
    }
  };
