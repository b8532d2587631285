/**
 * Search by description over the real LIGIE texts of the demo dataset, on each store, and the same
 * top hits from both stores.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Running } from './servers.js';
import { storeKinds } from './stores.js';
import { fillDemo } from './databases.js';
import { serveFixture } from './servers.js';
import { fold } from '../src/buscar/analysis.js';

let server: Running;

interface Hit {
  FRACCION: string;
  NICO: string | null;
  DESCRIPCION: string | null;
  DESCRIPCION_MARCADA: string | null;
  DESCRIPCIONCAPITULO: string | null;
  RUTA: string | null;
  RELEVANCIA: number;
}
interface Suggestions {
  items: { SUGERENCIA: string; TIPO: string; FRACCION: string | null; NICO: string | null; DESCRIPCION: string | null }[];
}

/** Queries whose top hits both stores must give identically (from bench/buscar-queries.csv's kinds). */
const PARITY_QUERIES = [
  'caballos vivos',
  'llantas para automovil',
  'refrijerador',
  'laptop',
  'tornillos de acero inoxidable m8 x 20mm',
  't-shirts cotton',
  'partes',
];
const topHits = new Map<string, string[][]>();
/** What is typed, and the phrases both stores must suggest identically. */
const SUGGESTION_QUERIES = ['c', 'cafe t', 'queso fr', 'jabon de to', 'llant', 'tires', 'computadora p'];
const suggestions = new Map<string, string[][]>();
interface Page {
  items: Hit[];
  total: number;
  skip: number;
  limit: number;
}

const search = async (q: string, extra = ''): Promise<{ status: number; body: Page }> => {
  const { status, body } = await server.json<Page>(`/api/v1/buscar?q=${encodeURIComponent(q)}${extra}`);
  return { status, body };
};

