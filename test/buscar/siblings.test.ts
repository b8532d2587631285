/**
 * Issue 44, third part: a form or packaging noun opening a phrase names no goods, "other than" in a
 * text is what the goods are not, and a query word that some siblings' own texts hold and others' not
 * decides between them. Asked directly of the reading, the analysis and the ranking.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { splitTerms } from '../../src/buscar/analysis.js';
import { isAttribute } from '../../src/buscar/attributes.js';
import type { QueryPlan } from '../../src/buscar/plan.js';
import { HEAD_HEADING, MATCHED_WORD } from '../../src/buscar/plan.js';
import { PostingIndex } from '../../src/buscar/ranking.js';
import { headCandidates, leadingForm } from '../../src/buscar/reading.js';

describe('a form or packaging noun before the contents', () => {
  test('passes the head to the noun after it, in Spanish and in English', () => {
    assert.equal(leadingForm('ROLLO DE PELICULA STRETCH DE POLIETILENO 18 PULG'), 'rollo');
    assert.equal(leadingForm('caja de galletas'), 'caja');
    assert.equal(leadingForm('BOX OF CHOCOLATES'), 'box');
    assert.equal(headCandidates('ROLLO DE PELICULA STRETCH', 'es', 'rollo')[0], 'pelicula');
    assert.equal(headCandidates('caja de galletas', 'es', 'caja')[0], 'galletas');
    assert.equal(headCandidates('BOX OF CHOCOLATES', 'en', 'box')[0], 'chocolates');
  });

  test('is the goods when a material follows, or when a reference names the pair', () => {
    assert.equal(leadingForm('caja de cartón'), undefined);
    assert.equal(leadingForm('bolsa de plástico'), undefined);
    assert.equal(
      leadingForm('bolsas de mano de piel', (form, contents) => form === 'bolsas' && contents === 'mano'),
      undefined,
    );
    assert.equal(leadingForm('garrafa'), undefined);
    assert.equal(leadingForm('FILTRO DE ACEITE'), undefined);
  });
});

describe('"other than" in a text', () => {
  test('what follows is not what the goods are', () => {
    const split = splitTerms("Shirts; men's or boys', of textile materials (other than cotton or man-made fibres), knitted");
    assert.ok(!split.main.includes('cotton'));
    assert.ok(split.context.includes('cotton'));
    assert.ok(splitTerms('Shirts, of cotton').main.includes('cotton'));
  });
});

describe('a discriminating qualifier among siblings', () => {
  const plan: QueryPlan = {
    groups: [
      { primary: ['parabris '], secondary: [], weight: 700, matched: MATCHED_WORD },
      { primary: ['lamin '], secondary: ['contrachap '], weight: 380, matched: MATCHED_WORD },
    ],
    codes: [],
    marks: [],
    headings: [{ heading: '7007', bonus: HEAD_HEADING }],
    quantityCodes: '',
  };

  test("the sibling whose own texts hold a word the others' do not comes first", () => {
    // As the load tags them: 1 a reference (the whole heading), 3 a word of the line, 4 of the hierarchy, 6 English.
    const index = new PostingIndex([
      { CODIGO: '7007110100', TERMINOS: ' 1parabris 1lamin 4vidri 4templ 6laminat ' },
      { CODIGO: '7007119999', TERMINOS: ' 1parabris 1lamin 4vidri 4templ 6laminat ' },
      { CODIGO: '7007219999', TERMINOS: ' 1parabris 1lamin 4vidri 4contrachap 6laminat ' },
    ]);
    assert.deepEqual(
      index.rank(plan, 0, 3).page.map((p) => p.CODIGO),
      ['7007219999', '7007110100', '7007119999'],
    );
  });

  test('a word every sibling holds decides nothing', () => {
    const index = new PostingIndex([
      { CODIGO: '7007110100', TERMINOS: ' 1parabris 4lamin ' },
      { CODIGO: '7007219999', TERMINOS: ' 1parabris 4lamin ' },
    ]);
    const [a, b] = index.rank(plan, 0, 2).page;
    assert.equal(a!.RELEVANCIA, b!.RELEVANCIA);
  });
});

describe('a container later in a line', () => {
  test('is an attribute, as caja and bolsa are', () => {
    assert.ok(isAttribute('garrafa', 5));
    assert.ok(isAttribute('BOTTLE'.toLowerCase(), 3));
    assert.ok(!isAttribute('garrafa', 0));
  });
});
