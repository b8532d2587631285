/**
 * The body of `POST /api/v1/contribuciones` as the route reads it (no HTTP): its TypeBox schema's check,
 * then the refinement into the question. Every refusal is in Pydantic's shapes with the contract's
 * messages (../shared/spec/contribuciones.md, "Errors"), in the order of the body's fields.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contribucionesParameters } from '../../src/contribuciones/request.js';
import type { ContribucionesRequest } from '../../src/contribuciones/request.js';
import { ContribucionesBody } from '../../src/contribuciones/schema.js';
import { MAX_CONTRIBUTION_LINES as MAX_LINES } from '../../src/limites.js';
import type { ValidationDetail } from '../../src/errors.js';
import { RequestValidationError } from '../../src/errors.js';
import { checked } from '../../src/http/typed.js';

const body = checked(ContribucionesBody, 'body');
const TODAY = '2026-11-25';
const ask = (value: unknown): ContribucionesRequest => contribucionesParameters(body.parse(value), TODAY);

function refusal(value: unknown): ValidationDetail[] {
  try {
    ask(value);
  } catch (error) {
    assert.ok(error instanceof RequestValidationError);
    return error.detail;
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
}

const line = { fraccion: '0101.21.01', valor_aduana: '100.00' };

test('a body that fits is the question: typed fractions read, country upper-cased, defaults filled, amounts exact', () => {
  const question = ask({
    pais_origen: 'usa',
    partidas: [{ ...line, fraccion: '0101 21 01 00', cantidad_umt: '1.500', sector_prosec: ' ii ', exportador: ' Acme ' }],
  });
  assert.deepEqual(
    { ...question, partidas: question.partidas.map((p) => ({ ...p, valorAduana: p.valorAduana.toFixed(2), cantidadUmt: p.cantidadUmt?.toFixed(3) })) },
    {
      fecha: TODAY,
      paisOrigen: 'USA',
      regimen: 'definitivo',
      tipoCambio: null,
      partidas: [
        { fraccion: '01012101', nico: '00', valorAduana: '100.00', cantidadUmt: '1.500', certificadoOrigen: false, sectorProsec: 'II', exportador: 'Acme' },
      ],
    },
  );
});

test('an optional field sent as null is left out', () => {
  const nulls = { nico: null, cantidad_umt: null, certificado_origen: null, sector_prosec: null, exportador: null };
  const question = ask({ fecha: null, pais_origen: 'CHN', regimen: null, tipo_cambio: null, partidas: [{ ...line, ...nulls }] });
  assert.deepEqual(
    [question.fecha, question.regimen, question.tipoCambio, question.partidas[0]?.nico, question.partidas[0]?.certificadoOrigen],
    [TODAY, 'definitivo', null, undefined, false],
  );
});

test("what the schema refuses, every field at once in the body's order", () => {
  assert.deepEqual(refusal({ fecha: '2024-02-30', pais_origen: 'US', regimen: 'temporal', tipo_cambio: 17.5, partidas: [] }), [
    { type: 'date_parsing', loc: ['body', 'fecha'], msg: 'Input should be a valid date in the format YYYY-MM-DD', input: '2024-02-30' },
    {
      type: 'string_pattern_mismatch',
      loc: ['body', 'pais_origen'],
      msg: "String should match pattern '^[A-Za-z]{3}$'",
      input: 'US',
      ctx: { pattern: '^[A-Za-z]{3}$' },
    },
    { type: 'literal_error', loc: ['body', 'regimen'], msg: "Input should be 'definitivo'", input: 'temporal', ctx: { expected: "'definitivo'" } },
    { type: 'string_type', loc: ['body', 'tipo_cambio'], msg: 'Input should be a valid string', input: 17.5 },
    {
      type: 'too_short',
      loc: ['body', 'partidas'],
      msg: 'List should have at least 1 item after validation, not 0',
      input: [],
      ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
    },
  ]);
  assert.deepEqual(refusal({ fecha: '2024-6-3', partidas: [{ valor_aduana: '1.001', certificado_origen: 'si', exportador: 'x'.repeat(301) }] }), [
    {
      type: 'string_pattern_mismatch',
      loc: ['body', 'fecha'],
      msg: "String should match pattern '^\\d{4}-\\d{2}-\\d{2}$'",
      input: '2024-6-3',
      ctx: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    },
    {
      type: 'missing',
      loc: ['body', 'pais_origen'],
      msg: 'Field required',
      input: { fecha: '2024-6-3', partidas: [{ valor_aduana: '1.001', certificado_origen: 'si', exportador: 'x'.repeat(301) }] },
    },
    {
      type: 'missing',
      loc: ['body', 'partidas', 0, 'fraccion'],
      msg: 'Field required',
      input: { valor_aduana: '1.001', certificado_origen: 'si', exportador: 'x'.repeat(301) },
    },
    {
      type: 'string_pattern_mismatch',
      loc: ['body', 'partidas', 0, 'valor_aduana'],
      msg: "String should match pattern '^\\d{1,13}(\\.\\d{1,2})?$'",
      input: '1.001',
      ctx: { pattern: '^\\d{1,13}(\\.\\d{1,2})?$' },
    },
    { type: 'bool_type', loc: ['body', 'partidas', 0, 'certificado_origen'], msg: 'Input should be a valid boolean', input: 'si' },
    {
      type: 'string_too_long',
      loc: ['body', 'partidas', 0, 'exportador'],
      msg: 'String should have at most 300 characters',
      input: 'x'.repeat(301),
      ctx: { max_length: 300 },
    },
  ]);
  assert.deepEqual(refusal([1, 2]), [
    { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1, 2] },
  ]);
});

test('more lines than the limit: one failure naming the length, the lines not repeated', () => {
  const lines = Array.from({ length: MAX_LINES + 1 }, () => ({ fraccion: 1 }));
  assert.deepEqual(refusal({ pais_origen: 'USA', partidas: lines }), [
    {
      type: 'too_long',
      loc: ['body', 'partidas'],
      msg: `List should have at most ${MAX_LINES} items after validation, not ${MAX_LINES + 1}`,
      input: `a list of ${MAX_LINES + 1} items`,
      ctx: { field_type: 'List', max_length: MAX_LINES, actual_length: MAX_LINES + 1 },
    },
  ]);
});

test('what only the refinement knows: a typed fraction, a NICO that agrees, a rate above 0, a PROSEC sector; all of them at once', () => {
  const partidas = [
    { ...line, fraccion: '0101.21' },
    { ...line, fraccion: '0101.21.01.00', nico: '01', sector_prosec: 'XXV' },
  ];
  assert.deepEqual(refusal({ pais_origen: 'USA', tipo_cambio: '0.0000', partidas }), [
    { type: 'greater_than', loc: ['body', 'tipo_cambio'], msg: 'Input should be greater than 0', input: '0.0000', ctx: { gt: 0 } },
    {
      type: 'string_pattern_mismatch',
      loc: ['body', 'partidas', 0, 'fraccion'],
      msg: 'A line is one fraction: 8 digits, or 10 for fraction + NICO; dots and spaces are ignored',
      input: '0101.21',
      ctx: { pattern: '^[0-9]{8}([0-9]{2})?$' },
    },
    {
      type: 'value_error',
      loc: ['body', 'partidas', 1, 'nico'],
      msg: 'Value error, the NICO disagrees with the one in fraccion (00)',
      input: '01',
      ctx: { code: 'NICO_MISMATCH', nico: '00' },
    },
    {
      type: 'string_pattern_mismatch',
      loc: ['body', 'partidas', 1, 'sector_prosec'],
      msg: "String should match pattern '^(I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII|XIII|XIV|XV|XVI|XVII|XVIII|XIX|XX|XXI|XXII|XXIII|XXIV)$'",
      input: 'XXV',
      ctx: { pattern: '^(I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII|XIII|XIV|XV|XVI|XVII|XVIII|XIX|XX|XXI|XXII|XXIII|XXIV)$' },
    },
  ]);
});
