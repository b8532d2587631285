/**
 * Which version answers: the one in force today in Mexico City (the current version), or on the date
 * a request names with `as_of`. The catalog is read from the main store every DATASET_VERSIONS_CHECK_MS
 * (2 s by default; the contract allows 5 s), so a version added or removed by another process shows
 * within that time; today's date is read from the clock on every request, so a version loaded ahead
 * takes over by itself when its day comes, with no restart and no failed request. The newest import is the main store itself; another version is a
 * store of its own, opened when first asked for and closed when the version is removed.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { driverFor } from './drivers.js';
import type { MainStore } from './main-store.js';
import type { RecordSet } from '../record-sets/define.js';
import type { Store, Values } from './store.js';
import type { Coverage } from './rates-coverage.js';
import type { VersionInfo } from './versions.js';
import { byRecency, inForce, mexicoCityDate, newestImport } from './versions.js';

/** How long the store of a removed version stays open for the requests that began on it. */
const RETIRE_AFTER_MS = 5000;
/** How many pairs of versions the comparisons of are kept (each a few bytes per changed record). */
const CHANGES_KEPT = 4;

/** The store that answers and the version it holds (null while the catalog is unknown: the store is down, or empty). */
export interface VersionInForce {
  readonly store: Store;
  readonly version: VersionInfo | null;
}

