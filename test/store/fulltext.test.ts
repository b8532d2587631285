/** Full-text query building: what a typed query becomes before either store sees it, and how matches are marked. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MARK_CLOSE, MARK_OPEN, fold, markTerms, queryCode, queryTerms } from '../../src/store/fulltext.js';

const marked = (word: string): string => `${MARK_OPEN}${word}${MARK_CLOSE}`;

describe('fold', () => {
  test('lower case without accents, ñ included, so that typed and stored words meet', () => {
    assert.equal(fold('Café NIÑO Pingüino'), 'cafe nino pinguino');
  });
});

describe('queryTerms', () => {
  test('letters and digits only: search syntax of either engine is a separator, never an operator', () => {
    assert.deepEqual(queryTerms('refrig* AND "caballos" (vivos) -reproductores'), ['refrig', 'and', 'caballos', 'vivos', 'reproductores']);
    assert.deepEqual(queryTerms("o'brien:* & !x | y <-> z"), ['o', 'brien', 'x', 'y', 'z']);
    assert.deepEqual(queryTerms('  ...  '), []);
  });

  test('accents and capitals folded; at most twelve terms', () => {
    assert.deepEqual(queryTerms('CAMIÓN Eléctrico'), ['camion', 'electrico']);
    assert.equal(queryTerms(Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ')).length, 12);
  });
});

describe('queryCode', () => {
  test('a query of digits, dots and spaces is a code of up to ten digits', () => {
    assert.equal(queryCode('0101.21'), '010121');
    assert.equal(queryCode('0101 21 01 00'), '0101210100');
    assert.equal(queryCode('8'), '8');
  });

  test('anything else is not a code', () => {
    for (const q of ['01012101001', 'caballos', '0101a', '', '. .']) assert.equal(queryCode(q), null, q);
  });
});

describe('markTerms', () => {
  test('marks whole words that a term begins, as stored, accents and capitals kept', () => {
    assert.equal(
      markTerms('Caballos reproductores de raza pura', ['cab', 'raza']),
      `${marked('Caballos')} reproductores de ${marked('raza')} pura`,
    );
    assert.equal(markTerms('Niño y CAMIÓN', ['nino', 'camion']), `${marked('Niño')} y ${marked('CAMIÓN')}`);
  });

  test('a term inside a word, not at its start, is not a match', () => {
    assert.equal(markTerms('subcaballo', ['caballo']), 'subcaballo');
  });

  test('no terms, no marks; punctuation untouched', () => {
    assert.equal(markTerms('Café, niño.', []), 'Café, niño.');
    assert.equal(markTerms('Café, niño.', ['cafe']), `${marked('Café')}, niño.`);
  });
});
