/**
 * The events: when a version is loaded (`cargada`) and when a version loaded ahead becomes current
 * (`vigente`), the version is compared with the one it follows (in force the day before its
 * `vigente_desde`) by the code `/api/v1/cambios?fraccion=` runs (src/data/cambios.ts), and every
 * active watch list with at least one change among its fractions and record sets gets one event.
 *
 * New versions are noticed from the catalog (src/store/datasets.ts re-reads it every 2 s, whoever
 * loaded them: `import` in another process, the demo build, another copy). Each version and moment is
 * generated once: a row claimed first (`vigilancias_generaciones`, a lease for a process that dies
 * half-way), marked done in the transaction that writes the events, so a restart or another copy
 * never writes them twice.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Cambio } from '../data/cambios.js';
import type { RecordSet } from '../record-sets/define.js';
import { compareKeys, fractionChanges, wholePage } from '../data/cambios.js';
import { ownFractionFilter } from '../record-sets/define.js';
import { recordSets } from '../record-sets/index.js';
import type { Datasets, VersionInForce } from '../store/datasets.js';
import type { VersionInfo } from '../store/versions.js';
import { mexicoCityDate } from '../store/versions.js';
import { accountOpen } from '../store/accounts.js';
import type { WorkDb } from '../store/work.js';
import type { VigilanciaRow } from './tables.js';
import type { Vigilancia } from './vigilancias.js';
import { VIGILANCIA_COLUMNS, isoSeconds, queueEvent, toVigilancia } from './vigilancias.js';

export type Momento = 'cargada' | 'vigente';

/** Changes an event lists; the rest are counted in `resumen` and reached through `mas`. */
export const CAMBIOS_IN_EVENT = 100;
/** A process that claimed a version and died is replaced after this long. */
const CLAIM_LEASE_MS = 120_000;
/** Fractions compared at once: the lookups the service answers meanwhile share the same store. */
const PARALLEL_FRACTIONS = 4;

const setIndex = new Map(recordSets.map((rs, i) => [rs.path, i]));
const byPath = new Map(recordSets.map((rs) => [rs.path, rs]));

/** The day before a date `YYYY-MM-DD`. */
export function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** Loaded before the day it is in force from (in Mexico City): its day coming is an event of its own. */
const loadedAhead = (v: VersionInfo): boolean => mexicoCityDate(new Date(v.importado)) < v.vigenteDesde;

/** The event body of one watch list, or null when nothing it watches changed. */
export interface Comparison {
  readonly from: VersionInForce & { version: VersionInfo };
  readonly to: VersionInForce & { version: VersionInfo };
}

/**
 * Every changed fraction code and its prefixes, and the record sets with any change: a watched code
 * none of these begins cannot have a change, nor can a record set without any, so the comparison per
 * fraction is run only for codes and record sets that can.
 */
async function changedPrefixes(datasets: Datasets, c: Comparison): Promise<{ prefixes: Set<string>; sets: RecordSet[] }> {
  const sets = recordSets.filter((rs) => ownFractionFilter(rs));
  const { items } = await wholePage(datasets, sets, c.from, c.to, 0, Number.POSITIVE_INFINITY);
  const prefixes = new Set<string>();
  const changedSets = new Set<string>();
  const add = (code: string | number | null): void => {
    if (code === null) return;
    const text = String(code);
    for (let n = 1; n <= Math.min(8, text.length); n++) prefixes.add(text.slice(0, n));
  };
  for (const item of items) {
    changedSets.add(item.conjunto);
    add(item.fraccion);
    // A record moved from another fraction is a change of that one too.
    const filter = ownFractionFilter(byPath.get(item.conjunto)!);
    for (const campo of item.campos ?? []) if (campo.campo === filter?.field) add(campo.antes);
  }
  return { prefixes, sets: sets.filter((rs) => changedSets.has(rs.path)) };
}

const idKey = (c: Cambio): string => `${c.conjunto}\n${JSON.stringify(c.id)}`;
const asKey = (id: Cambio['id']): (string | number | null)[] => (Array.isArray(id) ? id : [id]);