export class Datasets {
  private catalog: readonly VersionInfo[] = [];
  /** The store the catalog was read from: when the main store is replaced, the catalog is read again. */
  private readFrom: Store | null = null;
  private readonly olderStores = new Map<string, Store>();
  private readonly check: NodeJS.Timeout;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly config: Config,
    private readonly mainStore: MainStore,
    private readonly log: FastifyBaseLogger,
    /** The clock: tests move it to midnight instead of waiting for it. */
    private readonly now: () => Date = () => new Date(),
  ) {
    this.check = setInterval(() => void this.refresh(), config.DATASET_VERSIONS_CHECK_MS).unref();
  }

  /** Reads the catalog again; a store that cannot answer keeps the catalog it had. */
  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async read(): Promise<void> {
    const store = this.mainStore.current();
    let catalog: VersionInfo[];
    try {
      catalog = await store.versions();
    } catch {
      return;
    }
    this.catalog = catalog.sort(byRecency);
    this.readFrom = store;
    for (const [version, older] of this.olderStores) {
      if (catalog.some((v) => v.version === version) && newestImport(catalog)?.version !== version) continue;
      this.olderStores.delete(version);
      setTimeout(() => void older.close(), RETIRE_AFTER_MS).unref();
      this.log.info({ version }, 'version no longer served from its own store');
    }
  }

  /** Every version, newest `vigente_desde` first. */
  versions(): readonly VersionInfo[] {
    return this.catalog;
  }

  private second = Number.NaN;
  private date = '';

  /** Today in Mexico City, `YYYY-MM-DD` (worked out at most once a second: this is on every request's path). */
  today(): string {
    const second = Math.floor(this.now().getTime() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.date = mexicoCityDate(new Date(second * 1000));
    }
    return this.date;
  }

  /** The last call of `on()` and its result, given again while the date, the catalog and the main store are the same. */
  private lastOn: { date: string; catalog: readonly VersionInfo[]; main: Store; result: VersionInForce | undefined } | null = null;

  /** The version in force today, and its store. */
  current(): VersionInForce {
    return this.on(this.today()) ?? { store: this.mainStore.current(), version: null };
  }

  /** The version in force on `date`, or undefined when none is (a date before the earliest version). */
  on(date: string): VersionInForce | undefined {
    const main = this.mainStore.current();
    const last = this.lastOn;
    if (last !== null && last.date === date && last.catalog === this.catalog && last.main === main) return last.result;
    if (main !== this.readFrom) void this.refresh();
    const result = this.resolve(date, main);
    this.lastOn = { date, catalog: this.catalog, main, result };
    return result;
  }

  private resolve(date: string, main: Store): VersionInForce | undefined {
    if (this.catalog.length === 0) return { store: main, version: null };
    const version = inForce(this.catalog, date);
    if (!version) return undefined;
    return { store: this.storeOf(version, main), version };
  }

  private storeOf(version: VersionInfo, main: Store): Store {
    if (version.version === newestImport(this.catalog)?.version) return main;
    let store = this.olderStores.get(version.version);
    if (!store) {
      store = driverFor(this.config).openVersion(this.config, version);
      this.olderStores.set(version.version, store);
    }
    return store;
  }

  /**
   * The store of a version by its identifier, for work that fixed its version when it began (a batch):
   * the main store when there is no catalog (null), undefined when the version is no longer kept.
   */
  storeFor(version: string | null): Store | undefined {
    const main = this.mainStore.current();
    if (version === null) return this.catalog.length === 0 ? main : undefined;
    const info = this.catalog.find((v) => v.version === version);
    return info === undefined ? undefined : this.storeOf(info, main);
  }

  /** A version by its identifier, `current` standing for the one in force today. */
  find(version: string): VersionInfo | undefined {
    if (version === 'current') return this.current().version ?? undefined;
    return this.catalog.find((v) => v.version === version);
  }

  /** The rows of one record set of a version, in identifier order, read while the caller goes on (a download). */
  rows(rs: RecordSet, version: VersionInfo): AsyncGenerator<Values> {
    const olderVersion = version.version === newestImport(this.catalog)?.version ? undefined : version;
    return driverFor(this.config).readRecordSet(this.config, rs, olderVersion);
  }

  /** Per version (identified with its import and content): its coverage, worked out once. */
  private readonly covered = new Map<string, Promise<Coverage>>();

  /**
   * How many of a version's fractions each record set covers (Store.coverage): one statement, run
   * once per version, since a version never changes once loaded; a failure is not remembered.
   */
  coverage(version: VersionInfo): Promise<Coverage> {
    const key = `${version.version} ${version.seq} ${version.hash}`;
    let known = this.covered.get(key);
    if (!known) {
      known = this.storeOf(version, this.mainStore.current()).coverage();
      this.covered.set(key, known);
      known.catch(() => this.covered.delete(key));
    }
    return known;
  }

  /** Per pair of versions (identified with their import and content), per record set path: what differs. */
  private readonly compared = new Map<string, Map<string, Promise<Values[]>>>();

  /**
   * What differs between two versions in each of `sets` (StoreDriver.changes): worked out by the store
   * once per pair and record set and kept, since a version never changes once loaded; the few pairs
   * asked for most recently are kept.
   */
  changes(sets: readonly RecordSet[], desde: VersionInfo, hasta: VersionInfo): Promise<Values[][]> {
    const pair = [desde, hasta].map((v) => `${v.version} ${v.seq} ${v.hash}`).join('\n');
    const known = this.compared.get(pair) ?? new Map<string, Promise<Values[]>>();
    this.compared.delete(pair);
    this.compared.set(pair, known);
    for (const old of this.compared.keys()) {
      if (this.compared.size <= CHANGES_KEPT) break;
      this.compared.delete(old);
    }
    const missing = sets.filter((rs) => !known.has(rs.path));
    if (missing.length > 0) {
      const compared = driverFor(this.config).changes(this.config, missing, desde, hasta);
      missing.forEach((rs, i) => {
        const changes = compared.then((all) => all[i]!);
        known.set(rs.path, changes);
        // A failure (the store went away) is not remembered: the next request tries again.
        changes.catch(() => known.delete(rs.path));
      });
    }
    return Promise.all(sets.map((rs) => known.get(rs.path)!));
  }

  async close(): Promise<void> {
    clearInterval(this.check);
    await this.refreshing;
    for (const store of this.olderStores.values()) await store.close();
    this.olderStores.clear();
  }
}
