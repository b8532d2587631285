/**
 * The search's own pieces: the analysis both stores share, the search references (as shipped, as an
 * import folder replaces them, and refused when malformed), the query plan and the suggestions.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { runImport } from '../../src/data/import.js';
import { editDistance, headTerms, phonetic, splitTerms, stem, terms } from '../../src/buscar/analysis.js';
import { shippedReferences } from '../../src/buscar/index-build.js';
import { REFERENCES_FILE, parseReferences } from '../../src/buscar/references.js';
import { PhraseIndex, textPhrases } from '../../src/buscar/phrases.js';
import { Vocabulary } from '../../src/buscar/vocabulary.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { tempDir } from '../lifetime.js';

describe('analysis', () => {
  test('accents, case, plural and gender fold to one term', () => {
    assert.deepEqual(terms('Neumáticos NEUMATICO neumático'), ['neumat', 'neumat', 'neumat']);
    assert.equal(stem('automóviles'.normalize('NFD').replace(/\p{Mn}/gu, '')), stem('automovil'));
    assert.deepEqual(terms('Los demás, de las partidas'), ['part']);
  });

  test('words of a purpose or parts clause are kept apart from the goods', () => {
    const { main, context } = splitTerms('Herramientas para desmontar llantas');
    assert.deepEqual(main, ['herramient']);
    assert.deepEqual(context, ['desmont', 'llant']);
  });

  test('the head of a text is what it names before a comma or a preposition', () => {
    assert.deepEqual(headTerms('Automóviles de turismo y demás vehículos'), ['automovil']);
    assert.deepEqual(headTerms('Refrigeradores, congeladores y demás material'), ['refriger']);
    assert.deepEqual(headTerms('De los tipos utilizados en automóviles'), []);
    assert.deepEqual(headTerms('Los demás, frescos o refrigerados'), []);
  });

  test('edit distance stops early past its bound', () => {
    assert.equal(editDistance('refrijerador', 'refrigerador', 2), 1);
    assert.equal(editDistance('aguacte', 'aguacate', 2), 1);
    assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
    assert.equal(editDistance('tequlia', 'tequila', 2), 1);
  });

  test('words that sound the same in Spanish have one phonetic form', () => {
    assert.equal(phonetic('keso'), phonetic('queso'));
    assert.equal(phonetic('bacunas'), phonetic('vacunas'));
    assert.equal(phonetic('uevos'), phonetic('huevos'));
    assert.equal(phonetic('sebolla'), phonetic('cebolla'));
    assert.notEqual(phonetic('casa'), phonetic('caza') + 'x');
  });
});

describe('search references', () => {
  test('the shipped table covers every HS section with several hundred entries', () => {
    const refs = shippedReferences();
    assert.ok(refs.length >= 500, `${refs.length} entries`);
    const chapters = new Set(refs.flatMap((r) => r.codes.map((c) => c.slice(0, 2))));
    // One chapter at least of each of the 21 sections.
    for (const c of ['01', '07', '15', '22', '27', '30', '39', '42', '44', '48', '61', '64', '69', '71', '73', '84', '87', '90', '93', '94', '97']) {
      assert.ok(chapters.has(c), `chapter ${c}`);
    }
  });

  test('a malformed entry is refused with its line', () => {
    assert.throws(() => parseReferences('termino,codigos,palabras\nllanta,40AB,\n'), /line 2: 40AB is not a code/);
    assert.throws(() => parseReferences('termino,codigos,palabras\nde,4011,\n'), /line 2: termino has no searchable word/);
    assert.throws(() => parseReferences('termino,codigos,palabras\nllanta,,\n'), /line 2: neither codigos nor palabras/);
    assert.throws(() => parseReferences('termino,codigo\nllanta,4011\n'), /no column codigos/);
  });
});

describe('query plan and suggestions', () => {
  const vocabulary = new Vocabulary({
    documents: 100,
    terms: [
      { TERMINO: 'refriger', DF: 3 },
      { TERMINO: 'tomat', DF: 5 },
      { TERMINO: 'llant', DF: 10 },
    ],
    words: [
      { PALABRA: 'refrigeradores', TERMINO: 'refriger', FRECUENCIA: 3 },
      { PALABRA: 'refrigerados', TERMINO: 'refriger', FRECUENCIA: 9 },
      { PALABRA: 'tomates', TERMINO: 'tomat', FRECUENCIA: 5 },
    ],
    synonyms: [{ TERMINOS: 'jitomat', EXPANSION: 'tomat' }],
    codes: [
      { CODIGO: '0702000301', DESCRIPCION: 'Tomates "Cherry"' },
      { CODIGO: '0702000399', DESCRIPCION: 'Los demás' },
    ],
    phrases: [],
  });

  test('a known word, a synonym, a typo, a code among the words', () => {
    const plan = vocabulary.plan('jitomate refrijeradores 0702.00 xq 250');
    assert.deepEqual(plan.codes, ['070200']);
    assert.deepEqual(
      plan.groups.map((g) => [g.primary, g.secondary]),
      [
        [[], ['tomat ']],
        [[], ['refriger ']],
      ],
    );
    assert.ok(plan.groups.every((g) => g.weight > 0));
  });

  test('an invoice line: units, sizes and model codes left out, attributes weigh less and add no bonus', () => {
    const plan = vocabulary.plan('refrigeradores 500 ML 15W40 tomates');
    assert.equal(plan.groups.length, 2);
    assert.ok(plan.groups.every((g) => g.matched > 0));
    const steel = new Vocabulary({
      documents: 100,
      terms: [
        { TERMINO: 'refriger', DF: 3 },
        { TERMINO: 'acer', DF: 3 },
      ],
      words: [],
      synonyms: [],
      codes: [],
      phrases: [],
    }).plan('refrigerador de acero');
    assert.equal(steel.groups[1]!.matched, 0);
    assert.ok(steel.groups[1]!.weight < steel.groups[0]!.weight);
  });

  test('four bare digits among words are no code; dotted they are', () => {
    assert.deepEqual(vocabulary.plan('rodamiento 6205').codes, []);
    assert.deepEqual(vocabulary.plan('tomates 0702.00').codes, ['070200']);
    assert.deepEqual(vocabulary.plan('0702').codes, ['0702']);
  });

  test('a rarer word weighs more', () => {
    const [rare, common] = vocabulary.plan('refrigeradores llantas').groups;
    assert.ok(rare!.weight > common!.weight);
  });

  test('with no phrase, a lone word is completed, most frequent first, never glued to other words; and codes', () => {
    assert.deepEqual(
      vocabulary.suggest('refri').map((s) => s.SUGERENCIA),
      ['refrigerados', 'refrigeradores'],
    );
    assert.deepEqual(vocabulary.suggest('camion refri'), []);
    assert.deepEqual(
      vocabulary.suggest('0702.00.03').map((s) => [s.FRACCION, s.NICO]),
      [
        ['07020003', '01'],
        ['07020003', '99'],
      ],
    );
    assert.deepEqual(vocabulary.suggest('zz'), []);
  });
});

describe('import: a folder may replace the search references', () => {
  const tmp = tempDir('tariff-search-');
  after(() => tmp.remove());
  const folder = (name: string, references: string): string => {
    const dir = join(tmp.dir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'fracciones.csv'), 'FRACCION,NICO,DESCRIPCION,SYSID\n64041101,00,Calzado de deporte,1\n64041999,99,Los demás,2\n');
    writeFileSync(join(dir, REFERENCES_FILE), references);
    return dir;
  };

  test("the folder's references are the index's, and not listed as an ignored file", async () => {
    const database = join(tmp.dir, 'own.sqlite');
    const report = await runImport({
      directory: folder('own', 'termino,codigos,palabras\nzapatilla voladora,640419,\n'),
      config: loadConfig({ DATABASE_URL: `sqlite:${database}` }),
    });
    assert.equal(report.failure, null);
    assert.ok(!report.ignored.some((i) => i.file === REFERENCES_FILE));
    const store = new SqliteStore(database);
    try {
      const { hits } = await store.fullText({ text: 'zapatillas voladoras', code: null, skip: 0, limit: 10 });
      assert.deepEqual(
        hits.map((h) => h.FRACCION),
        ['64041999'],
      );
      assert.equal((await store.fullText({ text: 'tenis', code: null, skip: 0, limit: 10 })).total, 0, 'the shipped references are not used');
    } finally {
      await store.close();
    }
  });

  test('a malformed references file fails the import and names its line', async () => {
    const report = await runImport({
      directory: folder('bad', 'termino,codigos,palabras\ntenis,64x,\n'),
      config: loadConfig({ DATABASE_URL: `sqlite:${join(tmp.dir, 'bad.sqlite')}` }),
    });
    assert.equal(report.imported, false);
    assert.match(report.failure ?? '', /line 2: 64x is not a code/);
  });
});

describe('suggestion phrases', () => {
  test('a text gives the name of its goods, with a short qualifier, or after its parent', () => {
    assert.deepEqual(
      textPhrases('Café tostado, descafeinado.', null).map((p) => p.join(' ')),
      ['café tostado', 'café tostado descafeinado'],
    );
    assert.deepEqual(
      textPhrases('-- De tocador (incluso los medicinales).', 'jabón').map((p) => p.join(' ')),
      ['jabón de tocador'],
    );
    assert.deepEqual(
      textPhrases('De tocador', 'jabón de tocador').map((p) => p.join(' ')),
      ['jabón de tocador'],
    );
    assert.deepEqual(textPhrases('Los demás', 'jabón'), []);
    assert.ok(textPhrases('Caballos, asnos, mulos y burdéganos, vivos.', null).some((p) => p.join(' ') === 'caballos vivos'));
  });

  const index = new PhraseIndex([
    { FRASE: 'café', LINEAS: 30, IDIOMA: 'es' },
    { FRASE: 'café tostado', LINEAS: 12, IDIOMA: 'es' },
    { FRASE: 'café tostado descafeinado', LINEAS: 6, IDIOMA: 'es' },
    { FRASE: 'extractos de café y té', LINEAS: 20, IDIOMA: 'es' },
    { FRASE: 'roasted coffee', LINEAS: 12, IDIOMA: 'en' },
    { FRASE: 'pan', LINEAS: 3, IDIOMA: 'es' },
    { FRASE: 'pantalones', LINEAS: 40, IDIOMA: 'es' },
  ]);

  test('phrases holding every word, the last as a start, those that begin so first, by lines', () => {
    assert.deepEqual(index.suggest(['cafe'], 't'), ['café tostado', 'café tostado descafeinado', 'extractos de café y té']);
    assert.deepEqual(index.suggest([], 'pan'), ['pan', 'pantalones']);
    assert.deepEqual(index.suggest(['tostado'], null), ['café tostado', 'café tostado descafeinado']);
    assert.deepEqual(index.suggest(['queso'], 'f'), []);
  });

  test('English only when the query is English', () => {
    assert.deepEqual(index.suggest(['roasted'], null), ['roasted coffee']);
    assert.ok(!index.suggest([], 'c').includes('roasted coffee'));
  });
});
