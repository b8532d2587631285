/**
 * The batches' worker (docs/adr/0011-lotes.md): off the request path, in every copy of the service.
 * It takes a batch with a lease, the one of the account whose turn it is (round-robin by account:
 * LotesTables.take), fixes the version that answers it when it first starts, and works it in slices:
 * each slice's results and the progress are committed in one transaction that also renews the lease,
 * or gives the batch back when another account's batch waits, so a process killed at any moment loses
 * at most the slice it had not committed, which the next holder works again, and every account's
 * batches move on together. Between slices the event loop is let through, so lookups keep their
 * latency while a batch runs.
 */
import { setImmediate } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { VersionInForce } from '../store/datasets.js';
import type { Store } from '../store/store.js';
import { leaseHolder } from '../store/work.js';
import type { LoteParameters } from './answer.js';
import type { RawLine } from './columns.js';
import type { LegacyOwner } from '../store/accounts.js';
import type { Lote, LotesTables, SliceResult } from './tables.js';
import { MAX_TAKES } from './tables.js';
import { tightHeap } from './heap.js';

/** How often a copy with nothing to do looks for a batch (one sent to this copy wakes it at once). */
const POLL_MS = 1000;
/** Lines per slice: one transaction each. */
export const SLICE_LINES = 100;
const CLEANUP_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface Versions {
  on(fecha: string): VersionInForce | undefined;
  storeFor(version: string | null): Store | undefined;
}

/** Checks a slice of lines on a version (in a worker thread, or on the store itself): src/lotes/answer.ts either way, its results as the slice writes them. */
export type CheckSlice = (version: string | null, store: Store, parameters: LoteParameters, lines: readonly RawLine[]) => Promise<SliceResult[]>;

export interface WorkerOptions {
  readonly tables: LotesTables;
  readonly versions: Versions;
  readonly check: CheckSlice;
  readonly log: FastifyBaseLogger;
  readonly retentionDays: number;
  /**
   * A holder that stops renewing (killed, cut off) loses the batch after this long (LOTES_LEASE_S); another
   * copy takes it. Each committed slice renews it, so it must stay well above a slice's time.
   */
  readonly leaseMs: number;
  readonly now?: () => Date;
  /** Told of each slice committed (progress bars: the CLI). */
  readonly onSlice?: (lote: string, lines: number) => void;
  /** The user of a username, for handing batches stored before accounts existed to their account (LotesTables.claimLegacy). */
  readonly owners?: (usuario: string) => Promise<LegacyOwner | undefined>;
}

export class LotesWorker {
  readonly owner = leaseHolder();
  private stopped = true;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private cleanup: NodeJS.Timeout | undefined;
  private readonly now: () => Date;

  constructor(private readonly options: WorkerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
    void this.housekeeping();
    this.cleanup = setInterval(() => void this.housekeeping(), CLEANUP_EVERY_MS).unref();
  }

  /** A batch was just stored: look now rather than at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Stops after the slice in hand is committed (or abandoned: its lease runs out for the next holder). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.cleanup);
    this.wakeUp?.();
    await this.running;
  }

  /** Works batches until none is waiting; for the CLI, which runs one batch and ends. */
  async drain(): Promise<void> {
    this.stopped = false;
    while (!this.stopped) {
      const batch = await this.take();
      if (batch === undefined) return;
      await this.work(batch);
    }
  }

  private async loop(): Promise<void> {
    await this.reclaimDead();
    // The heap's growth is tightened from a batch taken to the first look that finds none (src/lotes/heap.ts).
    let loosen: (() => void) | undefined;
    while (!this.stopped) {
      let batch: Lote | undefined;
      try {
        batch = await this.take();
        if (batch !== undefined) {
          loosen ??= tightHeap();
          await this.work(batch);
        }
      } catch (error) {
        // Taken again once its lease runs out; after MAX_TAKES takes without a slice committed, failed (LotesTables.take).
        this.options.log.error({ err: error, lote: batch?.id }, `batch work failed; retried after its lease, failed after ${MAX_TAKES} takes without progress`);
      }
      if (batch === undefined) {
        loosen?.();
        loosen = undefined;
        if (!this.stopped) await this.pause();
      }
    }
    loosen?.();
  }

