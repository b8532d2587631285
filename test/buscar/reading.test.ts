/**
 * Issue 44's reading of a description: the head of the phrase (the goods), the quantities typed and
 * the ranges the tariff's texts state, and how they choose among headings and sibling lines.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EVIDENCE, PHRASE, evidenceOf, rangeRowsOf } from '../../src/buscar/evidence.js';
import { parseReferences } from '../../src/buscar/references.js';
import type { LineRow } from '../../src/buscar/documents.js';
import { inRange, queryQuantities, rangesOf } from '../../src/buscar/quantities.js';
import { headCandidates, languageOf } from '../../src/buscar/reading.js';
import { HEAD_HEADING, Vocabulary } from '../../src/buscar/vocabulary.js';
import { vocabularyOf } from '../../src/buscar/documents.js';
import { negatedWords, splitTerms, stem } from '../../src/buscar/analysis.js';
import { PhraseIndex, phrasesOf } from '../../src/buscar/phrases.js';

describe('the head of a phrase', () => {
  test('Spanish: the first word naming goods, before de, para, con, tipo or p/', () => {
    assert.equal(headCandidates('FILTRO DE ACEITE P/MOTOR DE GASOLINA AUTOMOTRIZ', 'es')[0], 'filtro');
    assert.equal(headCandidates('Bolsa de polietileno tipo camiseta para supermercado 40x60 cm', 'es')[0], 'bolsa');
    assert.equal(headCandidates('Interruptor termomagnetico 2 polos 30 A 240 V', 'es')[0], 'interruptor');
  });

  test('Spanish: leading numbers, codes, units and set words are skipped; attributes never head', () => {
    assert.equal(headCandidates('10 PZAS JUEGO DE SABANAS MATRIMONIAL', 'es')[0], 'sabanas');
    assert.equal(headCandidates('100% ALGODON PLAYERA MANGA CORTA', 'es')[0], 'playera');
    assert.deepEqual(headCandidates('PLAYERA MANGA CORTA CABALLERO 100% ALGODON', 'es'), ['playera', 'manga', 'corta', 'caballero']);
  });

  test('English: the last word naming goods before for, of, with, a break or a figure', () => {
    assert.equal(headCandidates('STAINLESS STEEL HEX BOLT M10X40 FOR MACHINERY', 'en')[0], 'bolt');
    assert.equal(headCandidates('LED LIGHT BULB 9W E27 WARM WHITE', 'en')[0], 'bulb');
    // "T-SHIRT" is one word (analysis.ts): shirts alone are other goods (6105, 6205).
    assert.equal(headCandidates("MEN'S 100% COTTON KNITTED T-SHIRT", 'en')[0], 'tshirt');
    assert.equal(headCandidates('ALUMINUM FOIL ROLL FOR KITCHEN 30CM X 100M', 'en')[0], 'foil');
  });

  test('the language: connecting words first, then which texts hold the words', () => {
    const english = (w: string): boolean => ['bulb', 'light', 'warm'].includes(w);
    const spanish = (w: string): boolean => ['foco', 'luz'].includes(w);
    assert.equal(languageOf('STAINLESS STEEL BOLT FOR MACHINERY', english, spanish), 'en');
    assert.equal(languageOf('FILTRO DE ACEITE', english, spanish), 'es');
    assert.equal(languageOf('LED LIGHT BULB 9W', english, spanish), 'en');
    assert.equal(languageOf('foco led 9w luz calida', english, spanish), 'es');
  });
});

describe('quantities', () => {
  test('units as brokers write them, in their base unit', () => {
    assert.deepEqual(queryQuantities('Motocicleta de trabajo 150 cc motor de gasolina'), [{ unit: 'cm3', value: 150 }]);
    assert.deepEqual(queryQuantities('LICUADORA 1.5 LTS 600W'), [
      { unit: 'l', value: 1.5 },
      { unit: 'W', value: 600 },
    ]);
    assert.deepEqual(queryQuantities('Interruptor 2 polos 30 A 240 V'), [
      { unit: 'A', value: 30 },
      { unit: 'V', value: 240 },
    ]);
    assert.deepEqual(queryQuantities('MOTOR 1.5 kW 16 PULG 2 HP 500 ML'), [
      { unit: 'W', value: 1500 },
      { unit: 'in', value: 16 },
      { unit: 'hp', value: 2 },
      { unit: 'l', value: 0.5 },
    ]);
    assert.deepEqual(queryQuantities('MODELO 15W40 R16'), [], 'a model code is no quantity');
  });

  test('ranges the tariff texts state, in Spanish and in English', () => {
    const [moto] = rangesOf('Con motor de émbolo de cilindrada superior a 50 cm³ pero inferior o igual a 250 cm³');
    assert.deepEqual(moto, { unit: 'cm3', min: 50, minIncluded: false, max: 250, maxIncluded: true });
    const [english] = rangesOf('internal combustion piston engine, of cylinder capacity exceeding 50cc but not exceeding 250cc');
    assert.deepEqual(english, { unit: 'cm3', min: 50, minIncluded: false, max: 250, maxIncluded: true });
    assert.deepEqual(rangesOf('De potencia inferior o igual a 50 W'), [{ unit: 'W', min: null, minIncluded: false, max: 50, maxIncluded: true }]);
    assert.deepEqual(rangesOf('De cilindrada superior a 1,500 cm3'), [{ unit: 'cm3', min: 1500, minIncluded: false, max: null, maxIncluded: false }]);
    assert.deepEqual(rangesOf('for a voltage not exceeding 1000 volts'), [{ unit: 'V', min: null, minIncluded: false, max: 1000, maxIncluded: true }]);
    assert.deepEqual(rangesOf('De capacidad entre 10 y 20 kg'), [{ unit: 'kg', min: 10, minIncluded: true, max: 20, maxIncluded: true }]);
    assert.deepEqual(rangesOf('Motocicletas de 150 cm³'), [], 'a number with no bound states no range');
  });

  test('a quantity falls in a range by its bounds, included or not', () => {
    const [range] = rangesOf('superior a 50 cm³ pero inferior o igual a 250 cm³');
    assert.ok(range);
    assert.equal(inRange({ unit: 'cm3', value: 150 }, range), true);
    assert.equal(inRange({ unit: 'cm3', value: 250 }, range), true);
    assert.equal(inRange({ unit: 'cm3', value: 50 }, range), false);
    assert.equal(inRange({ unit: 'W', value: 150 }, range), false);
  });
});

/** A small tariff: three headings that all say "bolsa" or "camiseta" somewhere, and sibling motorcycle lines. */
const LINES: LineRow[] = [
  line(
    '3923210100',
    'De polímeros de etileno',
    'Sacos (bolsas), bolsitas y cucuruchos: De polímeros de etileno',
    'Artículos para el transporte o envasado, de plástico; sacos (bolsas)',
  ),
  line('6109100100', 'Camisetas de algodón', 'De algodón', 'Camisetas, de punto'),
  line('4202920100', 'Bolsas de mano de plástico', 'Con la superficie exterior de plástico', 'Baúles, maletas, bolsos de mano'),
  line('8711100100', 'Motocicletas', 'Con motor de émbolo de cilindrada inferior o igual a 50 cm³', 'Motocicletas y velocípedos con motor auxiliar'),
  line(
    '8711200100',
    'Motocicletas',
    'Con motor de émbolo de cilindrada superior a 50 cm³ pero inferior o igual a 250 cm³',
    'Motocicletas y velocípedos con motor auxiliar',
  ),
  line(
    '8711300100',
    'Motocicletas',
    'Con motor de émbolo de cilindrada superior a 250 cm³ pero inferior o igual a 500 cm³',
    'Motocicletas y velocípedos con motor auxiliar',
  ),
  line('8407330100', 'Motores de gasolina', 'De cilindrada superior a 250 cm³ pero inferior o igual a 1,000 cm³', 'Motores de émbolo de encendido por chispa'),
];

