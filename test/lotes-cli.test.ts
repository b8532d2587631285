/**
 * `tariff-lookup lote FILE` against a real database, on both stores: once as the built CLI in a process
 * of its own on SQLite (its CSV on a real pipe, nothing on stderr, exit 0), the other cases, and that
 * one on PostgreSQL, in the test's process (cliInProcess), whose streams are not terminals either.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import type { Outcome } from './commands.js';
import { temporary } from './lifetime.js';
import { storeKinds } from './stores.js';
import { database } from './databases.js';
import { cliInProcess, outcomeOf } from './commands.js';

const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** `tariff-lookup lote ...args` as a process of its own. */
function spawned(url: string, args: string[]): Promise<Outcome> {
  const child = spawn(process.execPath, [cli, 'lote', ...args], { env: { ...process.env, DATABASE_URL: url }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  return outcomeOf(child);
}

/** `tariff-lookup lote ...args` in this process. */
const run = (url: string, args: string[]): Promise<Outcome> => cliInProcess(['lote', ...args], { DATABASE_URL: url });

const CATALOGUE = 'referencia;Descripción;fraccion;valor_aduana\nA1;"=HYPERLINK(""x"")";01012101;100.00\nA2;algo;99999999;\n';

for (const kind of await storeKinds()) {
  describe(`tariff-lookup lote (${kind})`, () => {
    test('answers every line as CSV on stdout or to an XLSX file, quietly when not on a terminal', async (t) => {
      const db = await database(t, kind);
      const dir = temporary(t);
      const file = join(dir, 'catalogo.csv');
      writeFileSync(file, CATALOGUE);
      // In a process of its own on the first store only: the process (its pipe, its stderr, its exit) is
      // the same whatever the store, and costs a load of the service; on the other store, in this process.
      const args = [file, '--pais', 'usa', '--fecha', '2026-01-15'];
      const csv = kind === 'sqlite' ? await spawned(db.url, args) : await run(db.url, args);
      assert.equal(csv.code, 0, csv.stderr);
      assert.equal(csv.stderr, '');
      const rows = csv.stdout
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split('\r\n');
      assert.equal(rows.length, 3);
      assert.ok(rows[0]!.startsWith('linea,referencia,descripcion,fraccion'));
      assert.ok(rows[1]!.startsWith(`2,A1,"'=HYPERLINK(""x"")",01012101,`));
      assert.ok(rows[2]!.startsWith('3,A2,algo,99999999,,inexistente,'));

      const out = join(dir, 'resultados.xlsx');
      const xlsx = await run(db.url, [file, '--salida', out]);
      assert.equal(xlsx.code, 0, xlsx.stderr);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(readFileSync(out) as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      assert.equal(sheet.rowCount, 3);
      assert.equal(sheet.getRow(2).getCell(3).value, '=HYPERLINK("x")');
      assert.equal(sheet.getRow(2).getCell(3).type, ExcelJS.ValueType.String);
    });

    test('a file it cannot take, or a bad option, is one line on stderr and a non-zero exit', async (t) => {
      const db = await database(t, kind);
      const dir = temporary(t);
      const bad = join(dir, 'malo.csv');
      writeFileSync(bad, 'referencia,nombre\nA,b\n');
      for (const args of [[bad], [join(dir, 'x.pdf')], [bad, '--fecha', '2026-13-01'], [bad, '--salida', join(dir, 'x.pdf')]]) {
        const outcome = await run(db.url, args);
        assert.equal(outcome.code, 1, args.join(' '));
        assert.match(outcome.stderr, /^tariff-lookup: .+\n$/);
      }
    });
  });
}