for (const kind of await storeKinds()) {
  describe(`buscar (${kind})`, () => {
    serveFixture(kind, {}, (running) => (server = running), fillDemo);

    test('accents and case do not matter: cafe finds café', async () => {
      const plain = await search('cafe');
      assert.equal(plain.status, 200);
      assert.ok(plain.body.total > 0);
      // Stemming (PostgreSQL) reduces café to caf, so caffeine in a subheading text matches too.
      assert.ok(plain.body.items.length > 0 && plain.body.items.every((h) => /caf/i.test(JSON.stringify(h))));
      assert.ok(
        plain.body.items.some((h) => h.FRACCION.startsWith('0901')),
        'coffee of heading 0901',
      );
      const accented = await search('CAFÉ');
      assert.deepEqual(accented.body, plain.body);
    });

    test('word prefixes: refrig finds refrigeradores, with the matched word marked', async () => {
      const { body } = await search('refrig');
      assert.ok(body.total > 0);
      const hit = body.items.find((h) => /refrigerador/i.test(h.DESCRIPCION ?? ''));
      assert.ok(hit, 'a refrigerator line');
      assert.match(hit.DESCRIPCION_MARCADA ?? '', /<mark>refrigerador[a-z]*<\/mark>/i);
    });

    test('lines with all the words first; a word nothing has does not empty the answer', async () => {
      const { body } = await search('reproductores raza pura');
      assert.ok(body.total > 0);
      assert.equal(body.items[0]?.DESCRIPCION, 'Reproductores de raza pura');
      for (let i = 1; i < body.items.length; i++) assert.ok(body.items[i - 1]!.RELEVANCIA >= body.items[i]!.RELEVANCIA, 'ranked');
      const extra = await search('caballos reproductores raza pura zzqqxx');
      assert.equal(extra.status, 200);
      assert.equal(extra.body.items[0]?.FRACCION, '01012101', 'the horse line has every known word');
      assert.equal((await search('zzqqxx wwkkyy')).body.total, 0, 'nothing matches: empty');
    });

    test('the Spanish hierarchy is searched: caballos vivos finds heading 0101 though its lines do not say caballos', async () => {
      const { body } = await search('caballos vivos');
      assert.ok(
        body.items.length >= 5 && body.items.slice(0, 5).every((h) => h.FRACCION.startsWith('0101')),
        JSON.stringify(body.items.slice(0, 5).map((h) => h.FRACCION)),
      );
      const line = body.items.find((h) => h.DESCRIPCION === 'Los demás');
      assert.ok(line, 'a "Los demás" line is found through its heading');
      assert.match(line.RUTA ?? '', /^01 Animales vivos › 0101 Caballos, asnos, mulos y burdéganos, vivos\. › 0101\.\d\d .+ › 0101\.\d\d\.\d\d /);
    });

    test('stemming: singular and plural, accents and case give the same hits', async () => {
      const plural = await search('Neumáticos');
      const singular = await search('neumatico');
      assert.ok(plural.body.total > 0);
      assert.deepEqual(singular.body.items.slice(0, 10), plural.body.items.slice(0, 10));
    });

    test('broker vocabulary: jitomate, laptop and llanta find their goods, tyres before the tools for them', async () => {
      assert.ok((await search('jitomate')).body.items[0]?.FRACCION.startsWith('0702'));
      assert.ok((await search('laptop')).body.items.slice(0, 5).some((h) => h.FRACCION.startsWith('847130')));
      const llanta = (await search('llanta', '&limit=1000')).body.items;
      assert.ok(llanta[0]?.FRACCION.startsWith('4011'), `first: ${llanta[0]?.FRACCION}`);
      const firstTyre = llanta.findIndex((h) => h.FRACCION.startsWith('4011'));
      const firstOther = llanta.findIndex((h) => /para|desmontar/i.test(h.DESCRIPCION ?? '') && !h.FRACCION.startsWith('40'));
      assert.ok(firstOther === -1 || firstTyre < firstOther);
    });

    test('Mexican usage: papel de baño is toilet paper, lentes are spectacles', async () => {
      assert.ok((await search('papel de baño')).body.items[0]?.FRACCION.startsWith('481810'));
      const lentes = (await search('lentes graduados')).body.items.slice(0, 5);
      assert.ok(
        lentes.some((h) => h.FRACCION.startsWith('9004')),
        JSON.stringify(lentes.map((h) => h.FRACCION)),
      );
    });

    test('a misspelt word of five letters or more finds its goods', async () => {
      const { body } = await search('refrijerador');
      assert.ok(
        body.items.slice(0, 5).some((h) => h.FRACCION.startsWith('8418')),
        JSON.stringify(body.items.slice(0, 5).map((h) => h.FRACCION)),
      );
      assert.ok((await search('aguacte')).body.items[0]?.FRACCION.startsWith('080440'));
    });

    test('a code typed among words ranks its lines first; one hit per fraction and NICO', async () => {
      const { body } = await search('tornillos 7318.15', '&limit=1000');
      assert.ok(body.items.length > 10 && body.items.slice(0, 10).every((h) => h.FRACCION.startsWith('731815')));
      const codes = body.items.map((h) => `${h.FRACCION}${h.NICO ?? ''}`);
      assert.equal(new Set(codes).size, codes.length);
    });

    test('top hits recorded for the comparison of the stores', async () => {
      const tops: string[][] = [];
      for (const q of PARITY_QUERIES) tops.push((await search(q, '&limit=10')).body.items.map((h) => `${h.FRACCION}${h.NICO ?? ''} ${h.RELEVANCIA}`));
      topHits.set(kind, tops);
      assert.ok(tops.length === PARITY_QUERIES.length && tops.every((t) => t.length > 0));
      const suggested: string[][] = [];
      for (const q of SUGGESTION_QUERIES) {
        suggested.push((await server.json<Suggestions>(`/api/v1/buscar/sugerencias?q=${encodeURIComponent(q)}`)).body.items.map((s) => s.SUGERENCIA));
      }
      suggestions.set(kind, suggested);
      assert.ok(suggested.length === SUGGESTION_QUERIES.length && suggested.every((t) => t.length > 0));
    });

    test('sugerencias: words completed, fractions for digits, at most ten', async () => {
      const words = await server.json<Suggestions>('/api/v1/buscar/sugerencias?q=refrig');
      assert.equal(words.status, 200);
      assert.ok(words.body.items.length > 0 && words.body.items.length <= 10);
      // Phrases of goods holding a word that starts so, those that begin with it first.
      assert.ok(words.body.items.every((s) => s.TIPO === 'palabra' && /(^| )refrig/.test(fold(s.SUGERENCIA))));
      assert.ok(words.body.items[0]!.SUGERENCIA.startsWith('refrig'));
      const coffee = await server.json<Suggestions>(`/api/v1/buscar/sugerencias?q=${encodeURIComponent('cafe t')}`);
      assert.equal(coffee.body.items[0]?.SUGERENCIA, 'café tostado');
      assert.ok(coffee.body.items.some((s) => s.SUGERENCIA === 'café tostado descafeinado'));
      assert.ok(coffee.body.items.every((s) => /^café .*\bt/.test(s.SUGERENCIA)));
      const soap = await server.json<Suggestions>(`/api/v1/buscar/sugerencias?q=${encodeURIComponent('jabon de to')}`);
      assert.equal(soap.body.items[0]?.SUGERENCIA, 'jabón de tocador');
      // English only for an English query: a Spanish one never gets the US tariff's words.
      const english = await server.json<Suggestions>('/api/v1/buscar/sugerencias?q=tires');
      assert.ok(english.body.items.length > 0 && english.body.items.every((s) => /\btires?\b/.test(s.SUGERENCIA)));
      for (const q of ['c', 'queso fr', 'refrig']) {
        const spanish = await server.json<Suggestions>(`/api/v1/buscar/sugerencias?q=${encodeURIComponent(q)}`);
        assert.ok(
          spanish.body.items.length > 0 && spanish.body.items.every((s) => !/\b(of|and|the|for|with|other)\b/.test(s.SUGERENCIA)),
          `${q}: ${JSON.stringify(spanish.body.items)}`,
        );
      }
      // Never a lone stop word.
      const stop = await server.json<Suggestions>('/api/v1/buscar/sugerencias?q=de');
      assert.ok(
        stop.body.items.length > 0 && stop.body.items.every((s) => s.SUGERENCIA.split(' ').length > 1 || !['de', 'del', 'desde'].includes(s.SUGERENCIA)),
      );
      const phrase = await server.json<Suggestions>(`/api/v1/buscar/sugerencias?q=${encodeURIComponent('caballos viv')}`);
      assert.ok(phrase.body.items.some((s) => s.SUGERENCIA === 'caballos vivos'));
      const codes = await server.json<Suggestions>('/api/v1/buscar/sugerencias?q=0101.2');
      assert.ok(codes.body.items.length > 0 && codes.body.items.every((s) => s.TIPO === 'fraccion' && s.SUGERENCIA.startsWith('01012')));
      assert.equal(codes.body.items[0]?.FRACCION, '01012101');
    });

    test('sugerencias: 1 to 100 characters, else 422 in the contract shape; a token is required', async () => {
      const empty = await server.json<{ detail: { type: string; loc: string[] }[] }>('/api/v1/buscar/sugerencias?q=');
      assert.equal(empty.status, 422);
      assert.deepEqual(empty.body.detail[0]?.loc, ['query', 'q']);
      const long = await server.json<{ detail: { type: string }[] }>(`/api/v1/buscar/sugerencias?q=${'a'.repeat(101)}`);
      assert.equal(long.status, 422);
      assert.equal(long.body.detail[0]?.type, 'string_too_long');
      assert.equal((await server.json('/api/v1/buscar/sugerencias')).status, 422);
      assert.equal((await fetch(`${server.base}/api/v1/buscar/sugerencias?q=caf`)).status, 401);
    });

    test('a query of digits is a code search', async () => {
      const { body } = await search('0101.21');
      assert.ok(body.total > 0);
      assert.ok(body.items.length > 0 && body.items.every((h) => h.FRACCION.startsWith('010121')));
      const exact = await search('0101210100');
      assert.deepEqual(
        exact.body.items.map((h) => [h.FRACCION, h.NICO, h.DESCRIPCION]),
        [['01012101', '00', 'Reproductores de raza pura']],
      );
    });

    test('paging: skip and limit with a total of all hits', async () => {
      const all = await search('animales', '&limit=1000');
      const page = await search('animales', '&skip=2&limit=3');
      assert.equal(page.body.total, all.body.total);
      assert.deepEqual(page.body.items, all.body.items.slice(2, 5));
      assert.deepEqual([page.body.skip, page.body.limit], [2, 3]);
      assert.equal((await search('animales', '&limit=0')).status, 422);
    });

    test('hits carry the nomenclature texts', async () => {
      const { body } = await search('cafe');
      assert.ok(body.items.length > 0 && body.items.every((h) => 'DESCRIPCIONCAPITULO' in h && 'DESCRIPCIONPARTIDA' in h && 'DESCRIPCIONSUBPARTIDA' in h));
      assert.ok(body.items.some((h) => (h.DESCRIPCIONCAPITULO ?? '').length > 0));
    });

    test('empty, missing or overlong queries are 422', async () => {
      assert.equal((await server.json('/api/v1/buscar')).status, 422);
      assert.equal((await search('')).status, 422);
      assert.equal((await search('   ')).status, 422);
      const long = await server.json<{ detail: { type: string }[] }>(`/api/v1/buscar?q=${'a'.repeat(201)}`);
      assert.equal(long.status, 422);
      assert.equal(long.body.detail[0]?.type, 'string_too_long');
    });

    test('search syntax is treated as text, never a 500', async () => {
      for (const q of ['"', 'a OR b', 'NEAR(a b)', 'caf*', '(', 'col:val', "'; DROP TABLE fracciones; --", '^', '-cafe', 'a AND NOT b', '***', '🙂']) {
        const { status, body } = await search(q);
        assert.equal(status, 200, q);
        assert.ok(Array.isArray(body.items), q);
      }
      const star = await search('caf*');
      const plain = await search('caf');
      assert.deepEqual(star.body, plain.body, 'an operator character is only a separator');
    });
  });
}

describe('buscar: both stores', () => {
  test('SQLite and PostgreSQL give the same top hits with the same relevance', (t) => {
    if (topHits.size < 2) return t.skip('PostgreSQL not reachable: nothing to compare');
    const [a, b] = [...topHits.values()];
    assert.deepEqual(a, b);
  });

  test('SQLite and PostgreSQL suggest the same phrases in the same order', (t) => {
    if (suggestions.size < 2) return t.skip('PostgreSQL not reachable: nothing to compare');
    const [a, b] = [...suggestions.values()];
    assert.deepEqual(a, b);
  });
});
