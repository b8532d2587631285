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
