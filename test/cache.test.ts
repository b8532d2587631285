/** The answer cache follows the data: a new dataset, loaded by another process, shows within seconds. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordSets } from '../src/record-sets/index.js';
import { recordToRow } from '../src/data/load.js';
import { writePostgresDatabase } from '../src/store/postgres.js';
import type { DatasetWriter } from '../src/store/sqlite.js';
import { writeSqliteDatabase } from '../src/store/sqlite.js';
import { fixtureRecords } from './fixtures.js';
import { createTestDatabase, startServer, storeKinds } from './helpers.js';

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
        if (kind === 'postgres') await writePostgresDatabase(db.url, 'second load', fill);
        else writeSqliteDatabase(db.url.slice('sqlite:'.length), 'second load', fill, { keepUsers: true });
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
