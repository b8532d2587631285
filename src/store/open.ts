/** Choosing the store from the configuration: DATABASE_URL `postgres://…` or `postgresql://…`, else SQLite. */
import type { Config } from '../config.js';
import { sqlitePath, storeKind } from '../config.js';
import { PostgresStore, PostgresUserAdmin } from './postgres.js';
import type { UserSummary } from './sqlite.js';
import { SqliteStore, SqliteUserAdmin } from './sqlite.js';
import type { Store } from './store.js';

export function openStore(config: Config): Store {
  return storeKind(config) === 'postgres' ? new PostgresStore(config) : new SqliteStore(sqlitePath(config));
}

type Awaitable<T> = T | Promise<T>;

/** User administration on either store: SQLite answers at once, PostgreSQL with promises. */
export interface UserAdmin {
  list(): Awaitable<readonly UserSummary[]>;
  /** False when the username is taken. */
  add(username: string, passwordHash: string, fullName: string | null, email: string | null): Awaitable<boolean>;
  /** These return false when there is no such user. */
  setDisabled(username: string, disabled: boolean): Awaitable<boolean>;
  setPassword(username: string, passwordHash: string): Awaitable<boolean>;
  remove(username: string): Awaitable<boolean>;
  close(): Awaitable<void>;
}

export async function openUserAdmin(config: Config): Promise<UserAdmin> {
  return storeKind(config) === 'postgres' ? PostgresUserAdmin.open(config) : new SqliteUserAdmin(sqlitePath(config));
}

/** Runs `action` with a user administration open on the configured database, and closes it. */
export async function withUserAdmin<T>(config: Config, action: (admin: UserAdmin) => Awaitable<T>): Promise<T> {
  const admin = await openUserAdmin(config);
  try {
    return await action(admin);
  } finally {
    await admin.close();
  }
}
