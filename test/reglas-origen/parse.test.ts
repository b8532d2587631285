/**
 * The parser of rule texts (src/reglas-origen/parse.ts), pure: each form found in the shipped files
 * (TIPAT's Annex 3-D, the UK list) and the DOF's Spanish phrasings, read into the contract's
 * structure; what it cannot read with certainty stays `otro` with its text; the share of each file's
 * entries read without `otro`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseArchivo, shippedDir } from '../../src/reglas-origen/archivos.js';
import { coberturaDe } from '../../src/reglas-origen/indice.js';
import type { Requisito } from '../../src/reglas-origen/parse.js';
import { PARTIDA_DEL_PRODUCTO, leerCodigos, leerConjunto, leerEntrada, normalizarTexto } from '../../src/reglas-origen/parse.js';

const read = (text: string, partida: string | null = null): Requisito[][] =>
  leerEntrada(normalizarTexto(text), { partida }).alternativas.map((a) => [...a.requisitos]);

const cth = (excepto: unknown[] = [], desde: unknown[] | null = null) => ({ tipo: 'cambio_partida', excepto, desde });

describe('texto', () => {
  test('links reduced to their text, emphasis and &nbsp; removed, whitespace collapsed', () => {
    assert.equal(
      normalizarTexto('A change to a good of [subheading&nbsp;482320](/subheading/4823200000-80) from any other heading, *or*\n\n \n\n- a) **30%** under'),
      'A change to a good of subheading 482320 from any other heading, or - a) 30% under',
    );
  });
});

describe('changes of classification (TIPAT, English)', () => {
  const cases: [string, Requisito[][]][] = [
    ['A change to a good of subheading 482320 from any other heading, except from subheading 480540.', [[cth(['480540'])]] as Requisito[][]],
    ['A change to a good of heading 0101 to heading 0106 from any other chapter.', [[{ tipo: 'cambio_capitulo', excepto: [], desde: null }]]],
    ['A change to a good of subheading 030431 through 030439 from any other heading.', [[cth()]] as Requisito[][]],
    ['A change to a good of subheading 030441 from any other subheading.', [[{ tipo: 'cambio_subpartida', excepto: [], desde: null }]]],
    ['A change to a good of heading 1105 from any other chapter, except from heading 0701.', [[{ tipo: 'cambio_capitulo', excepto: ['0701'], desde: null }]]],
    [
      'A change to a good of heading 0402 from any other heading, except from heading 0401 to heading 0404.',
      [[cth([{ desde: '0401', hasta: '0404' }])]] as Requisito[][],
    ],
    [
      'A change to a good of subheading 200911 from any other chapter, except from subheading 080510 or subheading 200912.',
      [[{ tipo: 'cambio_capitulo', excepto: ['080510', '200912'], desde: null }]],
    ],
    ['A change to a good of subheading 110290 from any other chapter, except from chapter 3.', [[{ tipo: 'cambio_capitulo', excepto: ['03'], desde: null }]]],
    [
      'A change to a good of heading 6101 from any other chapter, except from heading 5106 to heading 5113, heading 5204 to heading 5212 or 5307 to 5308, subheading 540211 through 540220 or 540231 through 540239, or heading 5508 to heading 5516.',
      [
        [
          {
            tipo: 'cambio_capitulo',
            excepto: [
              { desde: '5106', hasta: '5113' },
              { desde: '5204', hasta: '5212' },
              { desde: '5307', hasta: '5308' },
              { desde: '540211', hasta: '540220' },
              { desde: '540231', hasta: '540239' },
              { desde: '5508', hasta: '5516' },
            ],
            desde: null,
          },
        ],
      ],
    ],
    [
      'A change to a good of subheading 851660 from any other heading, provided there is a regional value content of not less than 45% under the build-down method.',
      [[cth(), { tipo: 'contenido_regional', metodo: 'reduccion', minimo: '45', materiales: null }]] as Requisito[][],
    ],
    [
      'A change to a good of subheading 200911 from any other chapter, provided that the value of non-originating materials of subheading 080510 does not exceed 60% of the value of the good.',
      [
        [
          { tipo: 'cambio_capitulo', excepto: [], desde: null },
          { tipo: 'valor_max_no_originarios', maximo: '60', base: 'valor_mercancia', materiales: ['080510'] },
        ],
      ],
    ],
  ];
  for (const [text, expected] of cases) test(text, () => assert.deepEqual(read(text), expected));

  test('the goods a rule names are its mercancias; "a good of …" is all the set’s goods', () => {
    assert.equal(
      leerEntrada('A change to Engraulis spp. (Anchovies) of subheading 030449 from any other chapter.', { partida: null }).mercancias,
      'Engraulis spp. (Anchovies)',
    );
    assert.equal(leerEntrada('A change to any other good of subheading 030449 from any other chapter.', { partida: null }).mercancias, 'any other good');
    assert.equal(leerEntrada('A change to a good of subheading 030449 from any other chapter.', { partida: null }).mercancias, null);
  });

  test('a condition it cannot read joins the change as otro; exceptions named in words make the whole entry otro', () => {
    const text =
      'A change to a good of subheading 610910 from any other chapter, provided the good is cut or knit to shape, or both, and sewn or otherwise assembled in the territory of one or more of the Parties.';
    assert.deepEqual(read(text), [
      [
        { tipo: 'cambio_capitulo', excepto: [], desde: null },
        {
          tipo: 'otro',
          texto: 'provided the good is cut or knit to shape, or both, and sewn or otherwise assembled in the territory of one or more of the Parties',
        },
      ],
    ]);
    const words = 'A change to a good of subheading 853710 from any other heading, except from control panels of subheading 853790.';
    assert.deepEqual(read(words), [[{ tipo: 'otro', texto: words }]]);
    const smoked =
      'No change in tariff classification required for a good of subheading 030541, provided that the good is smoked from a good that is not smoked.';
    assert.deepEqual(read(smoked), [[{ tipo: 'otro', texto: smoked }]]);
  });

  test('a note is kept as otro beside what was read', () => {
    assert.deepEqual(
      read(
        'A change to any other good of subheading 190120 from any other chapter.\n\nNote: Where more than one product-specific rule is applicable to a good of subheading 190120, the good must satisfy the requirements of each applicable product-specific rule.',
      ),
      [
        [
          { tipo: 'cambio_capitulo', excepto: [], desde: null },
          {
            tipo: 'otro',
            texto:
              'Note: Where more than one product-specific rule is applicable to a good of subheading 190120, the good must satisfy the requirements of each applicable product-specific rule.',
          },
        ],
      ],
    );
  });
});

describe('regional value content: a lettered list is one alternative per letter', () => {
  test('TIPAT writes each letter as an entry of its own (operator "or"): each joins what the first entry required besides', () => {
    const set = [
      { rule: 'A change to a good of [subheading&nbsp;842191](/x) through 842199 from any other heading.', operator: null },
      {
        rule: 'No change in tariff classification required for a good of [subheading&nbsp;842191](/x) through 842199, provided there is a regional value content of not less than:\n\n \n\n- a) **30%** under the build-up method.',
        operator: 'or' as const,
      },
      { rule: '- b) **40%** under the build-down method.', operator: 'or' as const },
      {
        rule: '- c) **50%** under the focused value method taking into account only the non-originating materials of [heading&nbsp;8421](/headings/8421).',
        operator: 'or' as const,
      },
    ];
    const reglas = leerConjunto(set, { partida: null });
    assert.equal(reglas.length, 1);
    assert.deepEqual(
      reglas[0]!.alternativas.map((a) => a.requisitos),
      [
        [cth()],
        [{ tipo: 'contenido_regional', metodo: 'aumento', minimo: '30', materiales: null }],
        [{ tipo: 'contenido_regional', metodo: 'reduccion', minimo: '40', materiales: null }],
        [{ tipo: 'contenido_regional', metodo: 'valor_enfocado', minimo: '50', materiales: ['8421'] }],
      ],
    );
    assert.deepEqual(reglas[0]!.leidas, [true, true, true, true]);
  });

  test('a change with a lettered threshold: every letter keeps the change', () => {
    const set = [
      {
        rule: 'A change to a good of heading 6406 from any other heading, except from subheading 640610, provided there is a regional value content of not less than:\n\n- a) **45%** under the build-up method.',
        operator: null,
      },
      { rule: '- b) **55%** under the build-down method.', operator: 'or' as const },
    ];
    const [regla] = leerConjunto(set, { partida: '6406' });
    assert.deepEqual(
      regla!.alternativas.map((a) => a.requisitos),
      [
        [cth(['640610']), { tipo: 'contenido_regional', metodo: 'aumento', minimo: '45', materiales: null }],
        [cth(['640610']), { tipo: 'contenido_regional', metodo: 'reduccion', minimo: '55', materiales: null }],
      ],
    );
  });

  test('net cost and the vehicles’ appendix note', () => {
    assert.deepEqual(read('- b) 50% under the net cost method.'), [[{ tipo: 'contenido_regional', metodo: 'costo_neto', minimo: '50', materiales: null }]]);
    const entry = leerEntrada(
      '- c) 55% under the build-down method. See also Appendix 1 (Provisions Related to the Product-Specific Rules of Origin for Certain Vehicles and Parts of Vehicles).',
      { partida: null },
    );
    assert.equal(entry.continuacion, true);
    assert.deepEqual(
      entry.alternativas[0]!.requisitos.map((r) => r.tipo),
      ['contenido_regional', 'otro'],
    );
  });

  test('an entry with operator null after the first starts another rule, with its goods and first entry', () => {
    const reglas = leerConjunto(
      [
        { rule: 'A change to Engraulis spp. (Anchovies) of subheading 030449 from any other chapter.', operator: null },
        { rule: 'A change to any other good of subheading 030449 from any other heading.', operator: null },
        {
          rule: 'No change in tariff classification required for any other good of subheading 030449, provided there is a regional value content of not less than 40% under the build-down method.',
          operator: 'or',
        },
      ],
      { partida: '0304' },
    );
    assert.deepEqual(
      reglas.map((r) => [r.entrada, r.mercancias, r.texto.length, r.alternativas.length]),
      [
        [0, 'Engraulis spp. (Anchovies)', 1, 1],
        [1, 'any other good', 2, 2],
      ],
    );
  });
});

describe('working or processing rules (the UK list, English)', () => {
  const cases: [string, Requisito[][]][] = [
    [
      'Manufacture in which the value of all the materials used does not exceed **40%** of the ex-works price of the product.',
      [[{ tipo: 'valor_max_no_originarios', maximo: '40', base: 'precio_franco_fabrica', materiales: null }]],
    ],
    ['Manufacture in which all the materials used are classified within a heading other than that of the product.', [[cth()]] as Requisito[][]],
    [
      'Manufacture in which:\n\n- all the materials used are classified within a heading other than that of the product,\n\n- the value of all the materials used does not exceed **40%** of the ex-works price of the product.',
      [[cth(), { tipo: 'valor_max_no_originarios', maximo: '40', base: 'precio_franco_fabrica', materiales: null }]] as Requisito[][],
    ],
    ['Manufacture from materials of any heading.', [[{ tipo: 'sin_cambio' }]]],
    ['Manufacture from materials of any heading, including other materials of heading 2909.', [[{ tipo: 'sin_cambio' }]]],
    ['All the animals of [chapter&nbsp;1](/chapters/01) used must be wholly obtained.', [[{ tipo: 'totalmente_obtenido', materiales: ['01'] }]]],
    [
      'Manufacture in which all the materials of chapter 1 and chapter 2 used must be wholly obtained.',
      [[{ tipo: 'totalmente_obtenido', materiales: ['01', '02'] }]],
    ],
    [
      'Manufacture in which the value of any materials of chapter 17 used does not exceed **30%** of the ex-works price of the product.',
      [[{ tipo: 'valor_max_no_originarios', maximo: '30', base: 'precio_franco_fabrica', materiales: ['17'] }]],
    ],
    [
      'Manufacture in which all the materials used must already be originating.',
      [[{ tipo: 'valor_max_no_originarios', maximo: '0', base: 'precio_franco_fabrica', materiales: null }]],
    ],
  ];
  for (const [text, expected] of cases) test(normalizarTexto(text), () => assert.deepEqual(read(text, '0101'), expected));

  test('the same-heading tolerance is the value limit on the heading’s own materials', () => {
    const text =
      'Manufacture in which all the materials used are classified within a heading other than that of the product. However, materials classified within the same heading may be used provided their value does not exceed **20%** of the ex-works price of the product.';
    assert.deepEqual(read(text, '3204'), [[{ tipo: 'valor_max_no_originarios', maximo: '20', base: 'precio_franco_fabrica', materiales: ['3204'] }]]);
    // A set over several headings: the good's own, put in when a fraction is asked for.
    assert.deepEqual(read(text, null), [
      [{ tipo: 'valor_max_no_originarios', maximo: '20', base: 'precio_franco_fabrica', materiales: [PARTIDA_DEL_PRODUCTO] }],
    ]);
  });

  test('"from materials of heading …" and "a heading other than …" read against the set’s own heading', () => {
    assert.deepEqual(read('Manufacture from materials of heading 4104.', '4107'), [[cth([], ['4104'])]]);
    assert.deepEqual(read('Manufacture in which all the materials used are classified within a heading other than heading 2207 or heading 2208.', '2208'), [
      [cth(['2207'])],
    ]);
    // Read only where the set's heading is known.
    assert.equal(read('Manufacture from materials of heading 4104.', null)[0]![0]!.tipo, 'otro');
  });

  test('a change of heading "except for materials of …", a "however" that adds a limit or an exclusion', () => {
    assert.deepEqual(
      read(
        'Manufacture in which all the materials used are classified within a heading other than that of the product, except for materials of chapter 73 and heading 4814.',
        '8418',
      ),
      [[cth(['73', '4814'])]] as Requisito[][],
    );
    assert.deepEqual(
      read(
        'Manufacture from materials of any heading. However, the value of all the materials of heading 4403 and heading 4407 used may not exceed 20% of the ex-works price of the product.',
        '4418',
      ),
      [[{ tipo: 'sin_cambio' }, { tipo: 'valor_max_no_originarios', maximo: '20', base: 'precio_franco_fabrica', materiales: ['4403', '4407'] }]],
    );
    assert.deepEqual(
      read(
        'Manufacture in which all the materials used are classified within a heading other than that of the product. However, waste and scrap of heading 7602 may not be used.',
        '7601',
      ),
      [[cth(['7602'])]] as Requisito[][],
    );
    // A "however" that loosens with words the parser does not know: the whole entry is otro.
    const loose =
      'Manufacture in which all the materials used are classified within a heading other than that of the product. However, mustard flour or meal or prepared mustard may be used.';
    assert.deepEqual(read(loose, '2103'), [[{ tipo: 'otro', texto: loose }]]);
  });

  test('processes and production from named materials stay otro with their text', () => {
    for (const text of [
      'Manufacture from yarn. See introductory note 6.',
      'Beading or moulding.',
      'Manufacture in which all the fruit, nuts or vegetables used must be wholly obtained.',
    ]) {
      assert.deepEqual(read(text, '5208'), [[{ tipo: 'otro', texto: text }]]);
    }
  });
});

describe('working or processing rules: exclusions, tolerances of excluded headings, lists with an unread item', () => {
  const max = (maximo: string, materiales: unknown[] | null) => ({ tipo: 'valor_max_no_originarios', maximo, base: 'precio_franco_fabrica', materiales });

  test('"materials of any heading, except those of …": those may not be non-originating (0 % of the price); for goods of one of them, a change of heading', () => {
    assert.deepEqual(read('Manufacture from materials of any heading, except those of heading 1108.', '3505'), [[max('0', ['1108'])]]);
    assert.deepEqual(read('Manufacture from materials of any heading except those of chapter 11.', '1905'), [[max('0', ['11'])]]);
    assert.deepEqual(read('Manufacture from materials of any heading, except those of heading 4011 or heading 4012.', '4012'), [
      [cth(['4011'])],
    ] as Requisito[][]);
    // Goods named in words are not codes: the entry stays otro.
    for (const text of [
      'Manufacture from materials of any heading except those of heading 0203, heading 0206 or heading 0207 or bones of heading 0506.',
      'Manufacture from materials of any heading except for assemblies of uppers affixed to inner soles or to other sole components of heading 6406.',
      'Manufacture from materials of any heading except potato starch of heading 110.',
    ]) {
      assert.deepEqual(read(text, '1501'), [[{ tipo: 'otro', texto: text }]]);
    }
  });

  test('"materials not classified in …" and "a heading other than heading … to heading …"', () => {
    assert.deepEqual(read('Manufacture from materials not classified in heading 4909 or heading 4911.', '4910'), [[max('0', ['4909', '4911'])]]);
    assert.deepEqual(read('Manufacture from materials not classified in heading 8714.', '8712'), [[max('0', ['8714'])]]);
    assert.deepEqual(read('Manufacture in which all the materials used are classified within a heading other than heading 3701 to heading 3704.', '3704'), [
      [cth([{ desde: '3701', hasta: '3704' }])],
    ] as Requisito[][]);
  });

  test('a tolerance for excluded headings: the tolerated ones limited by value, the others still excluded', () => {
    const base = 'Manufacture in which all the materials used are classified within a heading other than heading 3701 or heading 3702.';
    assert.deepEqual(
      read(`${base} However, materials from heading 3702 may be used provided their value does not exceed 30% of the ex-works price of the product.`, '3701'),
      [[cth(), max('30', ['3702'])]] as Requisito[][],
    );
    assert.deepEqual(
      read(
        `${base} However, materials from heading 3701 and heading 3702 may be used provided their value taken together, does not exceed 20% of the ex-works price of the product.`,
        '3701',
      ),
      [[max('20', ['3701', '3702'])]],
    );
    // Several headings without "taken together" (each, or all?), a tolerated heading the change does not exclude, or goods of a set over
    // several headings: unsure, otro.
    for (const [text, partida] of [
      [
        `${base} However, materials from heading 3701 and heading 3702 may be used provided their value does not exceed 20% of the ex-works price of the product.`,
        '3701',
      ],
      [
        'Manufacture in which all the materials used are classified within a heading other than that of the product. However, materials of heading 3003 or heading 3004 may be used provided their value, taken together, does not exceed 20% of the ex-works price of the product.',
        '3003',
      ],
      [`${base} However, materials from heading 3702 may be used provided their value does not exceed 30% of the ex-works price of the product.`, null],
      [
        'Manufacture in which all the materials used are classified within a heading other than that of the product. However, the other materials of heading 8302 may be used provided their value does not exceed 20% of the ex-works price of the product.',
        '8302',
      ],
    ] as const) {
      assert.deepEqual(read(text, partida), [[{ tipo: 'otro', texto: text }]], text);
    }
  });

  test('a "however" written without a full stop before it; "that of that of the product"; "the value of the materials … are only used up to"', () => {
    assert.deepEqual(
      read(
        'Manufacture in which all the materials used are classified within a heading other than that of the product However, waste and scrap of heading 7802 may not be used.',
        '7801',
      ),
      [[cth(['7802'])]] as Requisito[][],
    );
    assert.deepEqual(
      read(
        'Manufacture in which: - all the materials used are classified within a heading other than that of that of the product - the value of all the materials used does not exceed 50% of the ex-works price of the product.',
        '5810',
      ),
      [[cth(), max('50', null)]] as Requisito[][],
    );
    assert.deepEqual(
      read(
        'Manufacture: - in which the value of all the materials used does not exceed 40% of the ex-works price of the product, - where, within the above limit, the value of the materials classified within heading 8431 are only used up to a value of 10% of the ex-works price of the product.',
        '8430',
      ),
      [[max('40', null), max('10', ['8431'])]],
    );
    assert.deepEqual(
      read(
        'Manufacture in which: - all the materials used are classified within a heading other than that of the product. However, materials classified within the same heading may be used provided their value does not exceed 20% of the ex-works price of the product, - the value of all the materials used does not exceed 50% of the ex-works price of the product.',
        '3105',
      ),
      [[max('20', ['3105']), max('50', null)]],
    );
  });

  test('the value of the non-originating materials not above that of the originating ones is no type of the contract: otro, the other items still required', () => {
    const vnm = 'where the value of all the non-originating materials used does not exceed the value of the originating materials used';
    const text = `Manufacture: - in which the value of all the materials used does not exceed 40% of the ex-works price of the product, - ${vnm}.`;
    assert.deepEqual(read(text, '8519'), [[max('40', null), { tipo: 'otro', texto: `${vnm}.` }]]);
    const [entrada] = leerConjunto([{ rule: text, operator: null }], { partida: '8519' });
    assert.deepEqual(entrada!.leidas, [false], 'an entry with an otro requirement is not counted as read');
    // An unread item that may loosen another ("this restriction only applies …", "However, … may be used"): the whole entry is otro.
    const loosening =
      'Manufacture in which: - the value of all the materials used does not exceed 40% of the ex-works price of the product - the value of any materials of chapter 39 used does not exceed 20% of the ex-works price of the product In the case of the products composed of materials classified within both heading 3901 to heading 3906, on the one hand, and within heading 3907 to heading 3911, on the other hand, this restriction only applies to that group of materials which predominates by weight in the product.';
    assert.deepEqual(read(loosening, '3921'), [[{ tipo: 'otro', texto: loosening }]]);
    // A chapter number missing from the text is not supplied.
    const missing =
      'Manufacture in which: - all the materials of chapter used must be wholly obtained, and - the value of any materials of chapter 17 used does not exceed 30% of the value of the ex-works price of the product.';
    assert.deepEqual(read(missing, null), [[{ tipo: 'otro', texto: 'all the materials of chapter used must be wholly obtained' }, max('30', ['17'])]]);
  });

  test('the DOF’s Spanish of the same forms', () => {
    assert.deepEqual(read('Manufactura a partir de materiales de cualquier partida, excepto los de la partida 11.08.', '3505'), [[max('0', ['1108'])]]);
    assert.deepEqual(read('Manufactura a partir de materiales no clasificados en la partida 87.14.', '8712'), [[max('0', ['8714'])]]);
  });
});

describe('the DOF’s Spanish', () => {
  test('the contract’s three examples', () => {
    assert.deepEqual(read('Un cambio a la subpartida 4823.20 de cualquier otra partida, excepto de la subpartida 4805.40.'), [
      [cth(['480540'])],
    ] as Requisito[][]);
    assert.deepEqual(
      read(
        'No se requiere cambio de clasificación arancelaria a la partida 96.02, siempre que exista un contenido regional no menor a: (a) 35 por ciento cuando se utilice el método de aumento; o (b) 45 por ciento cuando se utilice el método de reducción',
      ),
      [
        [{ tipo: 'contenido_regional', metodo: 'aumento', minimo: '35', materiales: null }],
        [{ tipo: 'contenido_regional', metodo: 'reduccion', minimo: '45', materiales: null }],
      ],
    );
    assert.deepEqual(
      read('Manufactura en la cual el valor de todos los materiales utilizados no exceda del 50 por ciento del precio franco fábrica del producto'),
      [[{ tipo: 'valor_max_no_originarios', maximo: '50', base: 'precio_franco_fabrica', materiales: null }]],
    );
  });

  test('chapters, fractions, ranges and sources in Spanish', () => {
    assert.deepEqual(read('Un cambio a la partida 96.02 de cualquier otro capítulo.'), [[{ tipo: 'cambio_capitulo', excepto: [], desde: null }]]);
    assert.deepEqual(read('Un cambio a la fracción arancelaria 8708.29.99 de cualquier otra fracción arancelaria.'), [
      [{ tipo: 'cambio_fraccion', excepto: [], desde: null }],
    ]);
    assert.deepEqual(read('Un cambio a la partida 18.06 de la partida 18.01 a la 18.05.'), [[cth([], [{ desde: '1801', hasta: '1805' }])]] as Requisito[][]);
    assert.deepEqual(read('Un cambio a las subpartidas 8708.10 a 8708.21 de cualquier otra partida, excepto de las partidas 72.08 a 72.16.'), [
      [cth([{ desde: '7208', hasta: '7216' }])],
    ] as Requisito[][]);
    assert.deepEqual(
      read(
        'Un cambio a la subpartida 8516.60 de cualquier otra partida, siempre que exista un contenido regional no menor a 50 por ciento cuando se utilice el método de costo neto.',
      ),
      [[cth(), { tipo: 'contenido_regional', metodo: 'costo_neto', minimo: '50', materiales: null }]] as Requisito[][],
    );
  });
});

describe('codes', () => {
  test('levels named once apply to the bare codes after them; words that are not codes refuse the list', () => {
    assert.deepEqual(leerCodigos('heading 5106 to heading 5113, 5204 or chapter 3'), [{ desde: '5106', hasta: '5113' }, '5204', '03']);
    assert.deepEqual(leerCodigos('subheading 8708.10 through 8708.21'), [{ desde: '870810', hasta: '870821' }]);
    assert.equal(leerCodigos('control panels of subheading 853710'), undefined);
    assert.equal(leerCodigos('5204'), undefined);
  });
});

describe('coverage of the shipped files (docs/reglas-origen.md)', () => {
  const share = (archivo: string): number => {
    const c = coberturaDe(parseArchivo(archivo, readFileSync(join(shippedDir, archivo), 'utf8')));
    return c.leidas / c.entradas;
  };
  test('tipat.json: at least 93 % of the entries read without otro', () => assert.ok(share('tipat.json') >= 0.93, String(share('tipat.json'))));
  test('reino-unido.json: at least the share the documentation reports', () =>
    assert.ok(share('reino-unido.json') >= 0.678, String(share('reino-unido.json'))));
});
