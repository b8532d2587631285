/**
 * A batch answers as the single calls do on every version of the demo, the TIGIE 2012 (before the NICO
 * existed) as well as the LIGIE 2022, and reads a typed fraction as the API's parameter does.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Running } from './servers.js';
import { tempDir } from './lifetime.js';
import { endedOn } from './batch-end.js';
import { copyOfBuiltDemo } from './databases.js';
import { startServer } from './servers.js';

interface Resultado {
  referencia: string;
  fraccion: string | null;
  nico: string | null;
  estado_fraccion: string;
  igi: unknown;
  error: string | null;
}

interface Page<T> {
  items: T[];
}

const LINES = ['referencia,fraccion', 'SIN_NICO,0101.21.01', 'CON_NICO,0101.21.01.00', 'GUIONES,0101-21-01', 'NICO_RARO,0101210199'].join('\r\n');

describe('a batch on each version of the demo answers as the single calls', () => {
  const tmp = tempDir('tariff-lotes-versions-');
  let server: Running;

  before(async () => {
    await copyOfBuiltDemo(join(tmp.dir, 'demo.sqlite'));
    server = await startServer({ DATABASE_URL: `sqlite:${join(tmp.dir, 'demo.sqlite')}` });
  });
  after(async () => {
    await server?.close();
    tmp.remove();
  });

  /** The batch of LINES on `fecha`: sent once for the tests that read it on the same date. */
  const batches = new Map<string, Promise<Map<string, Resultado>>>();
  function batch(fecha: string): Promise<Map<string, Resultado>> {
    let answered = batches.get(fecha);
    if (answered === undefined) {
      answered = sent(fecha);
      batches.set(fecha, answered);
    }
    return answered;
  }

  async function sent(fecha: string): Promise<Map<string, Resultado>> {
    const response = await fetch(`${server.base}/api/v1/lotes?fecha=${fecha}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/csv' },
      body: LINES,
    });
    assert.equal(response.status, 202, await response.clone().text());
    const { id } = (await response.json()) as { id: string };
    await endedOn(server, id, 120_000);
    const page = await server.json<Page<Resultado>>(`/api/v1/lotes/${id}/resultados?limit=1000`);
    return new Map(page.body.items.map((r) => [r.referencia, r]));
  }

  /** How many records `GET /api/v1/fracciones` finds for a typed code on that date, or its refusal. */
  async function fracciones(code: string, asOf: string): Promise<number | 'refused'> {
    const answer = await server.json<{ total: number }>(`/api/v1/fracciones?fraccion=${encodeURIComponent(code)}&as_of=${asOf}`);
    return answer.status === 422 ? 'refused' : answer.body.total;
  }

  test('TIGIE 2012: no NICO is known; a line without one is the fraction, a NICO given does not exist', async () => {
    const lines = await batch('2015-01-01');
    assert.equal(await fracciones('0101.21.01', '2015-01-01'), 1);
    const plain = lines.get('SIN_NICO')!;
    assert.deepEqual([plain.fraccion, plain.nico, plain.estado_fraccion], ['01012101', null, 'vigente']);
    assert.notEqual(plain.igi, null);

    assert.equal(await fracciones('0101.21.01.00', '2015-01-01'), 0);
    const withNico = lines.get('CON_NICO')!;
    assert.deepEqual([withNico.fraccion, withNico.nico, withNico.estado_fraccion], ['01012101', '00', 'nico_inexistente']);
    assert.equal(withNico.igi, null);
  });

  test('LIGIE 2022: the NICO is read and checked as before', async () => {
    const lines = await batch('2024-01-15');
    assert.deepEqual([lines.get('SIN_NICO')!.nico, lines.get('SIN_NICO')!.estado_fraccion], ['00', 'vigente']);
    assert.deepEqual([lines.get('CON_NICO')!.nico, lines.get('CON_NICO')!.estado_fraccion], ['00', 'vigente']);
    assert.equal(lines.get('NICO_RARO')!.estado_fraccion, 'nico_inexistente');
  });

  test('a typed fraction is read as the API reads it: 0101-21-01 is refused by both', async () => {
    assert.equal(await fracciones('0101-21-01', '2024-01-15'), 'refused');
    const lines = await batch('2024-01-15');
    const hyphens = lines.get('GUIONES')!;
    assert.equal(hyphens.fraccion, null);
    assert.equal(hyphens.estado_fraccion, 'inexistente');
    assert.match(hyphens.error ?? '', /fraccion "0101-21-01" no es una fracción arancelaria/);
  });
});
