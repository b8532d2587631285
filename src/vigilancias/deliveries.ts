/**
 * The outbox's sender. Due deliveries are taken a few at a time with a lease (`lockRows`: on
 * PostgreSQL `FOR UPDATE SKIP LOCKED`, so each attempt is made by one copy), sent at most
 * VIGILANCIAS_CONCURRENCIA at once and at most two at once to one watch list, each abandoned after
 * 10 s, so that a slow or dead receiver holds back only its own deliveries. A process killed with
 * deliveries taken leaves them to whoever finds their lease run out.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { accountOpen } from '../store/accounts.js';
import type { WorkDb, WorkStatements } from '../store/work.js';
import { deadHolder, leaseHolder } from '../store/work.js';
import type { Outcome, WebhookPolicy } from './outbound.js';
import { hostOf, post } from './outbound.js';
import { webhookHeaders } from './signature.js';

/** A 2xx within this time delivers (../shared/spec/vigilancias.md). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Longer than an attempt and its bookkeeping: a lease this old belongs to a process that is gone. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 15_000;
const PER_VIGILANCIA = 2;
const TICK_MS = 250;
/** The first wait before an attempt's outcome is written again after the store failed to take it; doubled each time, up to RECORD_WAIT_MAX_MS. */
const RECORD_WAIT_MS = 100;
const RECORD_WAIT_MAX_MS = 2_000;

/**
 * Deliveries due now (placeholders 1 and 2: now), whose lease, if any, ran out, of a watch list whose
 * account is open: a disabled user's wait (pending) until the user is enabled; a removed user's are deleted with it.
 */
const due = (db: WorkStatements): string =>
  `"estado" = 'pendiente' AND "siguiente_intento" <= ${db.dialect.placeholder(1)} AND ("tomada_hasta" IS NULL OR "tomada_hasta" < ${db.dialect.placeholder(2)})` +
  ` AND EXISTS (SELECT 1 FROM "vigilancias" AS "vd" WHERE "vd"."id" = "vigilancias_entregas"."vigilancia" AND "vd"."cuenta" IS NOT NULL AND ${accountOpen('"vd"."cuenta"')})`;

export type Resultado = 'entregada' | 'reintento' | 'fallida' | 'desactivada';

export interface SenderOptions {
  readonly waits: readonly number[];
  readonly policy: WebhookPolicy;
  readonly concurrency: number;
  readonly log: FastifyBaseLogger;
  /** Told of each attempt's result (the metrics). */
  readonly attempted?: (resultado: Resultado) => void;
}

interface Taken {
  readonly id: string;
  readonly evento: string;
  readonly vigilancia: string;
  readonly intentos: number;
  readonly url: string;
  readonly secreto: string;
  readonly cuerpo: string;
  /** When this process's lease on it runs out (ms since the epoch). */
  readonly hasta: number;
}

export class Sender {
  /** Who holds a lease: this host and process (so that a process of the same host can tell a dead holder), and a nonce. */
  private readonly me = leaseHolder();
  private readonly inFlight = new Map<string, number>();
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private taking: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private lastFailure = '';
  private readonly attempts = new Set<Promise<void>>();

