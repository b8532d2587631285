/** The PostgreSQL driver: DATABASE_URL `postgres://…` or `postgresql://…`. */
import { redactDatabaseUrl } from '../config-values.js';
import { SqlUserAdmin } from './core.js';
import { PostgresDatasetBuild, postgresChanges, postgresRecordSet, readPostgresDataset, removePostgresVersion } from './postgres-build.js';
import { Connection, ensurePostgresSchema, storeError } from './postgres-connection.js';
import { PostgresStore } from './postgres.js';
import { postgresDialect } from './sql.js';
import type { StoreDriver } from './store.js';

export const postgresDriver: StoreDriver = {
  open: (config) => new PostgresStore(config),
  /** Over its own ordinary connections; creates the schema if it is missing. */
  openUserAdmin: async (config) => {
    const db = new Connection(config, 'admin');
    try {
      await ensurePostgresSchema(db.pool);
    } catch (error) {
      await db.close();
      throw storeError(error, db.shown);
    }
    return new SqlUserAdmin({
      dialect: postgresDialect,
      bool: (value) => value,
      run: async (text, values) => (await db.query(text, values)).rowCount ?? 0,
      all: async <T>(text: string, values: readonly unknown[] = []) => (await db.query(text, values)).rows as T[],
      close: () => db.close(),
    });
  },
  startBuild: (config, options) => PostgresDatasetBuild.start(config, options),
  openVersion: (config, version) => new PostgresStore(config, version),
  removeVersion: (config, version, today) => removePostgresVersion(config, version, today),
  readRecordSet: (config, rs, olderVersion) => postgresRecordSet(config, rs, olderVersion),
  changes: (config, sets, desde, hasta) => postgresChanges(config, sets, desde, hasta),
  readDataset: (config, visit, olderVersion) => readPostgresDataset(config, visit, olderVersion),
  // Every copy of the service reads the shared tables, which a load replaces in one transaction: nothing to reopen.
  replacement: () => null,
  describe: (config) => redactDatabaseUrl(config.DATABASE_URL),
};
