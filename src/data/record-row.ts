/** Turning a record given as an object (field name → value) into a checked row in field order. */
import type { RecordSet } from '../record-sets/define.js';
import { checkValue } from './values.js';
import type { StoredValue } from './values.js';

export class RefusedRecord extends Error {
  constructor(
    readonly field: string | null,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function recordToRow(rs: RecordSet, record: Readonly<Record<string, unknown>>): StoredValue[] {
  const row: StoredValue[] = [];
  for (const field of rs.fields) {
    const checked = checkValue(field, record[field.name]);
    if (!checked.ok) throw new RefusedRecord(field.name, checked.reason);
    if (checked.value === null && rs.key.includes(field.name)) {
      throw new RefusedRecord(field.name, `${field.name}: identifier missing`);
    }
    row.push(checked.value);
  }
  return row;
}
