/**
 * A batch's rows in the working tables (src/store/work.ts, ADR 10): `lotes` (the batch, its state,
 * progress and lease), `lotes_lineas` (the lines as read from the file, written before the 202) and
 * `lotes_resultados` (one result per line, keyed by batch and line so a line is never answered twice).
 * A slice's results and the batch's progress are written in one transaction, under the lease.
 */
import type { LegacyOwner } from '../store/accounts.js';
import { accountOf, accountOpen, accountsDdl, closeAccount, closedFor } from '../store/accounts.js';
import type { WorkDb, WorkStatements } from '../store/work.js';
import { binder, deadHolder } from '../store/work.js';
import type { RawLine } from './columns.js';
import { insertLines } from './stored-lines.js';

export const ESTADOS = ['en_cola', 'procesando', 'terminado', 'cancelado', 'fallido'] as const;
export type Estado = (typeof ESTADOS)[number];
const ACTIVE: readonly Estado[] = ['en_cola', 'procesando'];

export interface Lote {
  readonly id: string;
  /** The username that sent it, for operators; who owns it is `cuenta`. */
  readonly usuario: string;
  /** The account it belongs to (src/store/accounts.ts); null only in rows of a version before accounts, until claimed. */
  readonly cuenta: string | null;
  readonly nombre: string;
  readonly estado: Estado;
  readonly lineas: number;
  readonly procesadas: number;
  readonly revisar: number;
  readonly errores: number;
  readonly fecha: string;
  readonly pais_origen: string | null;
  readonly version: string | null;
  readonly creado: string;
  readonly iniciado: string | null;
  readonly terminado: string | null;
  /** The last line worked (its number in the file); 0 before the first. */
  readonly hecho_hasta: number;
  /** Extra columns' names in file order, as JSON. */
  readonly columnas_extra: string;
}

/** What a finished slice writes. */
export interface SliceResult {
  readonly linea: number;
  readonly revisar: boolean;
  readonly error: boolean;
  /** The result as JSON. */
  readonly datos: string;
}

function ddl(db: WorkDb): string[] {
  const { bigint, boolean, text, addColumn } = db.types;
  return [
    `CREATE TABLE IF NOT EXISTS lotes (
      id ${text} PRIMARY KEY, usuario ${text} NOT NULL, nombre ${text} NOT NULL, estado ${text} NOT NULL,
      lineas ${bigint} NOT NULL, procesadas ${bigint} NOT NULL DEFAULT 0, revisar ${bigint} NOT NULL DEFAULT 0,
      errores ${bigint} NOT NULL DEFAULT 0, fecha ${text} NOT NULL, pais_origen ${text}, version ${text},
      creado ${text} NOT NULL, iniciado ${text}, terminado ${text}, hecho_hasta ${bigint} NOT NULL DEFAULT 0,
      columnas_extra ${text} NOT NULL, orden ${bigint} NOT NULL, dueno ${text}, lease_hasta ${bigint}, cuenta ${text},
      intentos ${bigint} NOT NULL DEFAULT 0)`,
    // Batches stored before accounts existed are handed to theirs by claimLegacy.
    `ALTER TABLE lotes ${addColumn} cuenta ${text}`,
    `ALTER TABLE lotes ${addColumn} intentos ${bigint} NOT NULL DEFAULT 0`,
    'CREATE INDEX IF NOT EXISTS lotes_usuario ON lotes (usuario, orden)',
    'CREATE INDEX IF NOT EXISTS lotes_cuenta ON lotes (cuenta, orden)',
    accountsDdl(db.types),
    // When each account last had a slice worked: the worker takes the account waiting longest (round-robin).
    `CREATE TABLE IF NOT EXISTS lotes_turnos (cuenta ${text} PRIMARY KEY, turno ${bigint} NOT NULL)`,
    'CREATE INDEX IF NOT EXISTS lotes_estado ON lotes (estado, orden)',
    `CREATE TABLE IF NOT EXISTS lotes_lineas (lote ${text} NOT NULL, linea ${bigint} NOT NULL, datos ${text} NOT NULL, PRIMARY KEY (lote, linea))`,
    `CREATE TABLE IF NOT EXISTS lotes_resultados (
      lote ${text} NOT NULL, linea ${bigint} NOT NULL, revisar ${boolean} NOT NULL, datos ${text} NOT NULL, PRIMARY KEY (lote, linea))`,
  ];
}

