/** A route's TypeBox schema checks its input and reports failures in Pydantic's shapes (src/http/typed.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { RequestValidationError } from '../../src/http/errors.js';
import { checked } from '../../src/http/typed.js';

const body = checked(
  Type.Object({
    nombre: Type.String({ maxLength: 5 }),
    fracciones: Type.Array(Type.String({ pattern: '^[0-9]+$' }), { minItems: 1, maxItems: 2 }),
    activa: Type.Optional(Type.Boolean()),
    modo: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
  }),
  'body',
);

function failures(value: unknown): unknown[] {
  try {
    body.parse(value);
  } catch (error) {
    assert.ok(error instanceof RequestValidationError);
    return error.detail.map((d) => [d.type, d.loc, d.input]);
  }
  assert.fail('accepted');
}

test('a value that fits is returned as it is', () => {
  const value = { nombre: 'abc', fracciones: ['01'], activa: true, modo: 'b' };
  assert.deepEqual(body.parse(value), value);
});

test('each failure is named at its place with what was sent, as Pydantic names it', () => {
  assert.deepEqual(failures({ fracciones: ['01'] }), [['missing', ['body', 'nombre'], { fracciones: ['01'] }]]);
  assert.deepEqual(failures({ nombre: 'abcdefg', fracciones: ['01', 'x1'] }), [
    ['string_too_long', ['body', 'nombre'], 'abcdefg'],
    ['string_pattern_mismatch', ['body', 'fracciones', 1], 'x1'],
  ]);
  assert.deepEqual(failures({ nombre: 'a', fracciones: [], activa: 'si', modo: 'c' }), [
    ['too_short', ['body', 'fracciones'], []],
    ['bool_type', ['body', 'activa'], 'si'],
    ['literal_error', ['body', 'modo'], 'c'],
  ]);
  assert.deepEqual(failures(null), [['model_attributes_type', ['body'], null]]);
});

const optional = checked(
  Type.Object({
    fecha: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
    nico: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{2}$' }), Type.Null()])),
    lineas: Type.Array(Type.Object({ valor: Type.String() }), { maxItems: 2 }),
    nombre: Type.String(),
  }),
  'body',
);

function details(value: unknown): unknown[] {
  try {
    optional.parse(value);
  } catch (error) {
    assert.ok(error instanceof RequestValidationError);
    return error.detail;
  }
  assert.fail('accepted');
}

test('a field that may be null takes null, and is otherwise reported by what it should be', () => {
  assert.deepEqual(optional.parse({ fecha: null, nico: null, lineas: [], nombre: 'a' }), { fecha: null, nico: null, lineas: [], nombre: 'a' });
  assert.deepEqual(details({ nico: 5, lineas: [], nombre: 'a' }), [
    { type: 'string_type', loc: ['body', 'nico'], msg: 'Input should be a valid string', input: 5 },
  ]);
  assert.deepEqual(details({ nico: '123', lineas: [], nombre: 'a' }), [
    { type: 'string_pattern_mismatch', loc: ['body', 'nico'], msg: "String should match pattern '^[0-9]{2}$'", input: '123', ctx: { pattern: '^[0-9]{2}$' } },
  ]);
  assert.deepEqual(details({ fecha: '2024-02-30', lineas: [], nombre: 'a' }), [
    { type: 'date_parsing', loc: ['body', 'fecha'], msg: 'Input should be a valid date in the format YYYY-MM-DD', input: '2024-02-30' },
  ]);
});

test("failures come in the order of the schema's fields, a missing one at its own place", () => {
  assert.deepEqual(
    details({ fecha: 'ayer', lineas: [{}, { valor: 1 }] }).map((d) => (d as { loc: unknown }).loc),
    [
      ['body', 'fecha'],
      ['body', 'lineas', 0, 'valor'],
      ['body', 'lineas', 1, 'valor'],
      ['body', 'nombre'],
    ],
  );
});

test('a list of the wrong length is said as Pydantic says it, a long one by its length alone, a large input named', () => {
  const lines = Array.from({ length: 400 }, () => ({ valor: 1 }));
  assert.deepEqual(details({ lineas: lines, nombre: 'a' }), [
    {
      type: 'too_long',
      loc: ['body', 'lineas'],
      msg: 'List should have at most 2 items after validation, not 400',
      input: 'a list of 400 items',
      ctx: { field_type: 'List', max_length: 2, actual_length: 400 },
    },
  ]);
  assert.deepEqual(failures({ nombre: 'a', fracciones: [] })[0], ['too_short', ['body', 'fracciones'], []]);
  const deep = JSON.parse(`${'['.repeat(20000)}${']'.repeat(20000)}`) as unknown;
  assert.deepEqual(details({ lineas: [], nombre: deep }), [
    { type: 'string_type', loc: ['body', 'nombre'], msg: 'Input should be a valid string', input: 'a list of 1 items' },
  ]);
  assert.deepEqual(details(undefined), [
    { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: null },
  ]);
});