/** A search vocabulary of the test's lines alone, built as a load builds it. */
function vocabulary(): Vocabulary {
  const terms = new Map<string, number>();
  for (const e of evidenceOf(LINES, new Map(), [])) terms.set(e.TERMINO, 1);
  return new Vocabulary({
    documents: LINES.length,
    terms: [...terms].map(([TERMINO, DF]) => ({ TERMINO, DF })),
    words: vocabularyOf(LINES, [], stem),
    synonyms: [],
    codes: [],
    phrases: phrasesOf(LINES, [], new Map()),
    evidence: evidenceOf(LINES, new Map(), []),
    ranges: rangeRowsOf(LINES),
  });
}

function line(code: string, text: string, subheading: string, heading: string): LineRow {
  return {
    FRACCION: code.slice(0, 8),
    NICO: code.slice(8),
    DESCRIPCION: text,
    DESCRIPCIONFRACCION: text,
    DESCRIPCIONNICO: null,
    DESCRIPCIONSUBPARTIDA: subheading,
    DESCRIPCIONPARTIDA: heading,
    DESCRIPCIONCAPITULO: null,
  };
}

describe('heading first, then the line', () => {
  test('the head names the headings; a qualifier cannot bring in one the goods are not in', () => {
    const plan = vocabulary().plan('Bolsa de polietileno tipo camiseta para supermercado 40x60 cm');
    const headings = plan.headings.map((h) => h.heading);
    assert.ok(headings.includes('3923'), headings.join(' '));
    assert.ok(!headings.includes('6109'), 'camiseta qualifies the bag: the T-shirts are no candidate heading');
    assert.ok(plan.headings.every((h) => h.bonus >= HEAD_HEADING));
  });

  test('a quantity marks the sibling line whose range holds it, within the headings the head names', () => {
    const plan = vocabulary().plan('Motocicleta de trabajo 150 cc motor de gasolina');
    assert.equal(plan.headings[0]?.heading, '8711');
    assert.equal(plan.quantityCodes.trim(), '8711200100');
    const big = vocabulary().plan('Motocicleta 300 cc');
    assert.equal(big.quantityCodes.trim(), '8711300100');
  });
});