  /** On SQLite, batches of this host's processes that were killed are taken back before the first take. */
  private async reclaimDead(): Promise<void> {
    const { tables, log } = this.options;
    if (tables.db.kind !== 'sqlite') return;
    try {
      const reclaimed = await tables.reclaimDead(this.now().getTime());
      if (reclaimed > 0) log.info({ reclaimed }, 'batches held by a process that died taken back');
    } catch (error) {
      log.error({ err: error }, 'batches held by a process that died could not be taken back; their leases run out');
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, POLL_MS);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private take(): Promise<Lote | undefined> {
    const now = this.now();
    return this.options.tables.take(this.owner, now.getTime(), now.getTime() + this.options.leaseMs, now.toISOString());
  }

  /** The store of the batch's version: fixed the first time the batch is taken, kept by every later holder. */
  private async storeOf(batch: Lote): Promise<{ version: string | null; store: Store } | undefined> {
    const { tables, versions } = this.options;
    const kept = (version: string | null): { version: string | null; store: Store } | undefined => {
      const store = versions.storeFor(version);
      return store === undefined ? undefined : { version, store };
    };
    if (batch.version !== null || batch.procesadas > 0) return kept(batch.version);
    const inForce = versions.on(batch.fecha);
    if (inForce === undefined) return undefined;
    await tables.fixVersion(batch.id, this.owner, inForce.version?.version ?? null);
    const fixed = await tables.byId(batch.id);
    return fixed === undefined ? undefined : kept(fixed.version);
  }

  /**
   * Works the batch slice by slice while it is this process's, its lease renewed as it works; a slice's
   * commit gives the batch back when another account's batch waits (or this one's account was closed),
   * and the next take serves whichever account's turn it is.
   */
  private async work(batch: Lote): Promise<void> {
    const { tables, log } = this.options;
    const on = await this.storeOf(batch);
    if (on === undefined) {
      log.warn({ lote: batch.id, fecha: batch.fecha, version: batch.version }, 'no dataset version for the batch: failed');
      await tables.fail(batch.id, this.owner, this.now().toISOString());
      return;
    }
    log.info({ lote: batch.id, lineas: batch.lineas, desde: batch.hecho_hasta }, 'batch taken');
    // The lease is also renewed while a slice is worked, not only when one is committed: on a loaded
    // machine a slice (the first starts the batches' thread) may outlast the lease, and another copy
    // would take the batch from a holder that is alive. A holder that dies stops renewing it.
    const renewal = setInterval(
      () =>
        void tables
          .renewLease(batch.id, this.owner, this.now().getTime() + this.options.leaseMs)
          .catch((error: unknown) => log.warn({ err: error, lote: batch.id }, 'batch lease not renewed')),
      Math.max(500, Math.floor(this.options.leaseMs / 4)),
    ).unref();
    try {
      await this.slices(batch, on);
    } finally {
      clearInterval(renewal);
    }
  }

  /** The batch's slices, one after the other, until it is finished, given back, cancelled or taken over. */
  private async slices(batch: Lote, on: { version: string | null; store: Store }): Promise<void> {
    const { tables, check, log } = this.options;
    let after = batch.hecho_hasta;
    while (!this.stopped) {
      const lines = await tables.nextLines(batch.id, after, SLICE_LINES);
      const results = await check(on.version, on.store, { fecha: batch.fecha, paisOrigen: batch.pais_origen }, lines);
      const now = this.now();
      const finished = lines.length < SLICE_LINES ? now.toISOString() : null;
      const saved = await tables.saveSlice(batch.id, this.owner, now.getTime(), now.getTime() + this.options.leaseMs, results, finished);
      if (saved === false) {
        log.info({ lote: batch.id }, 'batch cancelled or taken over: left');
        return;
      }
      this.options.onSlice?.(batch.id, lines.length);
      if (saved === 'finished') {
        log.info({ lote: batch.id }, 'batch finished');
        return;
      }
      // Lookups and the HTTP side get the event loop between two slices.
      await setImmediate();
      if (saved === 'released') return;
      after = lines.at(-1)!.linea;
    }
  }

  /**
   * At start and every hour: batches of a version before accounts handed to their account, removed
   * users' batches deleted (also done at once by `tariff-lookup users remove`), finished batches past
   * their retention deleted.
   */
  private async housekeeping(): Promise<void> {
    const { tables, log, owners } = this.options;
    const before = new Date(this.now().getTime() - this.options.retentionDays * DAY_MS).toISOString();
    try {
      const claimed = owners === undefined ? 0 : await tables.claimLegacy(owners);
      if (claimed > 0) log.info({ claimed }, "batches stored before accounts handed to their users' accounts");
      const purged = await tables.purgeRemoved();
      if (purged > 0) log.info({ removed: purged }, 'batches of removed users deleted');
      const removed = await tables.removeFinishedBefore(before);
      if (removed > 0) log.info({ removed }, 'finished batches past their retention removed');
    } catch (error) {
      log.error({ err: error }, 'the batches could not be tidied; trying again in an hour');
    }
  }
}
