/**
 * A catalogue's repeats are answered once (a memo of the batch's searches, the lines shared among the
 * threads by their description) and every line is answered as if it were alone: a batch full of
 * repeated descriptions and fractions, worked by the service (two threads on SQLite, searches asked two
 * at a time on PostgreSQL), gives for each line exactly the result that a fresh checker, with nothing
 * remembered, gives for that line by itself on the same data.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTables } from '../src/contribuciones/tables.js';
import { loadConfig } from '../src/config.js';
import { LineChecker } from '../src/lotes/answer.js';
import type { Resultado } from '../src/lotes/answer.js';
import type { RawLine } from '../src/lotes/columns.js';
import { recordSets } from '../src/record-sets/index.js';
import { openStore } from '../src/store/drivers.js';
import { endedOn } from './batch-end.js';
import { storeKinds } from './stores.js';
import { database, fillDemo } from './databases.js';
import { serve } from './servers.js';
import { TEST_SECRET } from './service-env.js';

const COLUMNS = ['referencia', 'descripcion', 'fraccion', 'pais_origen', 'valor_aduana'] as const;

/** The demo's tariff lines with a description: the goods the catalogue names again and again. */
async function goods(url: string): Promise<{ descripcion: string; fraccion: string }[]> {
  const store = openStore(loadConfig({ DATABASE_URL: url, JWT_SECRET: TEST_SECRET }));
  try {
    const fracciones = recordSets.find((rs) => rs.path === 'fracciones')!;
    const rows = await store.search(fracciones, { conditions: [], skip: 0, limit: 400 });
    return rows
      .filter((r) => typeof r['DESCRIPCION'] === 'string' && String(r['DESCRIPCION']).length > 3)
      .filter((_, i) => i % 9 === 0)
      .slice(0, 12)
      .map((r) => ({ descripcion: String(r['DESCRIPCION']).replace(/"/g, ''), fraccion: `${String(r['FRACCION'])}${String(r['NICO'] ?? '')}` }));
  } finally {
    await store.close();
  }
}

/**
 * Each description several times: as it is, with spaces around it, in capitals without accents, with
 * another good's fraction (so `coincide` differs), with no fraction, from other countries and none; fractions alone, repeated; and
 * lines with neither, or with an unreadable fraction.
 */
function catalogue(items: readonly { descripcion: string; fraccion: string }[]): Record<(typeof COLUMNS)[number], string>[] {
  const lines: Record<(typeof COLUMNS)[number], string>[] = [];
  const countries = ['USA', 'JPN', '', 'DEU'];
  // Two rounds (122 lines): every kind of line comes again in the second, from another country and with
  // another value, its last lines in the next slice of 100 (the memo outlives a slice); four rounds only
  // repeated the same kinds twice more, every one of their lines checked again alone.
  for (let round = 0; round < 2; round++) {
    for (const [i, item] of items.entries()) {
      const other = items[(i + 1 + round) % items.length]!;
      const pais = countries[(i + round) % countries.length]!;
      const value = `${1000 + i * 10 + round}.00`;
      const n = lines.length;
      lines.push({ referencia: `R${n}`, descripcion: item.descripcion, fraccion: item.fraccion, pais_origen: pais, valor_aduana: value });
      lines.push({ referencia: `R${n + 1}`, descripcion: `  ${item.descripcion} `, fraccion: other.fraccion, pais_origen: pais, valor_aduana: '' });
      lines.push({ referencia: `R${n + 2}`, descripcion: item.descripcion, fraccion: '', pais_origen: 'USA', valor_aduana: value });
      lines.push({ referencia: `R${n + 3}`, descripcion: '', fraccion: item.fraccion.slice(0, 8), pais_origen: pais, valor_aduana: value });
      // Read alike by the search (capitals, no accents, a stop word more): asked once, answered as alone.
      const alike = `${item.descripcion.toUpperCase().normalize('NFD').replace(/\p{M}/gu, '')} de`;
      lines.push({ referencia: `R${n + 4}`, descripcion: alike, fraccion: item.fraccion, pais_origen: pais, valor_aduana: value });
    }
  }
  lines.push({ referencia: `R${lines.length}`, descripcion: '', fraccion: '', pais_origen: '', valor_aduana: '' });
  lines.push({ referencia: `R${lines.length}`, descripcion: items[0]!.descripcion, fraccion: '0101-21-01', pais_origen: 'USA', valor_aduana: '5.00' });
  return lines;
}

const csvOf = (lines: readonly Record<string, string>[]): string =>
  [COLUMNS.join(','), ...lines.map((l) => COLUMNS.map((c) => `"${l[c]!}"`).join(','))].join('\n') + '\n';

describe('repeated lines are answered once, each as if alone', async () => {
  for (const kind of await storeKinds()) {
    test(`on ${kind}: every line of a batch of repeats equals its answer alone`, { timeout: 600_000 }, async (t) => {
      const db = await database(t, kind, fillDemo);
      // Lines shared among two threads on SQLite; on PostgreSQL one thread, whose searches are asked two at
      // a time: the sharing (threaded.ts) is the same code on either store, and a second thread there only
      // built the demo's search structures once more (from every row of the search table, over the wire).
      const server = await serve(t, { DATABASE_URL: db.url, LOTES_HILOS: kind === 'sqlite' ? '2' : '1' });
      const lines = catalogue(await goods(db.url));
      const headers = { authorization: `Bearer ${server.token}` };
      const sent = await fetch(`${server.base}/api/v1/lotes?pais_origen=MEX`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/csv' },
        body: csvOf(lines),
      });
      assert.equal(sent.status, 202, await sent.clone().text());
      const { id } = (await sent.json()) as { id: string };
      const { fecha } = await endedOn<{ estado: string; fecha: string }>(server, id, 600_000);
      const ndjson = await (await fetch(`${server.base}/api/v1/lotes/${id}/resultados?formato=ndjson`, { headers })).text();
      const results = ndjson
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Resultado);
      assert.equal(results.length, lines.length);
      // The repeats were there to be answered once: many lines share a description with an earlier line.
      assert.ok(new Set(lines.map((l) => l.descripcion.trim())).size * 3 < lines.length);

      const store = openStore(loadConfig({ DATABASE_URL: db.url, JWT_SECRET: TEST_SECRET }));
      t.after(() => store.close());
      let differing = 0;
      for (const result of results) {
        const line = lines.find((l) => l.referencia === result.referencia)!;
        const values = Object.fromEntries(COLUMNS.filter((c) => line[c] !== '').map((c) => [c, line[c]]));
        const raw: RawLine = { linea: result.linea, values, extra: {} };
        // A checker of its own for each line: nothing remembered from any other line.
        const [alone] = await new LineChecker(recordSets, loadTables()).check(store, { fecha, paisOrigen: 'MEX' }, [raw]);
        assert.deepEqual(result, JSON.parse(JSON.stringify(alone)), `line ${result.linea} (${result.referencia})`);
        if (result.candidatas.length > 0 && result.coincide !== null) differing++;
      }
      // The comparison held lines that were searched and checked against their fraction, not only empty ones.
      assert.ok(differing > 10, `${differing} lines with candidates and a fraction to check`);
    });
  }
});