describe('heading evidence', () => {
  test('a search reference of several words names its codes as a phrase; alone, its words are goods words and its qualifiers less', () => {
    const [reference] = parseReferences('termino,codigos,palabras\nbolsa de plastico,3923,\n');
    const rows = evidenceOf(LINES, new Map(), [reference!]);
    const evidence = new Map(rows.map((e) => [e.TERMINO, e.ES]));
    const strength = (term: string): number => Number(/3923:(\d+)/.exec(evidence.get(stem(term)) ?? '')?.[1]);
    assert.equal(strength('bolsa'), EVIDENCE.goods, evidence.get(stem('bolsa')));
    assert.ok(strength('plastico') <= EVIDENCE.goods, `the reference does not make plástico name the goods (${strength('plastico')})`);
    const phrase = rows.find((e) => e.IDIOMA === PHRASE);
    assert.deepEqual([phrase?.TERMINO, phrase?.ES], [`${stem('bolsa')} ${stem('plastico')}`, '3923']);
  });

  test('typed whole from the head on, the phrase names its headings first; a part of it does not', () => {
    const lines = [
      line('8408100100', 'Motores para barcos', 'Motores para la propulsión de barcos', 'Motores de émbolo de encendido por compresión (motores diésel)'),
      line('2710192100', 'Aceite diésel (gasóleo)', 'Los demás aceites', 'Aceites de petróleo'),
      line('9401300100', 'Asientos giratorios', 'Asientos giratorios de altura ajustable', 'Asientos, incluso los transformables en cama'),
      line('8713100100', 'Sin mecanismo de propulsión', 'Sin mecanismo de propulsión', 'Sillones de ruedas y demás vehículos para inválidos'),
    ];
    const references = parseReferences('termino,codigos,palabras\ndiesel,2710,\nmotor diesel,8408,\nmotor oil,2710,\nsilla,9401,\nsilla de ruedas,8713,\n');
    const v = vocabularyOf2(lines, references);
    const diesel = v.plan('motores diesel');
    assert.equal(diesel.headings[0]?.heading, '8408', JSON.stringify(diesel.headings));
    assert.deepEqual(diesel.phraseCodes, ['8408']);
    assert.equal(v.plan('aceite diesel').headings[0]?.heading, '2710');
    assert.equal(v.plan('silla de oficina giratoria').headings[0]?.heading, '9401', 'silla de ruedas names wheelchairs, not every chair');
    assert.equal(v.plan('silla de ruedas plegable').headings[0]?.heading, '8713');
  });
});

