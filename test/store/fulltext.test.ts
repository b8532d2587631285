/** What a typed query becomes before either store sees it, and how matches are marked. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fold, stem, terms, words } from '../../src/buscar/analysis.js';
import { MARK_CLOSE, MARK_OPEN, markTerms, queryCode } from '../../src/store/fulltext.js';

const marked = (word: string): string => `${MARK_OPEN}${word}${MARK_CLOSE}`;

describe('fold', () => {
  test('lower case without accents, ñ included, so that typed and stored words meet', () => {
    assert.equal(fold('Café NIÑO Pingüino'), 'cafe nino pinguino');
  });
});

describe('words and terms', () => {
  test('letters and digits only: search syntax of either engine is a separator, never an operator', () => {
    assert.deepEqual(words('refrig* AND "caballos" (vivos) -reproductores'), ['refrig', 'and', 'caballos', 'vivos', 'reproductores']);
    assert.deepEqual(words("o'brien:* & !x | y <-> z"), ['o', 'brien', 'x', 'y', 'z']);
    assert.deepEqual(words('  ...  '), []);
  });

  test('accents and capitals folded, stop words dropped, Spanish stems', () => {
    assert.deepEqual(terms('CAMIÓN Eléctrico de los demás'), [stem('camion'), stem('electrico')]);
    assert.equal(stem('caballos'), stem('caballo'));
  });
});

describe('a single letter joined by a hyphen', () => {
  test('is one word with the word it is joined to, in the texts and the queries alike', () => {
    assert.deepEqual(words('T-shirts de algodón, X-RAY apparatus'), ['tshirts', 'de', 'algodon', 'xray', 'apparatus']);
    assert.deepEqual(terms('t-shirt'), terms('T-SHIRT'));
  });

  test('a letter after a word, a code or a number keeps its hyphen a separator', () => {
    assert.deepEqual(words('rayos-x 15W-40 A-1'), ['rayos', 'x', '15w', '40', 'a', '1']);
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
  test('marks whole words whose stem a term begins, as stored, accents and capitals kept', () => {
    assert.equal(markTerms('Caballos reproductores de raza pura', ['cab', stem('raza')]), `${marked('Caballos')} reproductores de ${marked('raza')} pura`);
    assert.equal(markTerms('Niño y CAMIÓN', ['nin', stem('camion')]), `${marked('Niño')} y ${marked('CAMIÓN')}`);
  });

  test('a term inside a word, not at its start, is not a match', () => {
    assert.equal(markTerms('subcaballo', [stem('caballo')]), 'subcaballo');
  });

  test('no terms, no marks; punctuation untouched', () => {
    assert.equal(markTerms('Café, niño.', []), 'Café, niño.');
    assert.equal(markTerms('Café, niño.', [stem('cafe')]), `${marked('Café')}, niño.`);
  });
});