  constructor(
    private readonly db: WorkDb,
    private readonly options: SenderOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), TICK_MS).unref();
    // On SQLite every process using the working file runs on this host: the leases of those killed
    // (kill -9 in the middle of an attempt) are taken back now rather than when they run out.
    const reclaimed =
      this.db.kind === 'sqlite'
        ? this.reclaimDead().catch((error: unknown) => this.options.log.error({ err: error }, 'dead leases could not be taken back'))
        : Promise.resolve();
    void reclaimed.then(() => this.wake());
  }

  /**
   * Ends the leases held by processes of this host that no longer run, so that their deliveries are
   * attempted at once (an attempt that had reached the receiver is sent again: delivery is at least
   * once). A process is gone when signalling it says there is no such process; a holder on another
   * host is never judged. How many deliveries were taken back.
   */
  async reclaimDead(now = Date.now()): Promise<number> {
    const p = (i: number): string => this.db.dialect.placeholder(i);
    const holders = await this.db.all<{ tomada_por: string }>(
      `SELECT DISTINCT "tomada_por" FROM "vigilancias_entregas" WHERE "estado" = 'pendiente' AND "tomada_hasta" >= ${p(1)}`,
      [now],
    );
    let reclaimed = 0;
    for (const { tomada_por: holder } of holders) {
      if (!deadHolder(holder)) continue;
      reclaimed += await this.db.run(
        `UPDATE "vigilancias_entregas" SET "tomada_por" = NULL, "tomada_hasta" = NULL WHERE "tomada_por" = ${p(1)} AND "estado" = 'pendiente'`,
        [holder],
      );
    }
    if (reclaimed > 0) this.options.log.info({ reclaimed }, 'deliveries held by a process that died taken back');
    return reclaimed;
  }

  /** Looks for due deliveries now (after one is queued, or an attempt ends). */
  wake(): void {
    if (this.closed) return;
    if (this.taking) {
      this.again = true;
      return;
    }
    this.taking = this.take()
      .then(() => {
        this.lastFailure = '';
      })
      .catch((error: unknown) => {
        // Once per kind of failure, not every tick while the store is down.
        const message = error instanceof Error ? error.message : String(error);
        if (message !== this.lastFailure) this.options.log.error({ err: error }, 'webhook deliveries could not be taken; trying again');
        this.lastFailure = message;
      })
      .finally(() => {
        this.taking = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async take(): Promise<void> {
    const free = this.options.concurrency - this.running;
    if (free <= 0) return;
    const now = Date.now();
    const busy = [...this.inFlight].filter(([, n]) => n >= PER_VIGILANCIA).map(([v]) => v);
    const [any] = await this.db.all<{ id: string }>(`SELECT "id" FROM "vigilancias_entregas" WHERE ${due(this.db)} LIMIT 1`, [now, now]);
    if (!any) return;
    const taken = await this.db.transaction((tx) => this.lease(tx, busy, free, now));
    for (const row of taken) this.attempt(row);
  }

  private async lease(tx: WorkStatements, busy: readonly string[], free: number, now: number): Promise<Taken[]> {
    const p = (i: number): string => tx.dialect.placeholder(i);
    // Placeholders numbered in the order they appear: SQLite binds `?` by position.
    const skip = busy.length === 0 ? '' : ` AND "vigilancia" NOT IN (${busy.map((_, i) => p(i + 3)).join(', ')})`;
    const rows = await tx.all<{ id: string; vigilancia: string }>(
      `SELECT "id", "vigilancia" FROM "vigilancias_entregas" WHERE ${due(tx)}${skip} ORDER BY "siguiente_intento" LIMIT ${p(busy.length + 3)}${tx.lockRows}`,
      [now, now, ...busy, free * 4],
    );
    const perList = new Map(this.inFlight);
    const chosen: string[] = [];
    for (const row of rows) {
      if (chosen.length >= free) break;
      const n = perList.get(row.vigilancia) ?? 0;
      if (n >= PER_VIGILANCIA) continue;
      perList.set(row.vigilancia, n + 1);
      chosen.push(row.id);
    }
    if (chosen.length === 0) return [];
    const ids = chosen.map((_, i) => p(i + 3)).join(', ');
    const hasta = now + LEASE_MS;
    await tx.run(`UPDATE "vigilancias_entregas" SET "tomada_por" = ${p(1)}, "tomada_hasta" = ${p(2)} WHERE "id" IN (${ids})`, [this.me, hasta, ...chosen]);
    const taken = await tx.all<Omit<Taken, 'hasta'>>(
      `SELECT d."id", d."evento", d."vigilancia", d."intentos", v."url", v."secreto", e."cuerpo"
         FROM "vigilancias_entregas" d JOIN "vigilancias" v ON v."id" = d."vigilancia" JOIN "vigilancias_eventos" e ON e."id" = d."evento"
        WHERE d."id" IN (${chosen.map((_, i) => p(i + 1)).join(', ')})`,
      chosen,
    );
    return taken.map((row) => ({ ...row, hasta }));
  }

  private attempt(row: Taken): void {
    this.running++;
    this.inFlight.set(row.vigilancia, (this.inFlight.get(row.vigilancia) ?? 0) + 1);
    const attempt = this.send(row)
      .catch((error: unknown) => this.options.log.error({ err: error, entrega: row.id }, 'a webhook delivery could not be recorded'))
      .finally(() => {
        this.running--;
        const n = (this.inFlight.get(row.vigilancia) ?? 1) - 1;
        if (n <= 0) this.inFlight.delete(row.vigilancia);
        else this.inFlight.set(row.vigilancia, n);
        this.attempts.delete(attempt);
        this.wake();
      });
    this.attempts.add(attempt);
  }

  private async send(row: Taken): Promise<void> {
    const started = Date.now();
    const outcome = await post(row.url, webhookHeaders(row.secreto, row.evento, row.cuerpo, started), row.cuerpo, this.options.policy, ATTEMPT_TIMEOUT_MS);
    const resultado = await this.recordWhileHeld(row, outcome);
    this.options.attempted?.(resultado);
    const status = 'status' in outcome ? outcome.status : null;
    const error = 'error' in outcome ? outcome.error : null;
    let host = '';
    try {
      host = hostOf(new URL(row.url));
    } catch {
      // The URL was checked when saved; a host that cannot be read is logged without it.
    }
    // Never the secret nor the URL's path and query (which may carry a token of the receiver's).
    this.options.log.info(
      { vigilancia: row.vigilancia, entrega: row.id, evento: row.evento, intento: row.intentos + 1, host, status, error, ms: Date.now() - started, resultado },
      'webhook attempt',
    );
  }

  /**
   * Writes the attempt's outcome, again after a failure (a connection lost, no free connection in
   * time) for as long as the lease holds: an attempt that was made is recorded, not left taken until
   * the lease runs out and then made again.
   */
  private async recordWhileHeld(row: Taken, outcome: Outcome): Promise<Resultado> {
    for (let wait = RECORD_WAIT_MS; ; wait = Math.min(2 * wait, RECORD_WAIT_MAX_MS)) {
      try {
        return await this.record(row, outcome);
      } catch (error) {
        if (this.closed || Date.now() + wait >= row.hasta) throw error;
        this.options.log.warn({ err: error, entrega: row.id }, 'the outcome of a webhook attempt could not be recorded; trying again');
        await delay(wait);
      }
    }
  }

  /** What an attempt's outcome makes of its delivery, written only while this process still holds it. */
  private record(row: Taken, outcome: Outcome): Promise<Resultado> {
    const now = Date.now();
    const intentos = row.intentos + 1;
    const status = 'status' in outcome ? outcome.status : null;
    const error = 'error' in outcome ? outcome.error : status !== null && (status < 200 || status > 299) ? `HTTP ${status}` : null;
    return this.db.transaction(async (tx) => {
      const p = (i: number): string => tx.dialect.placeholder(i);
      const set = (estado: string, siguiente: number | null, entregada: number | null): Promise<number> =>
        tx.run(
          `UPDATE "vigilancias_entregas" SET "estado" = ${p(1)}, "intentos" = ${p(2)}, "ultimo_codigo" = ${p(3)}, "ultimo_error" = ${p(4)}, "siguiente_intento" = ${p(5)}, "entregada" = ${p(6)}, "tomada_por" = NULL, "tomada_hasta" = NULL WHERE "id" = ${p(7)} AND "tomada_por" = ${p(8)}`,
          [estado, intentos, status, error, siguiente, entregada, row.id, this.me],
        );
      if (status !== null && status >= 200 && status <= 299) {
        await set('entregada', null, now);
        return 'entregada';
      }
      if (status === 410) {
        // Gone: the receiver asks for nothing more. The watch list is disabled and what was pending for it dropped.
        if ((await set('fallida', null, null)) > 0) {
          await tx.run(`UPDATE "vigilancias" SET "activa" = ${p(1)} WHERE "id" = ${p(2)}`, [tx.bool(false), row.vigilancia]);
          // A delivery another attempt holds records its own outcome.
          await tx.run(
            `DELETE FROM "vigilancias_entregas" WHERE "vigilancia" = ${p(1)} AND "estado" = 'pendiente' AND ("tomada_por" IS NULL OR "tomada_hasta" < ${p(2)})`,
            [row.vigilancia, now],
          );
        }
        return 'desactivada';
      }
      const wait = this.options.waits[intentos - 1];
      if (wait === undefined) {
        await set('fallida', null, null);
        return 'fallida';
      }
      await set('pendiente', now + wait, null);
      return 'reintento';
    });
  }

  /** Stops taking deliveries and waits for the attempts under way (each ends within 10 s). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.taking;
    await Promise.allSettled([...this.attempts]);
  }
}
