/**
 * The choice of store: one table of drivers, keyed by the kind DATABASE_URL names (`postgres://…`
 * or `postgresql://…` PostgreSQL, else SQLite). Everything else asks for a store through here.
 */
import type { Config } from '../config.js';
import type { StoreKind } from '../config-values.js';
import { storeKind } from '../config-values.js';
import { AccountsUserAdmin } from './accounts.js';
import { postgresDriver } from './postgres-driver.js';
import { sqliteDriver } from './sqlite-driver.js';
import type { BuildOptions, DatasetBuild, Store, StoreDriver, UserAdmin } from './store.js';
import { openWorkDb } from './work.js';

const drivers: Readonly<Record<StoreKind, StoreDriver>> = {
  sqlite: sqliteDriver,
  postgres: postgresDriver,
};

export const driverFor = (config: Config): StoreDriver => drivers[storeKind(config)];

export const openStore = (config: Config): Store => driverFor(config).open(config);

/** User administration; disabling and removing users close their accounts in the working store (src/store/accounts.ts). */
export const openUserAdmin = async (config: Config): Promise<UserAdmin> =>
  new AccountsUserAdmin(await driverFor(config).openUserAdmin(config), () => openWorkDb(config));

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
