/**
 * The store core: what both stores share, and a dataset built for another shape of the registry
 * (an old file after a field was added) reported as such instead of failing queries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { recordSets } from '../../src/record-sets/index.js';
import { checkKeepable, shapeProblem } from '../../src/store/core.js';
import { defer } from '../lifetime.js';
import { storeKinds } from '../stores.js';
import { createTestDatabase } from '../databases.js';
import { startServer } from '../servers.js';

const aladi2 = recordSets.find((rs) => rs.path === 'aladi2')!;

/** The columns of a database that has every table of the registry. */
function completeColumns(): Map<string, Set<string>> {
  const columns = new Map<string, Set<string>>([
    ['dataset_info', new Set(['id'])],
    ['users', new Set(['username'])],
  ]);
  for (const rs of recordSets) columns.set(rs.table, new Set(rs.fields.map((f) => f.name)));
  return columns;
}

describe('shape of a database', () => {
  test('a database with every table and column of the registry can be served', () => {
    assert.equal(shapeProblem(completeColumns()), null);
  });

  test('a missing column or table is named, with what to do', () => {
    const columns = completeColumns();
    columns.get(aladi2.table)!.delete('NOTAS');
    columns.delete('tlcs');
    const problem = shapeProblem(columns);
    assert.match(problem ?? '', /another version of the service/);
    assert.match(problem ?? '', /aladi2\.NOTAS/);
    assert.match(problem ?? '', /table tlcs/);
    assert.match(problem ?? '', /tariff-lookup import/);
  });

  test('a database with no record-set table says no dataset is loaded', () => {
    assert.match(shapeProblem(new Map()) ?? '', /^no dataset is loaded/);
  });

  test('a record set is kept only when the served table has every column', () => {
    assert.doesNotThrow(() => checkKeepable(aladi2, new Set(aladi2.fields.map((f) => f.name))));
    assert.throws(() => checkKeepable(aladi2, new Set(['FRACCION'])), /cannot keep aladi2: the current database has no column ACUERDO/);
    assert.throws(() => checkKeepable(aladi2, new Set()), /cannot keep aladi2: the current database has no table aladi2/);
  });
});

async function dropColumn(url: string, table: string, column: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    db.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
  } finally {
    await client.end();
  }
}

for (const kind of await storeKinds()) {
  describe(`a dataset built for another shape of the registry (${kind})`, () => {
    test('health is unhealthy and names what to do; business calls are 503, never 500; logins still work', async (t) => {
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      await dropColumn(db.url, aladi2.table, 'NOTAS');
      const server = await startServer({ DATABASE_URL: db.url });
      defer(t, () => server.close());
      assert.notEqual(server.token, '', 'the test user could log in');
      const health = await server.get('/health');
      assert.equal(health.status, 503);
      const body = (await health.json()) as { status: string; detail?: string };
      assert.equal(body.status, 'unhealthy');
      assert.match(body.detail ?? '', /another version of the service \(missing aladi2\.NOTAS\): load the data again \(tariff-lookup import\)/);
      for (const path of ['/api/v1/aladi2/', '/api/v1/tlcs/?fraccion=0101', '/api/v1/fracciones/01012101']) {
        const answer = await server.json(path);
        assert.equal(answer.status, 503, path);
        assert.deepEqual(answer.body, { detail: 'Service Unavailable' });
      }
      assert.equal((await server.json('/api/v1/auth/me')).status, 200);
    });
  });
}
