/**
 * Downloads of a version as clients use them, on one store (describeDownloads): a folder of every file
 * passes `sha256sum -c SHA256SUMS`; and the largest record set streamed to several clients at once,
 * some of them going away mid-stream, from a service in a process of its own: its memory does not grow
 * with the number of clients, what an abandoned download opened is given back, and the service answers
 * as before. Each store's in a file of its own (descargas.test.ts, descargas-postgres.test.ts), so that
 * `npm test` runs them side by side.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { recordToRow } from '../src/data/record-row.js';
import type { StoreKind } from '../src/config-values.js';
import { recordSets } from '../src/record-sets/index.js';
import type { DatasetWriter } from '../src/store/store.js';
import { fillFixture, fixtureRecords } from './fixtures.js';
import { defer, temporary, waitFor } from './lifetime.js';
import { database, keepOriginal } from './databases.js';
import { serve } from './servers.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, tokenFor } from './clients.js';
import { runService } from './process.js';

const run = promisify(execFile);
const tlcs = recordSets.find((rs) => rs.path === 'tlcs')!;

/** The fixture, and tlcs (the largest record set in real data) grown to this many records: built once and kept, as the fixture is. */
const LARGE = 250_000;
function fillLarge(writer: DatasetWriter): void {
  fillFixture(writer);
  const records = fixtureRecords(tlcs);
  for (let i = 0; i < LARGE; i++) writer.insert(tlcs, recordToRow(tlcs, { ...records[i % records.length]!, SYSID: 1000 + i }));
}
keepOriginal('large', fillLarge, import.meta.url);

interface Manifest {
  version: string;
  archivos: { conjunto: string; archivo: string; filas: number; bytes: number; sha256: string }[];
}

/** The highest resident memory the process has had, in bytes (Linux). */
const peakMemory = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** How many files the process has open at `path`, its -wal and -journal included (Linux). */
function openFiles(pid: number, path: string): number {
  const dir = `/proc/${pid}/fd`;
  return readdirSync(dir).filter((fd) => {
    try {
      return readlinkSync(join(dir, fd)).startsWith(path);
    } catch {
      return false;
    }
  }).length;
}

/** The downloads' tests on `kind`. */
export function describeDownloads(kind: StoreKind): void {
  describe(`downloads as clients use them (${kind})`, () => {
    test('a folder of every file of a version passes sha256sum -c; a file changed afterwards fails it', async (t) => {
      const db = await database(t, kind);
      const s = await serve(t, { DATABASE_URL: db.url });
      const dir = temporary(t);
      const auth = { authorization: `Bearer ${s.token}` };
      const manifest = (await (await s.get('/api/v1/descargas/current/manifest.json', auth)).json()) as Manifest;
      writeFileSync(join(dir, 'SHA256SUMS'), await (await s.get('/api/v1/descargas/current/SHA256SUMS', auth)).text());
      for (const file of manifest.archivos) {
        const response = await s.get(`/api/v1/descargas/${manifest.version}/${file.archivo}`, auth);
        assert.equal(response.status, 200, file.archivo);
        writeFileSync(join(dir, file.archivo), Buffer.from(await response.arrayBuffer()));
      }
      const checked = await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir });
      assert.deepEqual(
        checked.stdout.trim().split('\n'),
        recordSets.map((rs) => `${rs.path}.csv: OK`),
      );
      appendFileSync(join(dir, 'cupos.csv'), '\r\n');
      const failed = await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir }).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      assert.equal(failed?.code, 1);
      assert.match(failed.stdout, /^cupos\.csv: FAILED$/m);
    });

    test('the largest record set to several clients at once, half of them gone mid-stream: memory flat, nothing left open, the service unharmed', async (t) => {
      const db = await database(t, kind, fillLarge);
      await addUser(testConfig({ DATABASE_URL: db.url }), TEST_USER, TEST_PASSWORD);
      const service = await runService(t, { DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
      const pid = service.child.pid!;
      const token = await tokenFor(service.base);
      const url = `${service.base}/api/v1/descargas/current/tlcs.csv`;
      const headers = { authorization: `Bearer ${token}` };
      const manifest = (await (await fetch(`${service.base}/api/v1/descargas/current/manifest.json`, { headers })).json()) as Manifest;
      const file = manifest.archivos.find((f) => f.conjunto === 'tlcs')!;
      assert.equal(file.filas, LARGE + fixtureRecords(tlcs).length);

      const whole = async (): Promise<void> => {
        const response = await fetch(url, { headers });
        assert.equal(response.status, 200);
        const hash = createHash('sha256');
        let bytes = 0;
        const reader = response.body!.getReader();
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          hash.update(read.value);
          bytes += read.value.length;
        }
        assert.equal(bytes, file.bytes);
        assert.equal(hash.digest('hex'), file.sha256);
      };
      /** Reads the first quarter of the file, then goes away. */
      const abandoned = async (): Promise<void> => {
        const stop = new AbortController();
        const response = await fetch(url, { headers, signal: stop.signal });
        const reader = response.body!.getReader();
        for (let read = 0; read < file.bytes / 4;) {
          const { value, done } = await reader.read();
          assert.equal(done, false, 'the file ended before a quarter of it was read');
          read += value.length;
        }
        stop.abort();
        await reader.read().catch(() => undefined);
      };
      // What one download costs, once whatever it allocates the first time is allocated.
      await whole();
      const opened = kind === 'sqlite' ? () => Promise.resolve(openFiles(pid, db.url.slice('sqlite:'.length))) : await connections(t, db.url);
      const idle = await opened();
      const before = peakMemory(pid);

      const clients = 8;
      await Promise.all(Array.from({ length: clients }, (_, i) => (i % 2 === 0 ? whole() : abandoned())));
      const grown = peakMemory(pid) - before;
      t.diagnostic(`peak memory grew by ${(grown / 2 ** 20).toFixed(1)} MiB for ${clients} clients of a ${(file.bytes / 2 ** 20).toFixed(1)} MiB file`);
      // A service that held each client's whole file would grow by at least clients × bytes; the
      // quarter left is room for garbage not yet collected, which on a busy machine reached 60 MiB
      // (PostgreSQL's rows are parsed into strings faster than the collector runs while cores are taken).
      assert.ok(grown < (clients * file.bytes * 3) / 4, `the peak memory grew by ${grown} bytes for ${clients} clients of a ${file.bytes}-byte file`);

      await waitFor('what the abandoned downloads opened to be given back', async () => (await opened()) <= idle);
      const health = await fetch(`${service.base}/health`);
      assert.equal(health.status, 200);
      await health.arrayBuffer();
      await whole();
      assert.equal(service.child.exitCode, null, 'the service still runs');
    });
  });
}

/** The connections to the test's PostgreSQL database that are inside a transaction (a download reading). */
async function connections(t: TestContext, url: string): Promise<() => Promise<number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  defer(t, () => client.end());
  return async () => {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE '%transaction%'",
    );
    return rows[0]?.n ?? 0;
  };
}
