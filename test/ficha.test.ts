/** The ficha of real fractions of the demo dataset: everything each record set holds for them, in one answer. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordSets } from '../src/record-sets/index.js';
import type { Running } from './servers.js';
import { storeKinds } from './stores.js';
import { fillDemo } from './databases.js';
import { serveFixture } from './servers.js';

let server: Running;

type Ficha = Record<string, unknown> & { 'fracciones-anteriores': { reemplaza: unknown[]; reemplazada_por: unknown[] } };
const withFraction = recordSets.filter((rs) => rs.filters.some((f) => f.rule === 'fraction' && f.param === 'fraccion'));

for (const kind of await storeKinds()) {
  describe(`ficha (${kind})`, () => {
    serveFixture(kind, {}, (running) => (server = running), fillDemo);

    for (const fraction of ['01012101', '22021001', '87031004', '72027001']) {
      test(`the ficha of ${fraction} holds exactly what each record set has for it`, async () => {
        const { status, body } = await server.json<Ficha>(`/api/v1/ficha/${fraction.slice(0, 4)}.${fraction.slice(4, 6)}.${fraction.slice(6)}`);
        assert.equal(status, 200);
        assert.equal(body['fraccion'], fraction);
        assert.deepEqual(Object.keys(body).slice(0, 4), ['fraccion', 'nico', 'fracciones', 'informacion-general']);
        assert.ok((body['fracciones'] as unknown[]).length > 0, "the fraction's own lines");
        for (const rs of withFraction) {
          const search = await server.json<unknown>(`/api/v1/${rs.path}/?fraccion=${fraction}&limit=1000`);
          const expected = Array.isArray(search.body) ? search.body : (search.body as { items: unknown[] }).items;
          assert.deepEqual(body[rs.path], expected, `${fraction} ${rs.path}`);
        }
        const replaced = await server.json<unknown[]>(`/api/v1/fracciones-anteriores/?fraccion_actual=${fraction}&limit=1000`);
        assert.deepEqual(body['fracciones-anteriores'].reemplaza, replaced.body);
        const us = await server.json<{ items: unknown[] }>(`/api/v1/fracciones-usa/?fraccion=${fraction.slice(0, 6)}&limit=1000`);
        assert.deepEqual(body['fracciones-usa'], us.body.items);
      });
    }

    test('the real record of 0101.21.01 NICO 00 and its US lines are there', async () => {
      const { body } = await server.json<Ficha>('/api/v1/ficha/0101210100');
      assert.equal(body['nico'], '00');
      const fracciones = body['fracciones'] as { DESCRIPCION: string; NICO: string }[];
      assert.deepEqual(
        fracciones.map((f) => [f.NICO, f.DESCRIPCION]),
        [['00', 'Reproductores de raza pura']],
      );
      const us = body['fracciones-usa'] as { FRACCION_CON_PUNTO: string | null }[];
      assert.ok(us.some((line) => line.FRACCION_CON_PUNTO === '0101.21.00.10'));
      assert.ok((body['tlcs'] as unknown[]).length > 0);
    });

    test('nico and pais narrow, keeping records that apply to the whole fraction or every country', async () => {
      const all = (await server.json<Ficha>('/api/v1/ficha/01012101')).body;
      const usa = (await server.json<Ficha>('/api/v1/ficha/01012101?pais=usa')).body;
      const tlcs = usa['tlcs'] as { PAIS: string | null }[];
      assert.ok(tlcs.length > 0 && tlcs.length < (all['tlcs'] as unknown[]).length);
      assert.ok(tlcs.every((r) => r.PAIS === 'USA' || r.PAIS === null));
      const nico = (await server.json<Ficha>('/api/v1/ficha/01012101?nico=00')).body;
      const lines = nico['fracciones'] as { NICO: string }[];
      assert.ok(lines.length > 0 && lines.every((r) => r.NICO === '00'));
    });

    test('an unknown fraction is 404, a prefix or a malformed one 422, no token 401', async () => {
      assert.deepEqual((await server.json('/api/v1/ficha/99999999')).body, { detail: 'Fraction not found' });
      assert.equal((await server.json('/api/v1/ficha/99999999')).status, 404);
      for (const bad of ['0101', 'abc', '01012101001']) assert.equal((await server.json(`/api/v1/ficha/${bad}`)).status, 422, bad);
      const anonymous = await server.get('/api/v1/ficha/01012101');
      assert.equal(anonymous.status, 401);
      await anonymous.arrayBuffer();
    });
  });
}
