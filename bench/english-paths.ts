/**
 * `npm run english-paths`: how many lines of each dataset version show an English text in their path
 * chapter › heading › subheading, which the page marks as English (docs/demo-dataset.md). A level's
 * text is English when it is the HS 2022 English text of its code (data/sources/hs2022), the same
 * rule the page applies. Reads the SQLite files of the embedded database (DATABASE_URL `sqlite:PATH`,
 * else data/tariff.sqlite) and every older version beside it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { defaultDatabasePath, projectRoot } from '../src/config-values.js';

const url = process.env['DATABASE_URL'] ?? '';
const file = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : defaultDatabasePath;
const hs = parse<{ hscode: string; description: string }>(readFileSync(join(projectRoot, 'data', 'sources', 'hs2022', 'harmonized-system.csv')), {
  columns: true,
});
const english = new Map(hs.map((row) => [row.hscode, row.description]));

const LEVELS = [
  ['capítulos', 2, 'DESCRIPCIONCAPITULO'],
  ['partidas', 4, 'DESCRIPCIONPARTIDA'],
  ['subpartidas', 6, 'DESCRIPCIONSUBPARTIDA'],
] as const;

function count(path: string): void {
  const db = new Database(path, { readonly: true });
  const version = (db.prepare('SELECT source FROM dataset_info LIMIT 1').get() as { source?: string } | undefined)?.source ?? path;
  const rows = db.prepare('SELECT FRACCION, DESCRIPCIONCAPITULO, DESCRIPCIONPARTIDA, DESCRIPCIONSUBPARTIDA FROM informacion_general').all() as Record<
    string,
    string | null
  >[];
  db.close();
  let linesEnglish = 0;
  const codes = LEVELS.map(() => ({ spanish: new Set<string>(), english: new Set<string>() }));
  for (const row of rows) {
    let anyEnglish = false;
    LEVELS.forEach(([, digits, field], i) => {
      const text = row[field];
      if (!text) return;
      const code = String(row['FRACCION']).slice(0, digits);
      const isEnglish = english.get(code) === text.trim();
      anyEnglish ||= isEnglish;
      (isEnglish ? codes[i]!.english : codes[i]!.spanish).add(code);
    });
    if (anyEnglish) linesEnglish++;
  }
  console.log(
    `${version}: ${rows.length} lines (informacion-general), ${rows.length - linesEnglish} with a Spanish path, ${linesEnglish} with a level in English`,
  );
  LEVELS.forEach(([name], i) => console.log(`  ${name}: ${codes[i]!.spanish.size} in Spanish, ${codes[i]!.english.size} in English (marked)`));
}

if (!existsSync(file)) throw new Error(`no database at ${file}: start the service once (npm start) or set DATABASE_URL=sqlite:PATH`);
count(file);
const older = `${file}.versions`;
if (existsSync(older))
  for (const name of readdirSync(older)
    .filter((n) => n.endsWith('.sqlite'))
    .sort())
    count(join(older, name));
