/** Search by description over the real LIGIE texts of the demo dataset. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Running } from './helpers.js';
import { fillDemo, serveFixture, storeKinds } from './helpers.js';

let server: Running;

interface Hit {
  FRACCION: string;
  NICO: string | null;
  DESCRIPCION: string | null;
  DESCRIPCION_MARCADA: string | null;
  DESCRIPCIONCAPITULO: string | null;
  RELEVANCIA: number;
}
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
      assert.ok(plain.body.items.every((h) => /caf/i.test(JSON.stringify(h))));
      assert.ok(plain.body.items.some((h) => h.FRACCION.startsWith('0901')), 'coffee of heading 0901');
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

    test('several words must all match, best match first', async () => {
      const { body } = await search('reproductores raza pura');
      assert.ok(body.total > 0);
      assert.equal(body.items[0]?.DESCRIPCION, 'Reproductores de raza pura');
      for (let i = 1; i < body.items.length; i++) assert.ok(body.items[i - 1]!.RELEVANCIA >= body.items[i]!.RELEVANCIA, 'ranked');
      const narrower = await search('reproductores raza pura caballos inexistentexyz');
      assert.equal(narrower.body.total, 0);
    });

    test('a query of digits is a code search', async () => {
      const { body } = await search('0101.21');
      assert.ok(body.total > 0);
      assert.ok(body.items.every((h) => h.FRACCION.startsWith('010121')));
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
      assert.ok(body.items.every((h) => 'DESCRIPCIONCAPITULO' in h && 'DESCRIPCIONPARTIDA' in h && 'DESCRIPCIONSUBPARTIDA' in h));
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