/** The changes of a watch list: those of each of its fractions, as `/api/v1/cambios?fraccion=` gives them, in record-set and identifier order. */
function changesOf(v: Vigilancia, perFraction: ReadonlyMap<string, readonly Cambio[]>): Cambio[] {
  const conjuntos = new Set(v.conjuntos);
  const seen = new Map<string, Cambio>();
  for (const digits of v.fracciones) {
    for (const c of perFraction.get(digits) ?? []) if (conjuntos.has(c.conjunto)) seen.set(idKey(c), c);
  }
  return [...seen.values()].sort((a, b) => setIndex.get(a.conjunto)! - setIndex.get(b.conjunto)! || compareKeys(asKey(a.id), asKey(b.id)));
}

export function eventBody(v: Vigilancia, c: Comparison, momento: Momento, cambios: readonly Cambio[], now: number): string {
  const count = (kind: Cambio['cambio']): number => cambios.filter((x) => x.cambio === kind).length;
  const desde = dayBefore(c.to.version.vigenteDesde);
  const query = new URLSearchParams({ desde, hasta: c.to.version.vigenteDesde });
  if (v.fracciones.length === 1) query.set('fraccion', v.fracciones[0]!);
  if (v.conjuntos.length === 1) query.set('conjunto', v.conjuntos[0]!);
  return JSON.stringify({
    type: 'tarifa.cambios',
    timestamp: isoSeconds(now),
    data: {
      vigilancia: v.id,
      nombre: v.nombre,
      version_anterior: c.from.version.version,
      version_nueva: c.to.version.version,
      vigente_desde: c.to.version.vigenteDesde,
      momento,
      resumen: { altas: count('alta'), bajas: count('baja'), modificaciones: count('modificacion') },
      cambios: cambios.slice(0, CAMBIOS_IN_EVENT),
      mas: `/api/v1/cambios?${query.toString()}`,
    },
  });
}

/** Runs `work` over `items`, `parallel` at a time. */
async function eachLimited<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, lane));
}

/** Each active watch list's changes between two versions, for those with any. */
export async function vigilanciaChanges(datasets: Datasets, c: Comparison, lists: readonly Vigilancia[]): Promise<Map<Vigilancia, Cambio[]>> {
  const { prefixes, sets } = await changedPrefixes(datasets, c);
  const candidates = new Set<string>();
  for (const v of lists) for (const digits of v.fracciones) if (prefixes.has(digits.slice(0, 8))) candidates.add(digits);
  const perFraction = new Map<string, Cambio[]>();
  await eachLimited([...candidates], PARALLEL_FRACTIONS, async (digits) => {
    const found: Cambio[] = [];
    for await (const change of fractionChanges(sets, c.from, c.to, digits)) found.push(change);
    if (found.length > 0) perFraction.set(digits, found);
  });
  const result = new Map<Vigilancia, Cambio[]>();
  for (const v of lists) {
    const changes = changesOf(v, perFraction);
    if (changes.length > 0) result.set(v, changes);
  }
  return result;
}