describe('words that qualify whatever the goods', () => {
  test('a state typed after the goods is an attribute: it is read against the texts, never names the goods', () => {
    const lines = [
      line('1604140100', 'Atunes', 'Atunes, listados y bonitos', 'Preparaciones y conservas de pescado'),
      line('7310210100', 'Latas', 'Latas o botes para ser cerrados por soldadura', 'Depósitos, barriles, latas, de fundición, hierro o acero'),
    ];
    const plan = vocabularyOf2(lines, []).plan('atun en lata');
    assert.deepEqual(
      plan.groups.map((g) => g.matched > 0),
      [true, false],
    );
    assert.equal(plan.headings[0]?.heading, '1604');
  });

  test('what a text says the goods lack is found only by a description saying the same', () => {
    assert.deepEqual(splitTerms('Lana sin cardar ni peinar').main, [stem('lana'), `~${stem('cardar')}`, `~${stem('peinar')}`]);
    assert.deepEqual([...negatedWords('lana sin cardar ni peinar, lavada')], ['cardar', 'peinar']);
    const lines = [
      line('8301409900', 'Las demás cerraduras', 'Las demás cerraduras', 'Candados, cerraduras y cerrojos, de metal común; llaves de metal común'),
      line('8302410600', 'Cerraduras sin llave', 'Para edificios', 'Guarniciones, herrajes y artículos similares, de metal común'),
    ];
    const v = vocabularyOf2(lines, []);
    const keys = v.plan('cerradura para puerta con 4 llaves');
    assert.ok(
      keys.groups.some((g) => g.primary.includes(`${stem('llaves')} `)),
      'llaves is the word itself',
    );
    const keyless = v.plan('cerradura sin llave');
    assert.ok(
      keyless.groups.some((g) => g.primary.includes(`~${stem('llave')} `)),
      'sin llave finds the texts saying so',
    );
  });

  test('the head of a Spanish phrase counts more than a qualifier in the lines holding it', () => {
    const lines = [
      line('8708800100', 'Amortiguadores', 'Sistemas de suspensión y sus partes', 'Partes y accesorios de vehículos automóviles'),
      line('8708299901', 'Compuerta trasera abatible', 'Las demás partes de carrocería', 'Partes y accesorios de vehículos automóviles'),
    ];
    const [head, qualifier] = vocabularyOf2(lines, []).plan('amortiguador trasero para camioneta').groups;
    assert.ok(head!.matched > qualifier!.matched, `${head!.matched} ${qualifier!.matched}`);
  });

  test('a plural in -rnos is stemmed as its singular, not as a verb with "nos"', () => {
    assert.equal(stem('cuadernos'), stem('cuaderno'));
    assert.equal(stem('modernos'), stem('moderno'));
  });
});

/** A search vocabulary of some lines and references, built as a load builds it. */
function vocabularyOf2(lines: LineRow[], references: ReturnType<typeof parseReferences>): Vocabulary {
  const evidence = evidenceOf(lines, new Map(), references);
  return new Vocabulary({
    documents: lines.length,
    terms: evidence.filter((e) => e.IDIOMA !== PHRASE).map((e) => ({ TERMINO: e.TERMINO, DF: 1 })),
    words: vocabularyOf(lines, references, stem),
    synonyms: [],
    codes: [],
    phrases: [],
    evidence,
    ranges: [],
  });
}

describe('phrase suggestions after a connecting word', () => {
  test('the word being typed is completed with the words of the headings the head names goods in', () => {
    const suggested = (q: string): string[] =>
      vocabulary()
        .suggest(q)
        .slice(0, 3)
        .map((s) => s.SUGERENCIA);
    assert.ok(suggested('bolsas de pl').includes('bolsas de plástico'), suggested('bolsas de pl').join(' | '));
    assert.ok(suggested('motocicletas con mo').includes('motocicletas con motor'), suggested('motocicletas con mo').join(' | '));
    assert.ok(!suggested('motocicletas con mo').some((s) => s.includes('motocicleta ')), 'the words typed are kept as typed');
  });

  test('a phrase is shown with the words as typed: "vino ti" suggests "vino tinto", never "vinos tinto"', () => {
    const index = new PhraseIndex([
      { FRASE: 'vinos tinto', LINEAS: 3, IDIOMA: 'es' },
      { FRASE: 'café tostado', LINEAS: 2, IDIOMA: 'es' },
    ]);
    assert.deepEqual(index.suggest(['vino'], 'ti'), ['vino tinto']);
    assert.deepEqual(index.suggest(['cafe'], 'to'), ['café tostado'], "a word differing only by accents keeps the tariff's");
  });
});