const COLUMNS =
  'id, usuario, cuenta, nombre, estado, lineas, procesadas, revisar, errores, fecha, pais_origen, version, creado, iniciado, terminado, hecho_hasta, columnas_extra';

/**
 * How many takes in a row may end without a slice committed before the batch is failed (`fallido`, the
 * lines worked so far kept): a slice that always kills its holder (a thread out of memory, a process
 * killed by the system) or always fails would otherwise be taken again after every lease, without end.
 * `lotes.intentos` counts them: each take adds one; a commit sets it to 1 when its holder goes on to
 * the next slice (that take now counts for it), to 0 when the batch is given back or finished. A
 * kill -9, or a lease lost under load, costs one take; three in a row are not chance.
 */
export const MAX_TAKES = 3;

/** Rows inserted per statement: far under both databases' limits on bound values. */
const ROWS_PER_INSERT = 200;

/** Numbers come back from PostgreSQL's BIGINT as strings. */
function lote(row: Record<string, unknown>): Lote {
  const n = (k: string): number => Number(row[k]);
  return {
    ...(row as unknown as Lote),
    lineas: n('lineas'),
    procesadas: n('procesadas'),
    revisar: n('revisar'),
    errores: n('errores'),
    hecho_hasta: n('hecho_hasta'),
  };
}

export class LotesTables {
  private readonly ddl: string[];

  constructor(readonly db: WorkDb) {
    this.ddl = ddl(db);
  }

  private p(i: number): string {
    return this.db.dialect.placeholder(i);
  }

  ready(): Promise<void> {
    return this.db.ensure(this.ddl);
  }

