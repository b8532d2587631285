/** The answer cache follows the data: a new dataset, loaded by another process, shows within seconds. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { recordSets } from '../src/record-sets/index.js';
import { recordToRow } from '../src/data/record-row.js';
import { writeDatabase } from '../src/store/drivers.js';
import type { DatasetWriter } from '../src/store/store.js';
import { fixtureRecords } from './fixtures.js';
import { createTestDatabase, startServer, storeKinds, tempDir } from './helpers.js';

/** The fixture with only its first `n` records in every record set. */
const firstRecords = (n: number) => (writer: DatasetWriter): void => {
  for (const rs of recordSets) for (const record of fixtureRecords(rs).slice(0, n)) writer.insert(rs, recordToRow(rs, record));
};

for (const kind of await storeKinds()) {
  describe(`answer cache (${kind})`, () => {
    test('a dataset loaded under a running service replaces the cached answers', async () => {
      const db = await createTestDatabase(kind);
      const server = await startServer({ DATABASE_URL: db.url });
      try {
        const count = async (): Promise<number> => (await server.json<unknown[]>('/api/v1/aladi2/')).body.length;
        assert.equal(await count(), 8);
        assert.equal(await count(), 8, 'served from the cache');
        const fill = firstRecords(3);
        await writeDatabase(db.url, 'second load', fill);
        const deadline = Date.now() + 8000;
        let seen = await count();
        while (seen !== 3 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          seen = await count();
        }
        assert.equal(seen, 3, 'the new data is served, not the cached answer');
      } finally {
        await server.close();
        await db.drop();
      }
    });
  });
}

describe('import into PostgreSQL', () => {
  test('tariff-lookup import loads an exported folder into PostgreSQL in one go, and a running service serves it', async (t) => {
    if (!(await storeKinds()).includes('postgres')) return t.skip('PostgreSQL is not reachable');
    const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
    const source = await createTestDatabase('sqlite');
    const target = await createTestDatabase('postgres', firstRecords(2));
    const folder = tempDir();
    const server = await startServer({ DATABASE_URL: target.url });
    try {
      const run = (args: string[], url: string) => spawnSync(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: url }, encoding: 'utf8' });
      const exported = run(['export', join(folder.dir, 'csv')], source.url);
      assert.equal(exported.status, 0, exported.stderr);
      assert.equal((await server.json<unknown[]>('/api/v1/tlcs/')).body.length, 2);
      const imported = run(['import', join(folder.dir, 'csv'), '--source', 'fixture export'], target.url);
      assert.equal(imported.status, 0, imported.stderr);
      assert.match(imported.stdout, /rows\/s/);
      assert.ok(!imported.stdout.includes('postgres:postgres@'), 'no password shown');
      const deadline = Date.now() + 8000;
      let count = 0;
      while (count !== 8 && Date.now() < deadline) {
        count = (await server.json<unknown[]>('/api/v1/tlcs/')).body.length;
        if (count !== 8) await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(count, 8);
      const health = (await server.json<{ dataset: { source: string } }>('/health')).body;
      assert.equal(health.dataset.source, 'fixture export');
      assert.equal((await server.json('/api/v1/auth/me')).status, 200, 'users survive the load');
    } finally {
      await server.close();
      await source.drop();
      await target.drop();
      folder.remove();
    }
  });
});