export class EventGenerator {
  private readonly me = randomUUID();
  private readonly done = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly db: WorkDb,
    private readonly datasets: Datasets,
    private readonly log: FastifyBaseLogger,
    /** Told when events were queued. */
    private readonly queued: () => void,
    /** How often the catalog is looked at (VIGILANCIAS_CHECK_MS). */
    private readonly everyMs: number,
  ) {}

  /** The first pass (versions already there are claimed before any watch list can be made), then one every `everyMs`. */
  async start(): Promise<void> {
    await this.pass();
    this.timer = setInterval(() => void this.pass(), this.everyMs).unref();
  }

  /** Looks at the catalog now; resolves when this pass has generated what was due. */
  private lastFailure = '';

  pass(): Promise<void> {
    this.running ??= this.generateDue()
      .then(() => {
        this.lastFailure = '';
      })
      .catch((error: unknown) => {
        // Once per kind of failure, not every 2 s while the store is down.
        const message = error instanceof Error ? error.message : String(error);
        if (message !== this.lastFailure) this.log.error({ err: error }, 'watch-list events could not be generated; trying again');
        this.lastFailure = message;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async generateDue(): Promise<void> {
    await this.datasets.refresh();
    const today = this.datasets.today();
    // Oldest first, so that events go out in the order the versions take effect.
    for (const v of [...this.datasets.versions()].reverse()) {
      if (this.closed) return;
      await this.generate(v, 'cargada');
      if (loadedAhead(v) && today >= v.vigenteDesde) await this.generate(v, 'vigente');
    }
  }

  private async generate(v: VersionInfo, momento: Momento): Promise<void> {
    const key = `${v.version}#${v.seq}#${momento}`;
    if (this.done.has(key) || !(await this.claim(key))) return;
    const started = Date.now();
    const lists = await this.activeLists();
    const comparison = lists.length === 0 ? undefined : this.comparison(v);
    const changes = comparison ? await vigilanciaChanges(this.datasets, comparison, lists) : new Map<Vigilancia, Cambio[]>();
    const now = Date.now();
    await this.db.transaction(async (tx) => {
      const p = (i: number): string => tx.dialect.placeholder(i);
      const mine = await tx.run(
        `UPDATE "vigilancias_generaciones" SET "estado" = 'hecha', "eventos" = ${p(1)} WHERE "clave" = ${p(2)} AND "dueno" = ${p(3)} AND "estado" = 'generando'`,
        [changes.size, key, this.me],
      );
      if (mine === 0) throw new Error(`the events of ${key} were taken over by another process`);
      for (const [list, cambios] of changes) {
        await queueEvent(tx, list.id, 'tarifa.cambios', () => eventBody(list, comparison!, momento, cambios, now), now);
      }
    });
    this.done.add(key);
    this.log.info({ version: v.version, momento, eventos: changes.size, ms: Date.now() - started }, 'watch-list events queued');
    if (changes.size > 0) this.queued();
  }

  /** The version and the one it follows, both with their stores; undefined when it follows none (the first) or is no longer the one in force on its date. */
  private comparison(v: VersionInfo): Comparison | undefined {
    const to = this.datasets.on(v.vigenteDesde);
    const from = this.datasets.on(dayBefore(v.vigenteDesde));
    if (!to?.version || !from?.version || to.version.version !== v.version || from.version.version === v.version) return undefined;
    return { from: from as Comparison['from'], to: to as Comparison['to'] };
  }

  /** The watch lists to tell: active, of an open account (a disabled user's get no events while disabled; a removed user's none). */
  private async activeLists(): Promise<Vigilancia[]> {
    const rows = await this.db.all<VigilanciaRow>(
      `SELECT ${VIGILANCIA_COLUMNS} FROM "vigilancias" WHERE "activa" = ${this.db.dialect.placeholder(1)} AND "cuenta" IS NOT NULL AND ${accountOpen('"vigilancias"."cuenta"')}`,
      [this.db.bool(true)],
    );
    return rows.map(toVigilancia);
  }

  /** True when this process is to generate `key`: it is new, or its last claimant's lease ran out. */
  private async claim(key: string): Promise<boolean> {
    const p = (i: number): string => this.db.dialect.placeholder(i);
    const now = Date.now();
    const inserted = await this.db.run(
      `INSERT INTO "vigilancias_generaciones" ("clave", "estado", "dueno", "hasta", "eventos") VALUES (${p(1)}, 'generando', ${p(2)}, ${p(3)}, 0) ON CONFLICT DO NOTHING`,
      [key, this.me, now + CLAIM_LEASE_MS],
    );
    if (inserted > 0) return true;
    const retaken = await this.db.run(
      `UPDATE "vigilancias_generaciones" SET "dueno" = ${p(1)}, "hasta" = ${p(2)} WHERE "clave" = ${p(3)} AND "estado" = 'generando' AND "hasta" < ${p(4)}`,
      [this.me, now + CLAIM_LEASE_MS, key, now],
    );
    if (retaken > 0) return true;
    const [row] = await this.db.all<{ estado: string }>(`SELECT "estado" FROM "vigilancias_generaciones" WHERE "clave" = ${p(1)}`, [key]);
    if (row?.estado === 'hecha') this.done.add(key);
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }
}
