/**
 * Whose work a row of the working tables is (docs/adr/0019-accounts.md): an account, the identity of
 * one user from its creation to its removal. A username can be given again to a new user after the
 * first is removed; an account cannot: it is derived from the username and the instant the user was
 * created, which the next user of that name does not share. Batches and watch lists are kept under the
 * account, so a new user of an old name starts with nothing.
 *
 * Disabling and removing a user close its account in the working tables (`cuentas_cerradas`), where
 * the work that is taken (a batch's next slice, a delivery, an event) is checked in the same statement
 * that takes it: a closed account's batches are not worked and its deliveries not sent. A removed
 * account's rows are then deleted by the features that own them (`purgeRemoved`).
 */
import { createHash } from 'node:crypto';
import type { UserAdmin, UserSummary } from './store.js';
import type { WorkDb, WorkStatements, WorkTypes } from './work.js';

/** The account of the user `username` created at `createdAt` (the users table's text, as stored). */
export function accountOf(username: string, createdAt: string): string {
  return `cta_${createHash('sha256').update(`${username}\0${createdAt}`).digest('hex').slice(0, 32)}`;
}

/** Why an account is closed: its user is disabled (its work waits), removed (its work is deleted), or gone before accounts existed (its rows are kept, owned by no one). */
export type Closure = 'deshabilitada' | 'eliminada' | 'sin_usuario';

/** The table of closed accounts: part of every feature's DDL, since each feature's taking statements read it. */
export const accountsDdl = (types: WorkTypes): string =>
  `CREATE TABLE IF NOT EXISTS "cuentas_cerradas" ("cuenta" TEXT PRIMARY KEY, "usuario" TEXT NOT NULL, "motivo" TEXT NOT NULL, "desde" ${types.bigint} NOT NULL)`;

/** A condition that holds for a row whose account (`column`, qualified as the query needs) is open. */
export const accountOpen = (column: string): string => `NOT EXISTS (SELECT 1 FROM "cuentas_cerradas" AS "cc" WHERE "cc"."cuenta" = ${column})`;

/** The accounts closed for `motivo`, as a sub-select for `… IN (…)`. */
export const closedFor = (motivo: Closure): string => `SELECT "cuenta" FROM "cuentas_cerradas" WHERE "motivo" = '${motivo}'`;

/** Closes an account (or changes why it is closed: a disabled user removed). */
export async function closeAccount(db: WorkStatements, cuenta: string, usuario: string, motivo: Closure, now = Date.now()): Promise<void> {
  const p = (i: number): string => db.dialect.placeholder(i);
  await db.run(
    `INSERT INTO "cuentas_cerradas" ("cuenta", "usuario", "motivo", "desde") VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}) ` +
      `ON CONFLICT ("cuenta") DO UPDATE SET "motivo" = excluded."motivo", "desde" = excluded."desde"`,
    [cuenta, usuario, motivo, now],
  );
}

/** Opens a disabled user's account again (a removed one stays closed: its user is gone). */
export async function reopenAccount(db: WorkStatements, cuenta: string): Promise<void> {
  await db.run(`DELETE FROM "cuentas_cerradas" WHERE "cuenta" = ${db.dialect.placeholder(1)} AND "motivo" = 'deshabilitada'`, [cuenta]);
}

/** A user as rows written before accounts existed name it, for handing those rows to its account. */
export interface LegacyOwner {
  readonly account: string;
  readonly createdAt: string;
  readonly disabled: boolean;
}

/**
 * User administration that closes and reopens accounts with their users: disabling a user closes its
 * account (its work waits), enabling opens it again, removing closes it for good (its work is deleted
 * by the service, or at once by `tariff-lookup users remove`). The working store is opened only when an
 * account changes. A removal stops the work first and removes the user after, so that a failure half-way
 * never leaves a removed user's batches running or a present user's rows to be deleted.
 */
export class AccountsUserAdmin implements UserAdmin {
  private work: WorkDb | undefined;

  constructor(
    private readonly admin: UserAdmin,
    private readonly openWork: () => WorkDb,
  ) {}

  /** The DDL array WorkDb.ensure runs once. */
  private ddl: string[] | undefined;

  private async workDb(): Promise<WorkDb> {
    const work = (this.work ??= this.openWork());
    await work.ensure((this.ddl ??= [accountsDdl(work.types)]));
    return work;
  }

  private async summary(username: string): Promise<UserSummary | undefined> {
    return (await this.admin.list()).find((u) => u.username === username);
  }

  list(): Promise<readonly UserSummary[]> {
    return this.admin.list();
  }

  add(username: string, passwordHash: string, fullName: string | null, email: string | null): Promise<boolean> {
    return this.admin.add(username, passwordHash, fullName, email);
  }

  setPassword(username: string, passwordHash: string): Promise<boolean> {
    return this.admin.setPassword(username, passwordHash);
  }

  async setDisabled(username: string, disabled: boolean): Promise<boolean> {
    const user = await this.summary(username);
    if (user === undefined) return false;
    const cuenta = accountOf(user.username, user.created_at);
    const work = await this.workDb();
    if (disabled) await closeAccount(work, cuenta, username, 'deshabilitada');
    if (!(await this.admin.setDisabled(username, disabled))) return false;
    if (!disabled) await reopenAccount(work, cuenta);
    return true;
  }

  async remove(username: string): Promise<boolean> {
    const user = await this.summary(username);
    if (user === undefined) return false;
    const cuenta = accountOf(user.username, user.created_at);
    const work = await this.workDb();
    await closeAccount(work, cuenta, username, 'deshabilitada');
    if (!(await this.admin.remove(username))) return false;
    await closeAccount(work, cuenta, username, 'eliminada');
    return true;
  }

  /** The account a removal closed, for deleting its rows at once (the CLI). */
  async removedAccount(username: string): Promise<string | undefined> {
    const user = await this.summary(username);
    return user === undefined ? undefined : accountOf(user.username, user.created_at);
  }

  async close(): Promise<void> {
    await this.work?.close();
    await this.admin.close();
  }
}
