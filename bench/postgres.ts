/**
 * The benchmarks' PostgreSQL database: one of their own on the server BENCH_DATABASE_URL names (by
 * default the local one), loaded with the demo dataset's current version, dropped by `drop`.
 */
import pg from 'pg';
import { demoSourcesDir } from '../src/config-values.js';
import { demoRecords } from '../src/data/demo/index.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { writeDatabase } from '../src/data/write.js';

export interface BenchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A new database `tariff_<label>_<pid>` holding the demo dataset; null when no server answers. */
export async function demoPostgres(label: string): Promise<BenchDatabase | null> {
  const adminUrl = process.env['BENCH_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `tariff_${label}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name} ENCODING 'UTF8' TEMPLATE template0`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = async (): Promise<void> => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  try {
    const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));
    await writeDatabase(url.toString(), 'demo', async (writer) => {
      for (const { recordSet, record } of demoRecords(demoSourcesDir)) {
        const rs = byPath.get(recordSet)!;
        writer.insert(rs, recordToRow(rs, record));
        await writer.ready();
      }
    });
    return { url: url.toString(), drop };
  } catch (error) {
    await drop();
    throw error;
  }
}
