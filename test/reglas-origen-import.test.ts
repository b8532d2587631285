/**
 * Rules of origin as data of every version (../shared/spec/reglas-origen.md, "Data"): every load holds
 * the shipped files; an import folder's `reglas-origen/<clave>.json` adds or replaces an agreement's
 * rules, in English or in the DOF's Spanish; a file that is not the shape stops the import, naming the
 * file, the entry and the reason, and no version holds half of it. On both stores.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { runImport } from '../src/data/import.js';
import { SHIPPED, shippedDir } from '../src/reglas-origen/archivos.js';
import type { Running } from './servers.js';
import { temporary, waitFor } from './lifetime.js';
import { storeKinds } from './stores.js';
import { serveFixture } from './servers.js';

interface Cobertura {
  reglas_origen: { acuerdo: string; archivo: string; conjuntos: number }[];
}

const shipped = SHIPPED.map(({ archivo, acuerdo }) => ({
  acuerdo,
  archivo,
  conjuntos: (JSON.parse(readFileSync(join(shippedDir, archivo), 'utf8')) as { rule_sets: unknown[] }).rule_sets.length,
}));

/** Two sets of T-MEC's annex as the DOF publishes them, in Spanish. */
export const TMEC = {
  rule_sets: [
    {
      heading: '4823',
      min: '4823200000',
      max: '4823299999',
      rules: [{ rule: 'Un cambio a la subpartida 4823.20 de cualquier otra partida, excepto de la subpartida 4805.40.', operator: null }],
      valid: true,
    },
    {
      heading: '9602',
      min: '9602000000',
      max: '9602999999',
      rules: [
        {
          rule: 'No se requiere cambio de clasificación arancelaria a la partida 96.02, siempre que exista un contenido regional no menor a: (a) 35 por ciento cuando se utilice el método de aumento; o (b) 45 por ciento cuando se utilice el método de reducción',
          operator: null,
        },
      ],
      valid: true,
    },
  ],
};

const versionOf = async (server: Running, version: string): Promise<{ status: number; body: { cobertura: Cobertura } }> => {
  let answer = await server.json<{ cobertura: Cobertura }>(`/api/v1/versiones/${version}`);
  await waitFor(`version ${version}`, async () => {
    answer = await server.json<{ cobertura: Cobertura }>(`/api/v1/versiones/${version}`);
    return answer.status === 200;
  });
  return answer;
};

for (const kind of await storeKinds()) {
  describe(`rules of origin loaded with every version (${kind})`, () => {
    let server: Running;
    let url: string;
    serveFixture(kind, {}, (running, db) => {
      server = running;
      url = db.url;
    });

    test('every load holds the shipped rules, named in the version’s cobertura with their rule sets', async () => {
      const { status, body } = await versionOf(server, '1900-01-01.1');
      assert.equal(status, 200);
      assert.deepEqual(body.cobertura.reglas_origen, shipped);
      assert.ok(shipped.every((s) => s.conjuntos > 100));
    });

    test('an operator’s file adds an agreement (DOF Spanish); a bad file stops the import naming file, entry and reason', async (t) => {
      const config = loadConfig({ DATABASE_URL: url });
      const dir = temporary(t);
      mkdirSync(join(dir, 'reglas-origen'));
      writeFileSync(join(dir, 'reglas-origen', 't-mec.json'), JSON.stringify(TMEC));
      const report = await runImport({ directory: dir, config, vigenteDesde: '2020-02-02' });
      assert.equal(report.failure, null);
      assert.deepEqual(
        report.reglasOrigen.map((r) => r.acuerdo),
        [...shipped.map((s) => s.acuerdo), 'T-MEC'],
      );
      const { body } = await versionOf(server, '2020-02-02.1');
      assert.deepEqual(body.cobertura.reglas_origen, [...shipped, { acuerdo: 'T-MEC', archivo: 't-mec.json', conjuntos: 2 }]);

      // The same folder with a broken second set: nothing imported, the file, entry and reason named.
      const broken = structuredClone(TMEC);
      broken.rule_sets[1]!.min = '96020';
      writeFileSync(join(dir, 'reglas-origen', 't-mec.json'), JSON.stringify(broken));
      const refused = await runImport({ directory: dir, config, vigenteDesde: '2020-03-03' });
      assert.equal(refused.imported, false);
      assert.equal(refused.failure, 'reglas-origen/t-mec.json: entry rule_sets[1].min: "96020" is not a code of 10 digits');
      writeFileSync(
        join(dir, 'reglas-origen', 't-mec.json'),
        '{"rule_sets": [{"heading": "01", "min": "0100000000", "max": "0199999999", "rules": [{"rule": "x", "operator": "and"}]}]}',
      );
      assert.match(
        (await runImport({ directory: dir, config, vigenteDesde: '2020-03-03' })).failure ?? '',
        /t-mec\.json: entry rule_sets\[0\]\.rules\[0\]\.operator: "and" is neither "or" nor null/,
      );
      writeFileSync(join(dir, 'reglas-origen', 't-mec.json'), '{"rule_sets": [');
      assert.match((await runImport({ directory: dir, config, vigenteDesde: '2020-03-03' })).failure ?? '', /t-mec\.json: not JSON/);
      writeFileSync(join(dir, 'reglas-origen', 't-mec.json'), JSON.stringify(TMEC));
      writeFileSync(join(dir, 'reglas-origen', 'mercosur.json'), JSON.stringify(TMEC));
      assert.match(
        (await runImport({ directory: dir, config, vigenteDesde: '2020-03-03' })).failure ?? '',
        /mercosur\.json: mercosur names no free-trade agreement of acuerdos\.csv/,
      );
      assert.equal((await server.json('/api/v1/versiones/2020-03-03.1')).status, 404, 'no version holds half a load');
    });
  });
}
