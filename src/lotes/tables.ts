/**
 * A batch's rows in the working tables (src/store/work.ts, ADR 10): `lotes` (the batch, its state,
 * progress and lease), `lotes_lineas` (the lines as read from the file, written before the 202) and
 * `lotes_resultados` (one result per line, keyed by batch and line so a line is never answered twice).
 * A slice's results and the batch's progress are written in one transaction, under the lease.
 */
import type { WorkDb, WorkStatements } from '../store/work.js';
import type { RawLine } from './columns.js';

export const ESTADOS = ['en_cola', 'procesando', 'terminado', 'cancelado', 'fallido'] as const;
export type Estado = (typeof ESTADOS)[number];
const ACTIVE: readonly Estado[] = ['en_cola', 'procesando'];

export interface Lote {
  readonly id: string;
  readonly usuario: string;
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

/** A line as `lotes_lineas` keeps it: its number and its values as JSON (storedLine). */
export interface StoredLine {
  readonly linea: number;
  readonly datos: string;
}

/** A line's row in `lotes_lineas`: what the worker reads back (src/lotes/worker.ts). */
export const storedLine = (line: RawLine): StoredLine => ({ linea: line.linea, datos: JSON.stringify({ values: line.values, extra: line.extra }) });

/** What a finished slice writes. */
export interface SliceResult {
  readonly linea: number;
  readonly revisar: boolean;
  readonly error: boolean;
  /** The result as JSON. */
  readonly datos: string;
}

function ddl(db: WorkDb): string[] {
  const { bigint, boolean, text } = db.types;
  return [
    `CREATE TABLE IF NOT EXISTS lotes (
      id ${text} PRIMARY KEY, usuario ${text} NOT NULL, nombre ${text} NOT NULL, estado ${text} NOT NULL,
      lineas ${bigint} NOT NULL, procesadas ${bigint} NOT NULL DEFAULT 0, revisar ${bigint} NOT NULL DEFAULT 0,
      errores ${bigint} NOT NULL DEFAULT 0, fecha ${text} NOT NULL, pais_origen ${text}, version ${text},
      creado ${text} NOT NULL, iniciado ${text}, terminado ${text}, hecho_hasta ${bigint} NOT NULL DEFAULT 0,
      columnas_extra ${text} NOT NULL, orden ${bigint} NOT NULL, dueno ${text}, lease_hasta ${bigint})`,
    'CREATE INDEX IF NOT EXISTS lotes_usuario ON lotes (usuario, orden)',
    'CREATE INDEX IF NOT EXISTS lotes_estado ON lotes (estado, orden)',
    `CREATE TABLE IF NOT EXISTS lotes_lineas (lote ${text} NOT NULL, linea ${bigint} NOT NULL, datos ${text} NOT NULL, PRIMARY KEY (lote, linea))`,
    `CREATE TABLE IF NOT EXISTS lotes_resultados (
      lote ${text} NOT NULL, linea ${bigint} NOT NULL, revisar ${boolean} NOT NULL, datos ${text} NOT NULL, PRIMARY KEY (lote, linea))`,
  ];
}

const COLUMNS =
  'id, usuario, nombre, estado, lineas, procesadas, revisar, errores, fecha, pais_origen, version, creado, iniciado, terminado, hecho_hasta, columnas_extra';

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

