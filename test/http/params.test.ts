/** Parameter parsing: the original interface's rules and Pydantic's 422 details, without a server. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ValidationDetail } from '../../src/http/errors.js';
import { RequestValidationError } from '../../src/http/errors.js';
import type { ParamSpec } from '../../src/http/params.js';
import { PAGING, parseParams, partSchemas } from '../../src/http/params.js';

const SPECS: readonly ParamSpec[] = [
  { name: 'sysid', in: 'path', kind: 'int', description: 'identifier' },
  { name: 'fraccion', in: 'query', kind: 'fraction', description: 'fraction' },
  { name: 'fraccion_usa', in: 'query', kind: 'us-fraction', description: 'US fraction' },
  { name: 'nico', in: 'query', kind: 'nico', description: 'NICO' },
  { name: 'pais', in: 'query', kind: 'code', description: 'country', maxLength: 3 },
  ...PAGING,
];

const parse = (query: Record<string, unknown>, path: Record<string, unknown> = { sysid: '1' }) => parseParams(SPECS, path, query);

/** The 422 details parseParams gives for these inputs. */
function details(query: Record<string, unknown>, path: Record<string, unknown> = { sysid: '1' }): ValidationDetail[] {
  try {
    parse(query, path);
  } catch (error) {
    assert.ok(error instanceof RequestValidationError);
    assert.equal(error.statusCode, 422);
    return error.detail;
  }
  assert.fail('expected a validation error');
}