  /** How many of the account's batches are queued or running (outside a transaction: a first look, before a file is read). */
  async active(cuenta: string): Promise<number> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const [row] = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM lotes WHERE cuenta = ${p(1)} AND estado IN (${p(2)}, ${p(3)})`, [
      cuenta,
      ...ACTIVE,
    ]);
    return Number(row?.n ?? 0);
  }

  /**
   * Stores a batch and its lines, read already, in one transaction, unless the user already has `limit`
   * batches queued or running: then nothing is stored and false comes back. `lines` gives the lines as
   * stored, pieces of the lines file (src/lotes/stored-lines.ts), so the transaction lasts as long as the
   * inserts; `wanted` is asked last, before the commit: when it says no (the client is gone), nothing
   * is stored and false comes back too.
   */
  async create(
    batch: Omit<
      Lote,
      'cuenta' | 'procesadas' | 'revisar' | 'errores' | 'hecho_hasta' | 'iniciado' | 'terminado' | 'version' | 'estado' | 'lineas' | 'columnas_extra'
    > & { readonly cuenta: string },
    limit: number,
    file: { readonly lines: number; readonly extraColumns: readonly string[]; readonly stored: () => AsyncIterable<string> },
    wanted: () => boolean = () => true,
  ): Promise<'stored' | 'limit' | 'unwanted'> {
    const { cuenta } = batch;
    await this.ready();
    const p = (i: number): string => this.p(i);
    const unwanted = new Error('unwanted');
    try {
      return await this.db.transaction(async (tx) => {
        // Two copies of the service taking one user's batches at once count them one after the other.
        if (tx.kind === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(hashtext(${p(1)}))`, [`lotes:${cuenta}`]);
        const [active] = await tx.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM lotes WHERE cuenta = ${p(1)} AND estado IN (${p(2)}, ${p(3)})`, [
          cuenta,
          ...ACTIVE,
        ]);
        if (Number(active?.n ?? 0) >= limit) return 'limit';
        for await (const piece of file.stored()) await insertLines(tx, batch.id, piece);
        await tx.run(
          `INSERT INTO lotes (id, usuario, cuenta, nombre, estado, lineas, fecha, pais_origen, creado, columnas_extra, orden) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map(p).join(', ')})`,
          [
            batch.id,
            batch.usuario,
            cuenta,
            batch.nombre,
            'en_cola',
            file.lines,
            batch.fecha,
            batch.pais_origen,
            batch.creado,
            JSON.stringify(file.extraColumns),
            nextOrder(),
          ],
        );
        // Rolled back: a client that is gone would never learn the batch's id.
        if (!wanted()) throw unwanted;
        return 'stored';
      });
    } catch (error) {
      if (error === unwanted) return 'unwanted';
      throw error;
    }
  }

  /** The account's batch `id`; another account's is as absent as one that never was. */
  async get(id: string, cuenta: string): Promise<Lote | undefined> {
    await this.ready();
    const [row] = await this.db.all<Record<string, unknown>>(`SELECT ${COLUMNS} FROM lotes WHERE id = ${this.p(1)} AND cuenta = ${this.p(2)}`, [id, cuenta]);
    return row ? lote(row) : undefined;
  }

  async byId(id: string): Promise<Lote | undefined> {
    await this.ready();
    const [row] = await this.db.all<Record<string, unknown>>(`SELECT ${COLUMNS} FROM lotes WHERE id = ${this.p(1)}`, [id]);
    return row ? lote(row) : undefined;
  }

  /** The account's batches, newest first, and how many there are. */
  async list(cuenta: string, skip: number, limit: number): Promise<{ items: Lote[]; total: number }> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lotes WHERE cuenta = ${p(1)} ORDER BY orden DESC LIMIT ${p(2)} OFFSET ${p(3)}`,
      [cuenta, limit, skip],
    );
    const [count] = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM lotes WHERE cuenta = ${p(1)}`, [cuenta]);
    return { items: rows.map(lote), total: Number(count?.n ?? 0) };
  }

  /** Queued or running: cancelled, its results kept. Finished: removed with its lines and results. */
  async cancelOrRemove(id: string, cuenta: string, now: string): Promise<boolean> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    return this.db.transaction(async (tx) => {
      const cancelled = await tx.run(
        `UPDATE lotes SET estado = 'cancelado', terminado = ${p(1)}, dueno = NULL, lease_hasta = NULL WHERE id = ${p(2)} AND cuenta = ${p(3)} AND estado IN ('en_cola', 'procesando')`,
        [now, id, cuenta],
      );
      if (cancelled > 0) {
        await tx.run(`DELETE FROM lotes_lineas WHERE lote = ${p(1)}`, [id]);
        return true;
      }
      const removed = await tx.run(`DELETE FROM lotes WHERE id = ${p(1)} AND cuenta = ${p(2)}`, [id, cuenta]);
      if (removed === 0) return false;
      await removeRows(tx, id);
      return true;
    });
  }

  /**
   * Takes a batch to work one slice of, for `owner` until `until` (ms), in one transaction (other copies
   * skip the row one copy is taking). Round-robin by account: the batch waiting (or whose holder's lease
   * ran out) of the open account whose last slice is the oldest, an account never served first; within
   * an account, its oldest batch. A holder gives the batch back at a slice's commit when another
   * account's batch waits (saveSlice), so one account's 100,000 lines take turns with every other
   * account's batches instead of holding them.
   */
  async take(owner: string, nowMs: number, until: number, now: string): Promise<Lote | undefined> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    return this.db.transaction(async (tx) => {
      for (;;) {
        const [row] = await tx.all<Record<string, unknown>>(
          `SELECT ${COLUMNS}, intentos FROM lotes WHERE estado IN ('en_cola', 'procesando') AND (lease_hasta IS NULL OR lease_hasta < ${p(1)}) ` +
            `AND cuenta IS NOT NULL AND ${accountOpen('lotes.cuenta')} ` +
            `ORDER BY COALESCE((SELECT t.turno FROM lotes_turnos AS t WHERE t.cuenta = lotes.cuenta), 0), orden LIMIT 1${tx.lockRows}`,
          [nowMs],
        );
        if (!row) return undefined;
        const { intentos, ...columns } = row;
        const taken = lote(columns);
        if (Number(intentos) >= MAX_TAKES) {
          await failed(tx, taken.id, now);
          continue;
        }
        await tx.run(
          `UPDATE lotes SET estado = 'procesando', dueno = ${p(1)}, lease_hasta = ${p(2)}, iniciado = COALESCE(iniciado, ${p(3)}), intentos = intentos + 1 WHERE id = ${p(4)}`,
          [owner, until, now, taken.id],
        );
        await tx.run(`INSERT INTO lotes_turnos (cuenta, turno) VALUES (${p(1)}, ${p(2)}) ON CONFLICT (cuenta) DO UPDATE SET turno = excluded.turno`, [
          taken.cuenta,
          nowMs,
        ]);
        return { ...taken, estado: 'procesando', iniciado: taken.iniciado ?? now };
      }
    });
  }

  /**
   * Ends the leases on batches held by processes of this host that no longer run (deadHolder), so that a
   * batch whose process was killed goes on at once, from its last committed slice. For SQLite, where
   * every process of the working file runs on one host. How many batches were taken back.
   */
  async reclaimDead(nowMs: number): Promise<number> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const holders = await this.db.all<{ dueno: string }>(
      `SELECT DISTINCT dueno FROM lotes WHERE estado = 'procesando' AND dueno IS NOT NULL AND lease_hasta >= ${p(1)}`,
      [nowMs],
    );
    let reclaimed = 0;
    for (const { dueno } of holders) {
      if (!deadHolder(dueno)) continue;
      reclaimed += await this.db.run(`UPDATE lotes SET dueno = NULL, lease_hasta = NULL WHERE dueno = ${p(1)} AND estado = 'procesando'`, [dueno]);
    }
    return reclaimed;
  }

  /** Fixes the version that answers the batch (once: when it is first taken). */
  async fixVersion(id: string, owner: string, version: string | null): Promise<void> {
    const p = (i: number): string => this.p(i);
    await this.db.run(`UPDATE lotes SET version = ${p(1)} WHERE id = ${p(2)} AND dueno = ${p(3)} AND version IS NULL`, [version, id, owner]);
  }

  /** The lease renewed until `until` while its holder works a slice; nothing when the batch is no longer this owner's. */
  async renewLease(id: string, owner: string, until: number): Promise<void> {
    const p = (i: number): string => this.p(i);
    await this.db.run(`UPDATE lotes SET lease_hasta = ${p(1)} WHERE id = ${p(2)} AND dueno = ${p(3)} AND estado = 'procesando' AND lease_hasta IS NOT NULL`, [
      until,
      id,
      owner,
    ]);
  }

  /** The next lines to work, after the last one worked. */
  async nextLines(id: string, after: number, count: number): Promise<RawLine[]> {
    const p = (i: number): string => this.p(i);
    const rows = await this.db.all<{ linea: number | string; datos: string }>(
      `SELECT linea, datos FROM lotes_lineas WHERE lote = ${p(1)} AND linea > ${p(2)} ORDER BY linea LIMIT ${p(3)}`,
      [id, after, count],
    );
    return rows.map((r) => ({ linea: Number(r.linea), ...(JSON.parse(r.datos) as Omit<RawLine, 'linea'>) }));
  }

  /**
   * Writes a slice's results and the progress in one transaction, with the lease renewed until `until`
   * or, when another account has a batch waiting or this batch's account was closed, given back (the
   * next take serves whichever account's turn it is). Finishing ends the lease. 'kept', 'released' or
   * 'finished'; false (and nothing written) when the batch is no longer this owner's to work
   * (cancelled, removed, or taken over).
   */
  async saveSlice(
    id: string,
    owner: string,
    nowMs: number,
    until: number,
    results: readonly SliceResult[],
    finished: string | null,
  ): Promise<'kept' | 'released' | 'finished' | false> {
    const p = (i: number): string => this.p(i);
    const last = results.at(-1)?.linea;
    return this.db
      .transaction(async (tx) => {
        const release = finished === null && (await this.yields(tx, id, nowMs));
        const b = binder(tx);
        const sets = [
          `procesadas = procesadas + ${b(results.length)}`,
          // The holder that keeps the batch goes on to the next slice: its take counts for that one.
          `intentos = ${finished === null && !release ? 1 : 0}`,
          `revisar = revisar + ${b(results.filter((r) => r.revisar).length)}`,
          `errores = errores + ${b(results.filter((r) => r.error).length)}`,
          ...(last === undefined ? [] : [`hecho_hasta = ${b(last)}`]),
          ...(finished !== null
            ? [`estado = 'terminado'`, `terminado = ${b(finished)}`, 'lease_hasta = NULL']
            : release
              ? ['dueno = NULL', 'lease_hasta = NULL']
              : [`lease_hasta = ${b(until)}`]),
        ];
        const progress = await tx.run(`UPDATE lotes SET ${sets.join(', ')} WHERE id = ${b(id)} AND dueno = ${b(owner)} AND estado = 'procesando'`, b.values);
        if (progress === 0) throw new LeaseLost();
        for (let i = 0; i < results.length; i += ROWS_PER_INSERT) {
          const chunk = results.slice(i, i + ROWS_PER_INSERT);
          const values = chunk.map((_, j) => `(${p(4 * j + 1)}, ${p(4 * j + 2)}, ${p(4 * j + 3)}, ${p(4 * j + 4)})`).join(', ');
          await tx.run(
            `INSERT INTO lotes_resultados (lote, linea, revisar, datos) VALUES ${values}`,
            chunk.flatMap((r) => [id, r.linea, tx.bool(r.revisar), r.datos]),
          );
        }
        if (finished !== null) await tx.run(`DELETE FROM lotes_lineas WHERE lote = ${p(1)}`, [id]);
        return finished !== null ? ('finished' as const) : release ? ('released' as const) : ('kept' as const);
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return false;
        throw error;
      });
  }

  /**
   * Whether the holder of batch `id` is to give it back after this slice: its account was closed (a
   * disabled user's batch stops), or another open account has a batch no one holds (its turn comes).
   * A batch another copy holds is being worked already, so it does not count.
   */
  private async yields(tx: WorkStatements, id: string, nowMs: number): Promise<boolean> {
    const p = (i: number): string => tx.dialect.placeholder(i);
    const [mine] = await tx.all<{ cuenta: string }>(`SELECT cuenta FROM lotes WHERE id = ${p(1)} AND ${accountOpen('lotes.cuenta')}`, [id]);
    if (mine === undefined) return true;
    const [other] = await tx.all<{ id: string }>(
      `SELECT id FROM lotes WHERE estado IN ('en_cola', 'procesando') AND (lease_hasta IS NULL OR lease_hasta < ${p(1)}) ` +
        `AND cuenta IS NOT NULL AND cuenta <> ${p(2)} AND ${accountOpen('lotes.cuenta')} LIMIT 1`,
      [nowMs, mine.cuenta],
    );
    return other !== undefined;
  }

  /** A batch that cannot be worked (no version in force on its date), while `owner` holds it. */
  async fail(id: string, owner: string, now: string): Promise<void> {
    await failed(this.db, id, now, owner);
  }

  /** Results in file order: a page (keyset on the line number), only the lines to review when asked. */
  async results(id: string, after: number, limit: number, soloRevisar: boolean, skip = 0): Promise<{ linea: number; datos: string }[]> {
    const b = binder(this.db);
    const where = `lote = ${b(id)} AND linea > ${b(after)}${soloRevisar ? ` AND revisar = ${b(this.db.bool(true))}` : ''}`;
    const rows = await this.db.all<{ linea: number | string; datos: string }>(
      `SELECT linea, datos FROM lotes_resultados WHERE ${where} ORDER BY linea LIMIT ${b(limit)} OFFSET ${b(skip)}`,
      b.values,
    );
    return rows.map((r) => ({ linea: Number(r.linea), datos: r.datos }));
  }

  async countResults(id: string, soloRevisar: boolean): Promise<number> {
    const p = (i: number): string => this.p(i);
    const [row] = await this.db.all<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM lotes_resultados WHERE lote = ${p(1)}${soloRevisar ? ` AND revisar = ${p(2)}` : ''}`,
      soloRevisar ? [id, this.db.bool(true)] : [id],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Hands the batches stored before accounts existed (no `cuenta`) to the account of their user, as the
   * user is now: only those stored since that user was created (older ones were a removed user's of the
   * same name). Those that no user owns go to an account closed as `sin_usuario`: kept, never worked,
   * shown to no one. How many were handed over.
   */
  async claimLegacy(find: (usuario: string) => Promise<LegacyOwner | undefined>): Promise<number> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const names = await this.db.all<{ usuario: string }>('SELECT DISTINCT usuario FROM lotes WHERE cuenta IS NULL');
    let claimed = 0;
    for (const { usuario } of names) {
      const owner = await find(usuario);
      await this.db.transaction(async (tx) => {
        if (owner !== undefined) {
          claimed += await tx.run(`UPDATE lotes SET cuenta = ${p(1)} WHERE cuenta IS NULL AND usuario = ${p(2)} AND creado >= ${p(3)}`, [
            owner.account,
            usuario,
            owner.createdAt,
          ]);
          if (owner.disabled) await closeAccount(tx, owner.account, usuario, 'deshabilitada');
        }
        const orphan = accountOf(usuario, '');
        if ((await tx.run(`UPDATE lotes SET cuenta = ${p(1)} WHERE cuenta IS NULL AND usuario = ${p(2)}`, [orphan, usuario])) > 0) {
          await closeAccount(tx, orphan, usuario, 'sin_usuario');
        }
      });
    }
    return claimed;
  }

  /** Deletes the batches of removed users' accounts, with their lines and results; how many. */
  async purgeRemoved(): Promise<number> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const gone = await this.db.all<{ id: string }>(`SELECT id FROM lotes WHERE cuenta IN (${closedFor('eliminada')})`);
    for (const { id } of gone) {
      await this.db.transaction(async (tx) => {
        await tx.run(`DELETE FROM lotes WHERE id = ${p(1)}`, [id]);
        await removeRows(tx, id);
      });
    }
    await this.db.run(`DELETE FROM lotes_turnos WHERE cuenta IN (${closedFor('eliminada')})`);
    return gone.length;
  }

  /** Removes finished batches older than `before` (ISO time) with their results; how many. */
  async removeFinishedBefore(before: string): Promise<number> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const old = await this.db.all<{ id: string }>(`SELECT id FROM lotes WHERE estado IN ('terminado', 'cancelado', 'fallido') AND terminado < ${p(1)}`, [
      before,
    ]);
    for (const { id } of old) {
      await this.db.transaction(async (tx) => {
        await tx.run(`DELETE FROM lotes WHERE id = ${p(1)}`, [id]);
        await removeRows(tx, id);
      });
    }
    return old.length;
  }
}

/** Marks batch `id` failed (`fallido`) and ends its lease; only while `owner` holds it, when one is named. */
async function failed(tx: WorkStatements, id: string, now: string, owner?: string): Promise<void> {
  const b = binder(tx);
  const held = owner === undefined ? '' : ` AND dueno = ${b(owner)}`;
  await tx.run(`UPDATE lotes SET estado = 'fallido', terminado = ${b(now)}, dueno = NULL, lease_hasta = NULL WHERE id = ${b(id)}${held}`, b.values);
}

async function removeRows(tx: WorkStatements, id: string): Promise<void> {
  const p = (i: number): string => tx.dialect.placeholder(i);
  await tx.run(`DELETE FROM lotes_lineas WHERE lote = ${p(1)}`, [id]);
  await tx.run(`DELETE FROM lotes_resultados WHERE lote = ${p(1)}`, [id]);
}

class LeaseLost extends Error {
  constructor() {
    super('the batch is no longer this worker’s');
  }
}

let lastOrder = 0;

/** Microseconds since the epoch, strictly increasing within a process: batches sent in one millisecond keep their order. */
function nextOrder(): number {
  lastOrder = Math.max(lastOrder + 1, Date.now() * 1000);
  return lastOrder;
}