  /** How many of the user's batches are queued or running (outside a transaction: a first look, before a file is read). */
  async active(usuario: string): Promise<number> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const [row] = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM lotes WHERE usuario = ${p(1)} AND estado IN (${p(2)}, ${p(3)})`, [
      usuario,
      ...ACTIVE,
    ]);
    return Number(row?.n ?? 0);
  }

  /**
   * Stores a batch and its lines, read already, in one transaction, unless the user already has `limit`
   * batches queued or running: then nothing is stored and false comes back. `lines` gives the lines as
   * stored (their JSON), a chunk at a time from a local file, so the transaction lasts as long as the
   * inserts; `wanted` is asked last, before the commit: when it says no (the client is gone), nothing
   * is stored and false comes back too.
   */
  async create(
    batch: Omit<Lote, 'procesadas' | 'revisar' | 'errores' | 'hecho_hasta' | 'iniciado' | 'terminado' | 'version' | 'estado' | 'lineas' | 'columnas_extra'>,
    limit: number,
    file: { readonly lines: number; readonly extraColumns: readonly string[]; readonly stored: () => AsyncIterable<StoredLine[]> },
    wanted: () => boolean = () => true,
  ): Promise<'stored' | 'limit' | 'unwanted'> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const unwanted = new Error('unwanted');
    try {
      return await this.db.transaction(async (tx) => {
        // Two copies of the service taking one user's batches at once count them one after the other.
        if (tx.kind === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(hashtext(${p(1)}))`, [`lotes:${batch.usuario}`]);
        const [active] = await tx.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM lotes WHERE usuario = ${p(1)} AND estado IN (${p(2)}, ${p(3)})`, [
          batch.usuario,
          ...ACTIVE,
        ]);
        if (Number(active?.n ?? 0) >= limit) return 'limit';
        for await (const lines of file.stored()) {
          for (let i = 0; i < lines.length; i += ROWS_PER_INSERT) {
            const chunk = lines.slice(i, i + ROWS_PER_INSERT);
            const values = chunk.map((_, j) => `(${p(3 * j + 1)}, ${p(3 * j + 2)}, ${p(3 * j + 3)})`).join(', ');
            await tx.run(
              `INSERT INTO lotes_lineas (lote, linea, datos) VALUES ${values}`,
              chunk.flatMap((line) => [batch.id, line.linea, line.datos]),
            );
          }
        }
        await tx.run(
          `INSERT INTO lotes (id, usuario, nombre, estado, lineas, fecha, pais_origen, creado, columnas_extra, orden) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(p).join(', ')})`,
          [
            batch.id,
            batch.usuario,
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

  async get(id: string, usuario: string): Promise<Lote | undefined> {
    await this.ready();
    const [row] = await this.db.all<Record<string, unknown>>(`SELECT ${COLUMNS} FROM lotes WHERE id = ${this.p(1)} AND usuario = ${this.p(2)}`, [id, usuario]);
    return row ? lote(row) : undefined;
  }

  async byId(id: string): Promise<Lote | undefined> {
    await this.ready();
    const [row] = await this.db.all<Record<string, unknown>>(`SELECT ${COLUMNS} FROM lotes WHERE id = ${this.p(1)}`, [id]);
    return row ? lote(row) : undefined;
  }

  /** The user's batches, newest first, and how many there are. */
  async list(usuario: string, skip: number, limit: number): Promise<{ items: Lote[]; total: number }> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lotes WHERE usuario = ${p(1)} ORDER BY orden DESC LIMIT ${p(2)} OFFSET ${p(3)}`,
      [usuario, limit, skip],
    );
    const [count] = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM lotes WHERE usuario = ${p(1)}`, [usuario]);
    return { items: rows.map(lote), total: Number(count?.n ?? 0) };
  }

  /** Queued or running: cancelled, its results kept. Finished: removed with its lines and results. */
  async cancelOrRemove(id: string, usuario: string, now: string): Promise<boolean> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    return this.db.transaction(async (tx) => {
      const cancelled = await tx.run(
        `UPDATE lotes SET estado = 'cancelado', terminado = ${p(1)}, dueno = NULL, lease_hasta = NULL WHERE id = ${p(2)} AND usuario = ${p(3)} AND estado IN ('en_cola', 'procesando')`,
        [now, id, usuario],
      );
      if (cancelled > 0) {
        await tx.run(`DELETE FROM lotes_lineas WHERE lote = ${p(1)}`, [id]);
        return true;
      }
      const removed = await tx.run(`DELETE FROM lotes WHERE id = ${p(1)} AND usuario = ${p(2)}`, [id, usuario]);
      if (removed === 0) return false;
      await removeRows(tx, id);
      return true;
    });
  }

  /**
   * Takes the oldest batch waiting, or whose holder's lease ran out, for `owner` until `until` (ms),
   * in one transaction (other copies skip the row one copy is taking).
   */
  async take(owner: string, nowMs: number, until: number, now: string): Promise<Lote | undefined> {
    await this.ready();
    const p = (i: number): string => this.p(i);
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<Record<string, unknown>>(
        `SELECT ${COLUMNS} FROM lotes WHERE estado IN ('en_cola', 'procesando') AND (lease_hasta IS NULL OR lease_hasta < ${p(1)}) ORDER BY orden LIMIT 1${tx.lockRows}`,
        [nowMs],
      );
      if (!row) return undefined;
      const taken = lote(row);
      await tx.run(
        `UPDATE lotes SET estado = 'procesando', dueno = ${p(1)}, lease_hasta = ${p(2)}, iniciado = COALESCE(iniciado, ${p(3)}) WHERE id = ${p(4)}`,
        [owner, until, now, taken.id],
      );
      return { ...taken, estado: 'procesando', iniciado: taken.iniciado ?? now };
    });
  }

  /** Fixes the version that answers the batch (once: when it is first taken). */
  async fixVersion(id: string, owner: string, version: string | null): Promise<void> {
    const p = (i: number): string => this.p(i);
    await this.db.run(`UPDATE lotes SET version = ${p(1)} WHERE id = ${p(2)} AND dueno = ${p(3)} AND version IS NULL`, [version, id, owner]);
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
   * Writes a slice's results and the progress in one transaction, and renews the lease; false (and
   * nothing written) when the batch is no longer this owner's to work (cancelled, or taken over).
   */
  async saveSlice(id: string, owner: string, until: number, results: readonly SliceResult[], finished: string | null): Promise<boolean> {
    const p = (i: number): string => this.p(i);
    const last = results.at(-1)?.linea;
    return this.db
      .transaction(async (tx) => {
        const b = binder(tx);
        const sets = [
          `procesadas = procesadas + ${b(results.length)}`,
          `revisar = revisar + ${b(results.filter((r) => r.revisar).length)}`,
          `errores = errores + ${b(results.filter((r) => r.error).length)}`,
          ...(last === undefined ? [] : [`hecho_hasta = ${b(last)}`]),
          ...(finished === null ? [`lease_hasta = ${b(until)}`] : [`estado = 'terminado'`, `terminado = ${b(finished)}`, 'lease_hasta = NULL']),
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
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof LeaseLost) return false;
        throw error;
      });
  }

  /** A batch that cannot be worked (no version in force on its date). */
  async fail(id: string, owner: string, now: string): Promise<void> {
    const p = (i: number): string => this.p(i);
    await this.db.run(`UPDATE lotes SET estado = 'fallido', terminado = ${p(1)}, dueno = NULL, lease_hasta = NULL WHERE id = ${p(2)} AND dueno = ${p(3)}`, [
      now,
      id,
      owner,
    ]);
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

/** Placeholders in the order their values are bound (SQLite's `?` are positional). */
function binder(db: WorkStatements): ((value: unknown) => string) & { values: unknown[] } {
  const values: unknown[] = [];
  const bind = (value: unknown): string => {
    values.push(value);
    return db.dialect.placeholder(values.length);
  };
  return Object.assign(bind, { values });
}

let lastOrder = 0;

/** Microseconds since the epoch, strictly increasing within a process: batches sent in one millisecond keep their order. */
function nextOrder(): number {
  lastOrder = Math.max(lastOrder + 1, Date.now() * 1000);
  return lastOrder;
}