describe('parseParams', () => {
  test('nothing given: skip and limit take their defaults, filters stay absent', () => {
    assert.deepEqual(parse({}), { sysid: 1, fraccion: undefined, fraccion_usa: undefined, nico: undefined, pais: undefined, skip: 0, limit: 100 });
  });

  test('an empty value counts as not given; unknown names are ignored; a repeated one counts by its last value', () => {
    const parsed = parse({ fraccion: '', nico: '  ', limit: ['5', '7'], unknown: 'x' });
    assert.equal(parsed['fraccion'], undefined);
    assert.equal(parsed['nico'], undefined);
    assert.equal(parsed['limit'], 7);
    assert.ok(!('unknown' in parsed));
  });

  test('integers: surrounding spaces and a sign are taken; anything else is int_parsing', () => {
    assert.equal(parse({ skip: ' 3 ' })['skip'], 3);
    assert.equal(parse({ skip: '+4' })['skip'], 4);
    assert.deepEqual(details({ skip: '1.5' }), [
      { type: 'int_parsing', loc: ['query', 'skip'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '1.5' },
    ]);
  });

  test('bounds give greater_than_equal and less_than_equal with their limit in ctx', () => {
    assert.deepEqual(details({ skip: '-1' }), [
      { type: 'greater_than_equal', loc: ['query', 'skip'], msg: 'Input should be greater than or equal to 0', input: '-1', ctx: { ge: 0 } },
    ]);
    assert.deepEqual(details({ limit: '1001' }), [
      { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', input: '1001', ctx: { le: 1000 } },
    ]);
    assert.equal(parse({ limit: '1000' })['limit'], 1000);
  });

  test('a number past what a number holds exactly (2^53) is a 422 naming the bound, never clamped', () => {
    const le = Number.MAX_SAFE_INTEGER;
    assert.deepEqual(details({ skip: '9007199254740992' }), [
      { type: 'less_than_equal', loc: ['query', 'skip'], msg: `Input should be less than or equal to ${le}`, input: '9007199254740992', ctx: { le } },
    ]);
    assert.deepEqual(details({}, { sysid: '-99999999999999999999999' }), [
      {
        type: 'greater_than_equal',
        loc: ['path', 'sysid'],
        msg: `Input should be greater than or equal to ${-le}`,
        input: '-99999999999999999999999',
        ctx: { ge: -le },
      },
    ]);
    assert.equal(parse({ skip: String(le) })['skip'], le);
    assert.equal(parse({}, { sysid: String(-le) })['sysid'], -le);
  });

  test('dates are calendar dates for every year 0001-9999, and nothing else', () => {
    const dates: ParamSpec[] = [{ name: 'as_of', in: 'query', kind: 'date', description: 'date' }];
    for (const good of ['0001-01-01', '0050-06-15', '0099-12-31', '2024-02-29', '2000-02-29', '9999-12-31']) {
      assert.equal(parseParams(dates, {}, { as_of: good })['as_of'], good);
    }
    for (const bad of ['0000-01-01', '2024-13-45', '2024-02-31', '2023-02-29', '1900-02-29', '2024-00-10', '2024-04-31', '10000-01-01', '2024-1-01']) {
      assert.throws(() => parseParams(dates, {}, { as_of: bad }), RequestValidationError, bad);
    }
  });

  test('fractions: dots and spaces dropped; 1 to 8 digits or 10; anything else names the accepted forms', () => {
    assert.equal(parse({ fraccion: '0101.21.01' })['fraccion'], '01012101');
    assert.equal(parse({ fraccion: '0101 21 01 00' })['fraccion'], '0101210100');
    assert.equal(parse({ fraccion: '8' })['fraccion'], '8');
    for (const wrong of ['010121010', '01012101001', '0101-21', 'abc']) {
      const [detail] = details({ fraccion: wrong });
      assert.equal(detail?.type, 'string_pattern_mismatch', wrong);
      assert.deepEqual(detail?.loc, ['query', 'fraccion']);
      assert.equal(detail?.input, wrong);
      assert.deepEqual(detail?.ctx, { pattern: '^[0-9]{1,8}$|^[0-9]{10}$' });
      assert.match(detail?.msg ?? '', /^Tariff fraction: 8 digits/);
    }
  });

  test('US fractions: any 1 to 10 digits, dots dropped; 9 digits are fine there', () => {
    assert.equal(parse({ fraccion_usa: '0101.21.00.10' })['fraccion_usa'], '0101210010');
    assert.equal(parse({ fraccion_usa: '010121001' })['fraccion_usa'], '010121001');
    assert.equal(details({ fraccion_usa: '01012100101' })[0]?.type, 'string_pattern_mismatch');
  });

  test('NICO: exactly two digits after trimming', () => {
    assert.equal(parse({ nico: ' 05 ' })['nico'], '05');
    assert.deepEqual(details({ nico: '5' }), [
      { type: 'string_pattern_mismatch', loc: ['query', 'nico'], msg: "String should match pattern '^[0-9]{2}$'", input: '5', ctx: { pattern: '^[0-9]{2}$' } },
    ]);
  });

  test('codes are trimmed and upper-cased', () => {
    assert.equal(parse({ pais: ' usa ' })['pais'], 'USA');
  });

  test('every failing parameter in one 422, path first, a missing path parameter as missing', () => {
    const found = details({ limit: '0', nico: 'x' }, {});
    assert.deepEqual(
      found.map((d) => [d.type, ...d.loc]),
      [
        ['missing', 'path', 'sysid'],
        ['string_pattern_mismatch', 'query', 'nico'],
        ['greater_than_equal', 'query', 'limit'],
      ],
    );
    assert.deepEqual(found[0], { type: 'missing', loc: ['path', 'sysid'], msg: 'Field required', input: null });
  });
});

describe('partSchemas', () => {
  test('query and path parts as JSON Schema: path parameters required, query ones optional', () => {
    // As the OpenAPI document holds them: JSON, without TypeBox's own symbols.
    const { querystring, params } = JSON.parse(JSON.stringify(partSchemas(SPECS))) as {
      querystring: { properties: Record<string, Record<string, unknown>>; required?: string[] };
      params: { properties: Record<string, unknown>; required: string[] };
    };
    assert.deepEqual(params.required, ['sysid']);
    assert.equal(querystring.required, undefined);
    assert.deepEqual(Object.keys(querystring.properties), ['fraccion', 'fraccion_usa', 'nico', 'pais', 'skip', 'limit']);
    assert.deepEqual(querystring.properties['limit'], {
      description: 'Maximum number of records returned',
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
    });
    assert.equal(querystring.properties['pais']?.['maxLength'], 3);
    assert.equal(querystring.properties['nico']?.['pattern'], '^[0-9]{2}$');
  });

  test('a route without path parameters has no params part', () => {
    assert.deepEqual(Object.keys(partSchemas(PAGING)), ['querystring']);
  });
});
