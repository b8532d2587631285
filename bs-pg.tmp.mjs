import pg from 'pg';
import { demoRecords } from './dist/src/data/demo/index.js';
import { recordToRow } from './dist/src/data/load.js';
import { recordSets } from './dist/src/record-sets/index.js';
import { writePostgresDatabase } from './dist/src/store/postgres.js';
import { loadConfig } from './dist/src/config.js';
import { PostgresStore } from './dist/src/store/postgres.js';
if (process.env.LOAD) {
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS bs_search WITH (FORCE)');
await admin.query(`CREATE DATABASE bs_search ENCODING 'UTF8' TEMPLATE template0`);
await admin.end();
const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
await writePostgresDatabase('postgres://postgres@127.0.0.1:5432/bs_search', 'demo', async (writer) => {
  for (const { recordSet, record } of demoRecords('./data/sources/')) { const rs = byPath.get(recordSet); writer.insert(rs, recordToRow(rs, record)); await writer.ready(); }
});
}
const store = new PostgresStore(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/bs_search' }));
for (const q of ['partes', 'aparatos electricos de uso domestico', 'tornillos de acero inoxidable m8 x 20mm caja 100 pzas', 'caballos vivos']) {
  await store.fullText({ text: q, code: null, skip: 0, limit: 10 });
  const t = performance.now(); for (let i=0;i<5;i++) await store.fullText({ text: q, code: null, skip: 0, limit: 10 }); console.log(q, ((performance.now()-t)/5).toFixed(1));
}
await store.close();
