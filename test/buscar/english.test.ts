/**
 * Issue 44, English descriptions: the US tariff's lines read as the tree they are (a line without a
 * code names the goods of the lines under it), the language of a word by how many texts of each
 * language hold it, the US subheading texts read by English descriptions only, and the English head.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EnglishRow, LineRow } from '../../src/buscar/documents.js';
import { buildDocument, englishIndex } from '../../src/buscar/documents.js';
import { evidenceOf } from '../../src/buscar/evidence.js';
import { parseReferences } from '../../src/buscar/references.js';
import { PostingIndex } from '../../src/buscar/ranking.js';
import { MATCHED_WORD } from '../../src/buscar/plan.js';
import type { QueryPlan } from '../../src/buscar/plan.js';
import { headCandidates, phraseParts } from '../../src/buscar/reading.js';

const US: EnglishRow[] = [
  { CODE: '6104', TEXT: "Women's or girls' suits, ensembles, dresses, skirts:", LEVEL: 0 },
  { CODE: null, TEXT: 'Ensembles:', LEVEL: 1 },
  { CODE: '61042300', TEXT: 'Of synthetic fibers', LEVEL: 2 },
  { CODE: null, TEXT: 'Dresses:', LEVEL: 1 },
  { CODE: '610443', TEXT: 'Of synthetic fibers:', LEVEL: 2 },
  { CODE: '6104432010', TEXT: "Women's", LEVEL: 3 },
];

const line = (fraccion: string, text: string): LineRow => ({
  FRACCION: fraccion,
  NICO: '01',
  DESCRIPCION: text,
  DESCRIPCIONFRACCION: text,
  DESCRIPCIONNICO: null,
  DESCRIPCIONSUBPARTIDA: null,
  DESCRIPCIONPARTIDA: 'Trajes sastre, conjuntos, vestidos y faldas, de punto, para mujeres o niñas',
  DESCRIPCIONCAPITULO: null,
});

describe('English descriptions', () => {
  test('a US line without a code names the goods of the coded lines indented under it', () => {
    const { coded, named } = englishIndex(US);
    assert.deepEqual(named.get('610443'), ['Dresses:', 'Of synthetic fibers:', "Women's"]);
    assert.deepEqual(named.get('610423'), ['Ensembles:', 'Of synthetic fibers']);
    // The coded lines' own texts, as the Spanish descriptions' ranking has always read them.
    assert.deepEqual(coded.get('610443'), ['Of synthetic fibers:', "Women's"]);
  });

  test('only an English description reads the US lines of a line’s own subheading', () => {
    const english = englishIndex(US);
    const docs = [line('61042301', 'De fibras sintéticas'), line('61044301', 'De fibras sintéticas')].map((l) => buildDocument(l, english, new Map()));
    const index = new PostingIndex(docs.map((d) => ({ CODIGO: d.CODIGO, TERMINOS: d.TERMINOS })));
    const plan = (language: 'es' | 'en'): QueryPlan => ({
      groups: [{ primary: ['dress '], secondary: [], weight: 100, matched: MATCHED_WORD }],
      headings: [],
      quantityCodes: '',
      codes: [],
      marks: [],
      language,
    });
    // Both lines hold "dresses" in their heading's US text; only 6104.43's subheading is under "Dresses:".
    assert.equal(index.rank(plan('en'), 0, 2).page[0]!.CODIGO, '6104430101');
    const spanish = index.rank(plan('es'), 0, 2).page;
    assert.equal(spanish[0]!.RELEVANCIA, spanish[1]!.RELEVANCIA);
  });

  test('a word is of the language whose texts hold it far more often', () => {
    const lines = [line('22060091', 'Bebidas a base de vino ("wine coolers")'), line('22042101', 'Vino tinto'), line('56081101', 'Red de pesca')];
    const english = new Map([
      ['2204', ['Wine of fresh grapes, including fortified wines']],
      ['220421', ['Red wine', 'White wine', 'Other wine']],
      ['220410', ['Sparkling wine']],
    ]);
    const language = new Map(evidenceOf(lines, english, []).map((e) => [e.TERMINO, e.IDIOMA]));
    assert.equal(language.get('win'), 'en');
    assert.equal(language.get('vin'), 'es');
    assert.equal(language.get('red'), 'es en');
  });

  test('a Spanish reference is no English evidence for an English word that only shares its stem', () => {
    const lines = [line('62071101', 'Ropa interior de algodón'), line('56075001', 'Cuerdas de nailon')];
    const english = new Map([
      ['5607', ['Twine, cordage, ropes and cables']],
      ['560750', ['Ropes of nylon']],
    ]);
    const references = parseReferences('termino,codigos,palabras\nropa interior,6207,\nrope,5607,\n');
    const evidence = new Map(evidenceOf(lines, english, references).map((e) => [e.TERMINO, e]));
    // "ropa" and "rope" share the stem rop: the Spanish reference names underwear for a Spanish phrase only
    // (its word alone weighs as a goods word of a text, the whole reference being a phrase).
    assert.match(evidence.get('rop')!.ES, /6207:\d+/);
    assert.doesNotMatch(evidence.get('rop')!.EN, /6207/);
    assert.match(evidence.get('rop')!.EN, /5607:\d+/);
  });

  test('an English head is in the first run of words: what follows a figure qualifies it', () => {
    assert.deepEqual(phraseParts('CORDLESS DRILL 20V LITHIUM', 'en'), { run: ['cordless', 'drill'], rest: ['lithium'] });
    assert.equal(headCandidates('CORDLESS DRILL 20V LITHIUM', 'en')[0], 'drill');
    // A gender opening an English line qualifies the goods after it.
    assert.equal(headCandidates("WOMEN'S POLYESTER KNIT DRESS", 'en')[0], 'dress');
  });

  test('an English adjective by its form after the goods does not head the phrase', () => {
    assert.deepEqual(headCandidates('frozen chicken breast boneless skinless', 'en').slice(0, 2), ['breast', 'chicken']);
    assert.equal(headCandidates('SUNGLASSES POLARIZED', 'en')[0], 'sunglasses');
    // A noun in -bed is goods: the head stays last.
    assert.equal(headCandidates('SOFA BED', 'en')[0], 'bed');
    // Alone, the adjective is still a candidate.
    assert.deepEqual(headCandidates('BONELESS', 'en'), ['boneless']);
  });
});
