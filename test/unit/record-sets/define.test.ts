/** Registry checks: a declaration that does not hold together is refused when it is made, and the registry holds together. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RecordSetInput } from '../../../src/record-sets/define.js';
import { defineRecordSet, fields, fractionFilters, int, str, text } from '../../../src/record-sets/define.js';
import { recordSets } from '../../../src/record-sets/index.js';

const base: RecordSetInput = {
  path: 'muestra-tres',
  schema: 'MuestraTresResponse',
  description: 'A record set for the tests of the registry checks.',
  fields: fields({ SYSID: int(), FRACCION: str(8), NICO: str(2), NOTAS: [text(), 'Free notes'] }),
  filters: fractionFilters(),
};

describe('defineRecordSet', () => {
  test('derives label and table from path and schema; identifier SYSID, no paging, no fixed searches by default', () => {
    const rs = defineRecordSet(base);
    assert.equal(rs.label, 'MuestraTres');
    assert.equal(rs.table, 'muestra_tres');
    assert.deepEqual(rs.key, ['SYSID']);
    assert.equal(rs.paginated, false);
    assert.deepEqual(rs.fixedSearches, []);
    assert.deepEqual(rs.fields[3], { name: 'NOTAS', type: { kind: 'text' }, description: 'Free notes' });
  });

  test('refuses a name that is not a field, saying which and where', () => {
    const cases: [Partial<RecordSetInput>, RegExp][] = [
      [{ key: ['SYSID', 'FRACCIONX'] }, /^record set muestra-tres: key FRACCIONX is not a field$/],
      [{ filters: [{ param: 'pais', rule: 'code', field: 'PAIS' }] }, /: filter pais PAIS is not a field$/],
      [{ filters: [{ param: 'fraccion', rule: 'fraction', field: 'FRACCION', nicoField: 'NICOX' }] }, /: filter fraccion NICO NICOX is not a field$/],
      [
        { filters: [{ param: 'fraccion', rule: 'fraction', field: 'FRACCION', dottedField: 'PUNTO', nicoField: 'NICO' }] },
        /: filter fraccion dotted PUNTO is not a field$/,
      ],
      [{ fixedSearches: [{ segment: 'usa', summary: 'USA', where: { PAIS: 'USA' } }] }, /: fixed search PAIS is not a field$/],
    ];
    for (const [change, message] of cases) assert.throws(() => defineRecordSet({ ...base, ...change }), { message });
  });

  test('refuses a field declared twice', () => {
    const twice = [...base.fields, { name: 'NICO', type: str(2) }];
    assert.throws(() => defineRecordSet({ ...base, fields: twice }), { message: "record set muestra-tres: duplicate field" });
  });
});

describe('the registry', () => {
  test('paths, tables and schema names are unique; schema names are the interface\'s …Response', () => {
    for (const name of ['path', 'table', 'schema'] as const) {
      const values = recordSets.map((rs) => rs[name]);
      assert.equal(new Set(values).size, values.length, `${name} repeated`);
    }
    for (const rs of recordSets) assert.match(rs.schema, /^[A-Z][A-Za-z0-9]*Response$/, rs.path);
  });

  test('within a record set, parameter names are unique and field names are upper-case', () => {
    for (const rs of recordSets) {
      const params = rs.filters.map((f) => f.param);
      assert.equal(new Set(params).size, params.length, `${rs.path}: a filter parameter repeated`);
      for (const f of rs.fields) assert.match(f.name, /^[A-Z][A-Z0-9_]*$/, `${rs.path}.${f.name}`);
    }
  });

  test('every declaration says what the record set means', () => {
    for (const rs of recordSets) assert.ok(rs.description.length > 20, rs.path);
  });
});
