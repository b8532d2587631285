/**
 * The choice of store: one table of drivers, keyed by the kind DATABASE_URL names (`postgres://…`
 * or `postgresql://…` PostgreSQL, else SQLite). Everything else asks for a store through here.
 */
import type { Config, StoreKind } from '../config.js';
import { loadConfig, storeKind } from '../config.js';
import { writeDataset } from './core.js';
import { postgresDriver } from './postgres-driver.js';
import { sqliteDriver } from './sqlite-driver.js';
import type { BuildOptions, CommittedDataset, DatasetBuild, DatasetWriter, Store, StoreDriver, UserAdmin } from './store.js';

const drivers: Readonly<Record<StoreKind, StoreDriver>> = {
  sqlite: sqliteDriver,
  postgres: postgresDriver,
};

export const driverFor = (config: Config): StoreDriver => drivers[storeKind(config)];

export const openStore = (config: Config): Store => driverFor(config).open(config);

export const openUserAdmin = (config: Config): Promise<UserAdmin> => driverFor(config).openUserAdmin(config);

export const startBuild = (config: Config, options: BuildOptions = {}): Promise<DatasetBuild> => driverFor(config).startBuild(config, options);

/** Runs `action` with a user administration open on the configured database, and closes it. */
export async function withUserAdmin<T>(config: Config, action: (admin: UserAdmin) => T | Promise<T>): Promise<T> {
  const admin = await openUserAdmin(config);
  try {
    return await action(admin);
  } finally {
    await admin.close();
  }
}

/**
 * Builds a complete dataset from `fill` into the database `databaseUrl` names (the demo build, test
 * fixtures, the benchmark): all of it or, on any failure, nothing. See writeDataset.
 */
export async function writeDatabase(
  databaseUrl: string,
  source: string,
  fill: (writer: DatasetWriter) => void | Promise<void>,
  options: BuildOptions = {},
): Promise<CommittedDataset> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  return writeDataset(await startBuild(config, options), source, fill);
}
