/** Value checks: what every loader stores for a raw value of each field type, and why it refuses one. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Field } from '../../src/record-sets/define.js';
import { date8, dec, int, str, text } from '../../src/record-sets/define.js';
import { canonicalDecimal, characterCount, checkValue } from '../../src/data/values.js';

const field = (name: string, type: Field['type']): Field => ({ name, type });
const ARANCEL = field('ARANCEL', dec(7, 2));

describe('canonicalDecimal', () => {
  test('written with exactly the scale: padded, leading zeros dropped, trailing zeros past the scale allowed', () => {
    assert.equal(canonicalDecimal('1.5', 5, 2), '1.50');
    assert.equal(canonicalDecimal('007.10', 5, 2), '7.10');
    assert.equal(canonicalDecimal('.5', 5, 2), '0.50');
    assert.equal(canonicalDecimal('5.', 5, 2), '5.00');
    assert.equal(canonicalDecimal(' 12.3400 ', 5, 2), '12.34');
    assert.equal(canonicalDecimal('42', 4, 0), '42');
  });

  test('a negative zero is zero; other signs are kept', () => {
    assert.equal(canonicalDecimal('-0.00', 5, 2), '0.00');
    assert.equal(canonicalDecimal('-1.2', 5, 2), '-1.20');
    assert.equal(canonicalDecimal('+1.2', 5, 2), '1.20');
  });

  test('null for what does not fit or is not a decimal: no rounding, ever', () => {
    assert.equal(canonicalDecimal('1.234', 5, 2), null, 'a third fraction digit would be rounded');
    assert.equal(canonicalDecimal('1234.5', 5, 2), null, 'four integer digits in DECIMAL(5,2)');
    for (const wrong of ['', '.', 'abc', '1,5', '1e3', '1.2.3', '--1']) assert.equal(canonicalDecimal(wrong, 5, 2), null, wrong);
  });

  test('the stored text is the same number as the input, exactly', () => {
    const decimals = fc.tuple(fc.boolean(), fc.stringMatching(/^\d{1,5}$/), fc.stringMatching(/^\d{0,2}$/));
    fc.assert(
      fc.property(decimals, ([negative, whole, part]) => {
        const raw = `${negative ? '-' : ''}${whole}.${part}`;
        const stored = canonicalDecimal(raw, 7, 2);
        assert.notEqual(stored, null, raw);
        // Compared as integers of hundredths: BigInt, so no float ever enters.
        const hundredths = (s: string): bigint => {
          const [i = '0', f = ''] = s.replace('-', '').split('.');
          const n = BigInt(i || '0') * 100n + BigInt((f + '00').slice(0, 2));
          return s.startsWith('-') ? -n : n;
        };
        assert.equal(hundredths(stored!), hundredths(raw), `${raw} → ${stored}`);
        assert.match(stored!, /^-?\d+\.\d{2}$/);
      }),
    );
  });
});

describe('checkValue', () => {
  test('empty, null and absent are null in every type', () => {
    for (const type of [int(), str(3), text(), dec(5, 2), date8()]) {
      for (const raw of [null, undefined, '']) assert.deepEqual(checkValue(field('F', type), raw), { ok: true, value: null });
    }
  });

  test('integers from numbers or integer text; not from decimals or past the exact range', () => {
    const sysid = field('SYSID', int());
    assert.deepEqual(checkValue(sysid, ' 12 '), { ok: true, value: 12 });
    assert.deepEqual(checkValue(sysid, 7), { ok: true, value: 7 });
    assert.deepEqual(checkValue(sysid, '1.0'), { ok: false, reason: 'SYSID: not an integer: 1.0' });
    assert.equal(checkValue(sysid, '9007199254740993').ok, false);
    assert.equal(checkValue(sysid, 1.5).ok, false);
  });

  test('decimals are stored as canonical text, from text or from a number', () => {
    assert.deepEqual(checkValue(ARANCEL, '15'), { ok: true, value: '15.00' });
    assert.deepEqual(checkValue(ARANCEL, 0.1), { ok: true, value: '0.10' });
    assert.deepEqual(checkValue(ARANCEL, 1e-7), {
      ok: false,
      reason: 'ARANCEL: not a decimal with at most 5 integer and 2 fraction digits: 1e-7',
    });
    assert.equal(checkValue(ARANCEL, Number.NaN).ok, false);
  });

  test('dates are eight digits, YYYYMMDD', () => {
    const fecha = field('FECHA', date8());
    assert.deepEqual(checkValue(fecha, '20240115'), { ok: true, value: '20240115' });
    assert.deepEqual(checkValue(fecha, '2024-01-15'), { ok: false, reason: 'FECHA: not a date written YYYYMMDD: 2024-01-15' });
  });

  test('text length is counted in characters as a person counts them', () => {
    const pais = field('PAIS', str(3));
    assert.equal(characterCount('año'), 3);
    assert.equal(characterCount('🐎🐎'), 2);
    assert.deepEqual(checkValue(pais, 'ÑÑÑ'), { ok: true, value: 'ÑÑÑ' });
    assert.deepEqual(checkValue(pais, '🐎🐎🐎'), { ok: true, value: '🐎🐎🐎' });
    assert.deepEqual(checkValue(pais, 'USAX'), { ok: false, reason: 'PAIS: longer than 3 characters' });
    assert.deepEqual(checkValue(pais, 12), { ok: false, reason: 'PAIS: not text: 12' });
  });

  test('NUL is refused in any text, as PostgreSQL would', () => {
    assert.deepEqual(checkValue(field('NOTAS', text()), 'a\0b'), { ok: false, reason: 'NOTAS: contains a NUL character' });
    assert.deepEqual(checkValue(field('PAIS', str(3)), 'a\0'), { ok: false, reason: 'PAIS: contains a NUL character' });
  });
});
