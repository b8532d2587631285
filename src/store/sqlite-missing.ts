/**
 * What is served while the SQLite file is gone from its path (deleted, or moved away). The process
 * could go on reading the file it has open, but nothing would then tell anyone, and the next start
 * would serve something else: so every call fails as a database that is down does (503, and /health
 * unhealthy) until a file is at the path again. Being a store object of its own, it also stops the
 * answer cache, which is kept per store, from serving what it remembers.
 */
import type { FullTextResult } from './fulltext.js';
import type { Suggestion } from '../buscar/vocabulary.js';
import type { DatasetInfo, Row, Store, User } from './store.js';
import { StoreUnavailableError } from './store.js';
import type { VersionInfo } from './versions.js';
import type { Coverage } from './rates-coverage.js';
import type { SeriesWindow } from '../tipos-cambio/rule.js';
import type { ReglasAcuerdo } from '../reglas-origen/archivos.js';

export class MissingSqliteFile implements Store {
  readonly kind = 'sqlite' as const;

  constructor(readonly path: string) {}

  private fail(): Promise<never> {
    return Promise.reject(new StoreUnavailableError(`SQLite database not found: ${this.path}`));
  }

  search(): Promise<Row[]> {
    return this.fail();
  }

  count(): Promise<number> {
    return this.fail();
  }

  lookup(): Promise<Row | undefined> {
    return this.fail();
  }

  lookupMany(): Promise<Row[]> {
    return this.fail();
  }

  dataset(): Promise<DatasetInfo | null> {
    return this.fail();
  }

  versions(): Promise<VersionInfo[]> {
    return this.fail();
  }

  findUser(): Promise<User | undefined> {
    return this.fail();
  }

  fullText(): Promise<FullTextResult> {
    return this.fail();
  }

  searchReading(): Promise<string> {
    return this.fail();
  }

  suggest(): Promise<Suggestion[]> {
    return this.fail();
  }

  tiposCambio(): Promise<SeriesWindow> {
    return this.fail();
  }

  coverage(): Promise<Coverage> {
    return this.fail();
  }

  reglasOrigen(): Promise<ReglasAcuerdo[]> {
    return this.fail();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
