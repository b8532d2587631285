/**
 * Issue 44: materials and states read against the tariff's texts, and sizes written crossed. The
 * ranking is asked directly (PostingIndex over tagged terms as the load writes them).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { constructionReading, materialReading, materialsOf, stateReading } from '../../src/buscar/materials.js';
import type { QueryPlan } from '../../src/buscar/plan.js';
import { MATCHED_WORD } from '../../src/buscar/plan.js';
import { queryQuantities } from '../../src/buscar/quantities.js';
import { PostingIndex } from '../../src/buscar/ranking.js';

/** A plan for one goods word, as the vocabulary makes it, with the materials of `text`. */
const planOf = (word: string, text: string): QueryPlan => ({
  groups: [{ primary: [`${word} `], secondary: [], weight: 100, matched: MATCHED_WORD }],
  codes: [],
  marks: [],
  headings: [],
  quantityCodes: '',
  materials: materialsOf(text),
});

describe('materials', () => {
  test('a description states its materials, not those it names as a purpose', () => {
    assert.notEqual(materialsOf('RELOJ DE PULSERA CAJA DE ACERO INOXIDABLE'), 0);
    assert.equal(materialsOf('RELOJ DE PULSERA CAJA DE ACERO INOXIDABLE'), materialsOf('stainless steel'));
    assert.notEqual(materialsOf("MEN'S LEATHER BELT"), materialsOf('cinturón de algodón'));
    assert.equal(materialsOf('tornillos para madera'), 0);
    assert.equal(materialsOf('relojes de pulsera'), 0);
  });

  test('a line reads against them: agrees, contradicts, states one the description does not, or says nothing', () => {
    const steel = materialsOf('acero');
    assert.equal(materialReading(steel, materialsOf('hierro')), 'agrees');
    assert.equal(materialReading(steel, materialsOf('oro')), 'contradicts');
    assert.equal(materialReading(0, materialsOf('oro')), 'unstated');
    assert.equal(materialReading(steel, 0), 'none');
  });

  test('states are read apart from materials, and one not stated says nothing', () => {
    const canned = materialsOf('atún en lata');
    assert.equal(stateReading(canned, materialsOf('congelado')), 'contradicts');
    assert.equal(stateReading(canned, materialsOf('conservas')), 'agrees');
    assert.equal(stateReading(0, materialsOf('congelado')), 'none');
    assert.equal(materialReading(canned, materialsOf('congelado')), 'none');
  });

  test('knitted or not: "de punto" and "tejido plano" are read, "punto de venta" is not; none typed, the knitted line is the less likely', () => {
    const knit = materialsOf('SUETER DE PUNTO');
    const woven = materialsOf('BLUSA TEJIDO PLANO');
    assert.equal(constructionReading(knit, knit), 'agrees');
    assert.equal(constructionReading(woven, knit), 'contradicts');
    assert.equal(constructionReading(0, knit), 'unstated');
    assert.equal(materialsOf('TERMINAL PUNTO DE VENTA'), 0);
    // Chapter 61's chapter text says "de punto" (5: the chapter field).
    const index = new PostingIndex([
      { CODIGO: '6105100100', TERMINOS: ' 2camis 5punt ' },
      { CODIGO: '6205200100', TERMINOS: ' 2camis ' },
    ]);
    assert.deepEqual(
      index.rank(planOf('camis', 'camisas de algodón'), 0, 10).page.map((p) => p.CODIGO),
      ['6205200100', '6105100100'],
    );
    assert.deepEqual(
      index.rank(planOf('camis', 'camisa de punto'), 0, 10).page.map((p) => p.CODIGO),
      ['6105100100', '6205200100'],
    );
  });

  test('the line whose texts state another material ranks below its sibling; the generic sibling first when none is typed', () => {
    // As the load tags them: 2 a head word, 4 a word of the hierarchy.
    const index = new PostingIndex([
      { CODIGO: '9101110100', TERMINOS: ' 2reloj 4caj 4metal 4precios ' },
      { CODIGO: '9102110100', TERMINOS: ' 2reloj 4caj ' },
      { CODIGO: '9102190100', TERMINOS: ' 2reloj 4caj 4acer ' },
    ]);
    const codes = (text: string): string[] => index.rank(planOf('reloj', text), 0, 10).page.map((p) => p.CODIGO);
    assert.deepEqual(codes('reloj caja de acero'), ['9102190100', '9102110100', '9101110100']);
    assert.deepEqual(codes('reloj de oro'), ['9101110100', '9102110100', '9102190100']);
    assert.deepEqual(codes('reloj'), ['9102110100', '9101110100', '9102190100']);
  });
});

describe('sizes written crossed', () => {
  test('each number of "70x140 cm" is a quantity in the unit written after the last', () => {
    assert.deepEqual(queryQuantities('Toalla de baño 70x140 cm'), [
      { unit: 'mm', value: 700 },
      { unit: 'mm', value: 1400 },
    ]);
    assert.deepEqual(
      queryQuantities('AZULEJO 30 X 60 CM')
        .map((q) => q.value)
        .sort((a, b) => a - b),
      [300, 600],
    );
    assert.deepEqual(queryQuantities('TORNILLO M10X40'), []);
  });
});
