/**
 * What only the PostgreSQL store has: its configuration, its faults (down, unreachable, too slow, and
 * back again), read-only service connections, the loader's all-or-nothing switch, several copies of
 * the service on one database, and the password of the connection string kept out of every message.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { ConfigError, postgresSettings, redactDatabaseUrl, storeKind } from '../src/config-values.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { openStore, startBuild, withUserAdmin } from '../src/store/drivers.js';
import { writeDatabase } from '../src/data/write.js';
import { Connection, NAMED_MAX, createPostgresPool, ensurePostgresSchema, poolSize, postgresPoolConfig, storeError } from '../src/store/postgres-connection.js';
import { StoreUnavailableError } from '../src/store/store.js';
import type { FullTextQuery } from '../src/store/fulltext.js';
import { PostgresFullText } from '../src/store/postgres-fulltext.js';
import { openWorkDb } from '../src/store/work.js';
import { fillFixture, fixtureRecords } from './fixtures.js';
import type { TestDatabase } from './databases.js';
import { database } from './databases.js';
import type { Running } from './servers.js';
import { defer, waitFor } from './lifetime.js';
import { createPostgresDatabase, storeKinds } from './stores.js';
import { serve, serveFixture, startServer } from './servers.js';
import { TEST_ENV, TEST_SECRET } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, login } from './clients.js';

const SECRET_PASSWORD = 'hunter2-do-not-show';
const UNREACHABLE = `postgres://tariff:${SECRET_PASSWORD}@127.0.0.1:1/nowhere`;
const key = new TextEncoder().encode(TEST_SECRET);
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A token the service accepts by its signature, without logging in (which needs the database). */
const signedToken = (): Promise<string> =>
  new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(TEST_USER).setIssuedAt().setExpirationTime('10m').setJti('t').sign(key);

async function status(server: Running, path: string, headers: Record<string, string> = bearer(server.token)): Promise<number> {
  const response = await server.get(path, headers);
  await response.arrayBuffer();
  return response.status;
}

describe('PostgreSQL configuration', () => {
  test('DATABASE_URL postgres:// or postgresql:// selects PostgreSQL; sqlite: or nothing SQLite', () => {
    assert.equal(storeKind(loadConfig({ DATABASE_URL: 'postgres://u@h/d' })), 'postgres');
    assert.equal(storeKind(loadConfig({ DATABASE_URL: 'postgresql://u@h/d' })), 'postgres');
    assert.equal(storeKind(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.sqlite' })), 'sqlite');
    assert.equal(storeKind(loadConfig({})), 'sqlite');
  });

  test('the URL is taken apart as libpq does, and merged with the PG_* variables', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://reader:p%40ss%2Fword@db.example:6543/tariff?sslmode=require&application_name=copy-1&options=-c%20search_path%3Dtariff',
      PG_SSL: 'verify-full',
    });
    const s = postgresSettings(config);
    assert.deepEqual(
      [s.host, s.port, s.database, s.user, s.password, s.tls, s.applicationName, s.options],
      ['db.example', 6543, 'tariff', 'reader', 'p@ss/word', 'verify-full', 'copy-1', '-c search_path=tariff'],
    );
    assert.ok(!s.shown.includes('p%40ss') && s.shown.includes('***'));
    const local = postgresSettings(loadConfig({ DATABASE_URL: 'postgresql://[::1]/tariff?host=/var/run/postgresql' }));
    assert.deepEqual([local.host, local.port, local.user, local.password, local.tls], ['/var/run/postgresql', 5432, undefined, undefined, 'disable']);
    assert.equal(postgresSettings(loadConfig({ DATABASE_URL: 'postgres://u@h/d?sslmode=verify-ca', PG_SSL: 'require' })).tls, 'verify-ca');
  });

  test('service connections are read-only, time-limited and pooled; admin connections are not', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:pw@h/d?options=-c%20default_transaction_read_only%3Doff', PG_STATEMENT_TIMEOUT_MS: '1500' });
    const service = postgresPoolConfig(config, 'service');
    // Last wins: the URL cannot turn read-only off. Generic plans keep the search on its GIN index (docs/buscar.md).
    assert.equal(service.options, '-c default_transaction_read_only=off -c default_transaction_read_only=on -c plan_cache_mode=force_generic_plan');
    assert.equal(service.statement_timeout, 1500);
    assert.equal(service.max, poolSize(config));
    assert.ok(poolSize(config) >= 4 && poolSize(config) <= 20);
    assert.equal(poolSize(loadConfig({ DATABASE_URL: 'postgres://h/d', PG_POOL_SIZE: '7' })), 7);
    const admin = postgresPoolConfig(config, 'admin');
    assert.equal(admin.options, '-c default_transaction_read_only=off');
    assert.equal(admin.statement_timeout, undefined);
  });

  test('a bad value is one clear error that never shows the password', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ DATABASE_URL: `mysql://u:${SECRET_PASSWORD}@h/d` }, /DATABASE_URL/],
      [{ DATABASE_URL: `postgres://u:${SECRET_PASSWORD}@h/d?connect_timeout=3` }, /connect_timeout is not supported/],
      [{ DATABASE_URL: `postgres://u:${SECRET_PASSWORD}@h/d?sslmode=prefer` }, /sslmode must be one of/],
      [{ DATABASE_URL: `postgres://u:${SECRET_PASSWORD}@h/d?password=${SECRET_PASSWORD}` }, /password is not supported/],
      [{ DATABASE_URL: `postgres://u:${SECRET_PASSWORD}@h:99999/d` }, /DATABASE_URL/],
      [{ DATABASE_URL: 'postgres://h/d', PG_SSL: 'prefer' }, /PG_SSL/],
      [{ DATABASE_URL: 'postgres://h/d', PG_STATEMENT_TIMEOUT_MS: '0' }, /PG_STATEMENT_TIMEOUT_MS/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && message.test(error.message) && !error.message.includes(SECRET_PASSWORD),
        JSON.stringify(env).replace(SECRET_PASSWORD, '…'),
      );
    }
    assert.equal(redactDatabaseUrl(`postgres://u:${SECRET_PASSWORD}@h/d`), 'postgres://u:***@h/d');
    assert.equal(redactDatabaseUrl('sqlite:/data/tariff.sqlite'), 'sqlite:/data/tariff.sqlite');
  });
});

describe('PostgreSQL errors', () => {
  const shown = redactDatabaseUrl(UNREACHABLE);

  test('a statement timeout, a lost connection or a missing table is "unavailable"; a wrong query is not', () => {
    const serverError = (code: string): pg.DatabaseError => Object.assign(new pg.DatabaseError('server says no', 0, 'error'), { code });
    for (const code of ['57014', '57P01', '08006', '53300', '28P01', '3D000', '42P01', '40001']) {
      const mapped = storeError(serverError(code), shown);
      assert.ok(mapped instanceof StoreUnavailableError, code);
      assert.match(mapped.message, new RegExp(code));
    }
    const syntax = serverError('42601');
    assert.equal(storeError(syntax, shown), syntax);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const mapped = storeError(refused, shown);
    assert.ok(mapped instanceof StoreUnavailableError);
    assert.ok(!mapped.message.includes(SECRET_PASSWORD) && mapped.message.includes('127.0.0.1:1'));
  });
});

describe('PostgreSQL unreachable', () => {
  let server: Running;

  before(async () => {
    server = await startServer({ DATABASE_URL: UNREACHABLE, PG_CONNECT_TIMEOUT_MS: '1000' }, { user: false });
  });

  after(() => server.close());

  test('business endpoints answer 503 in the contract shape, /health 503 naming the database', async () => {
    const token = await signedToken();
    for (const path of ['/api/v1/aladi2/', '/api/v1/fracciones/?fraccion=0101', '/api/v1/tlcs/5/01012101', '/api/v1/auth/me']) {
      const response = await server.get(path, bearer(token));
      assert.equal(response.status, 503, path);
      assert.deepEqual(await response.json(), { detail: 'Service Unavailable' });
    }
    const health = await server.get('/health');
    assert.equal(health.status, 503);
    assert.deepEqual(await health.json(), { status: 'unhealthy', database: 'unavailable', dataset: null });
    assert.equal((await login(server.base, TEST_USER, TEST_PASSWORD)).status, 503);
  });

  test('the store error names the database without its password', async (t) => {
    const store = openStore(loadConfig({ DATABASE_URL: UNREACHABLE, PG_CONNECT_TIMEOUT_MS: '1000' }));
    defer(t, () => store.close());
    const error = await store.search(recordSets[0]!, { conditions: [], skip: 0, limit: 1 }).catch((e: unknown) => e);
    assert.ok(error instanceof StoreUnavailableError);
    const everything = `${String(error)} ${error.stack ?? ''} ${JSON.stringify(error)}`;
    assert.ok(!everything.includes(SECRET_PASSWORD), everything);
    assert.match(error.message, /postgres:\/\/tariff:\*\*\*@127\.0\.0\.1:1\/nowhere/);
  });

  test('the service logs never show the password', async (t) => {
    const server = fileURLToPath(new URL('../src/server.js', import.meta.url));
    const child = spawn(process.execPath, [server], {
      env: { ...process.env, ...TEST_ENV, DATABASE_URL: UNREACHABLE, PORT: '0', LOG_LEVEL: 'debug', PG_CONNECT_TIMEOUT_MS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let output = '';
    const listening = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        const url = /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(output)?.[1];
        if (url) resolve(url);
      });
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('exit', () => reject(new Error(`the service exited: ${output}`)));
    });
    const stop = async (): Promise<void> => {
      child.kill('SIGTERM');
      await exited;
    };
    defer(t, stop);
    const base = await listening;
    const token = await signedToken();
    for (const path of ['/health', '/api/v1/aladi2/']) await (await fetch(base + path, { headers: bearer(token) })).arrayBuffer();
    await (await login(base, TEST_USER, 'x')).arrayBuffer();
    // Stopped before its output is read, so that every line is written.
    await stop();
    assert.match(output, /cannot answer/, 'the failures are logged');
    assert.ok(!output.includes(SECRET_PASSWORD), 'the password is not in the log');
  });
});

/** A TCP relay to the PostgreSQL server that a test can cut and restore, as if the database went away and came back. */
class Relay {
  private server: Server | undefined;
  /** The sockets the relay accepted: its end of each client's connection (each upstream closes with its client). */
  private readonly clients = new Set<Socket>();
  port = 0;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.host);
      for (const s of [client, upstream]) s.on('error', () => s.destroy());
      this.clients.add(client);
      client.on('close', () => this.clients.delete(client));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    this.port = address.port;
    this.server = server;
  }

  /**
   * Cuts every connection as a lost server would, and resolves once each client has seen it: each is
   * sent the end of its stream, and a client closes its own end in turn only when its socket has
   * handled that end (Node's sockets answer an end with theirs, after the 'end' event). Then stops.
   */
  async cut(): Promise<void> {
    const clients = [...this.clients];
    const answered = clients.map((client) => new Promise((resolve) => client.once('close', resolve)));
    for (const client of clients) client.end();
    await Promise.all(answered);
    await this.stop();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const client of this.clients) client.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

const kinds = await storeKinds();

if (kinds.includes('postgres')) {
  describe('PostgreSQL store', () => {
    let db: TestDatabase;
    let server: Running;
    // No answer cache: these tests change the data under the service and must see every change.
    serveFixture('postgres', { RESPONSE_CACHE_ENTRIES: '0', AUTH_USER_CACHE_SECONDS: '0' }, (running, made) => {
      server = running;
      db = made;
    });

    test('service connections cannot change data, and run with the statement timeout', async (t) => {
      const pool = createPostgresPool(loadConfig({ DATABASE_URL: db.url, PG_STATEMENT_TIMEOUT_MS: '2500' }), 'service');
      defer(t, () => pool.end());
      const settings = await pool.query<{ ro: string; timeout: string }>(
        "SELECT current_setting('default_transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout",
      );
      assert.deepEqual(settings.rows[0], { ro: 'on', timeout: '2500ms' });
      for (const sql of ['DELETE FROM "users"', 'UPDATE "aladi2" SET "NOTAS" = NULL', 'CREATE TABLE "x" ("a" INTEGER)', 'DROP TABLE "aladi2"']) {
        await assert.rejects(pool.query(sql), (error: unknown) => error instanceof pg.DatabaseError && error.code === '25006', sql);
      }
    });

    test('searches asked at once before the first is answered read the search tables once, and agree', async (t) => {
      // A load of its own (written now, not copied): another store of this process serving the same
      // load would hand its search structures over and read nothing (shared-search.ts).
      const own = await database(t, 'postgres', (writer) => fillFixture(writer));
      const pool = createPostgresPool(loadConfig({ DATABASE_URL: own.url }), 'service');
      defer(t, () => pool.end());
      const reads: string[] = [];
      const text = new PostgresFullText(async <T extends pg.QueryResultRow>(sql: string, values?: readonly unknown[]) => {
        // The vocabulary's terms, and the posting lists the load stored (buscar/postings.ts: their row, then its documents in pieces).
        if (sql.includes('"buscar_terminos"') || sql.includes('"CODIGOS"')) reads.push(sql);
        return (await pool.query<T>(sql, values as unknown[])).rows;
      });
      const query = (q: string): FullTextQuery => ({ text: q, code: null, skip: 0, limit: 5 });
      // A batch's thread asks two searches at once, a service lookups: each once built its own copy of the vocabulary.
      const [first, second, third] = await Promise.all([text.search(query('café')), text.search(query('cafe')), text.reading(query('niño'))]);
      assert.equal(reads.length, 2, reads.join('\n'));
      assert.ok(first.hits.length > 0);
      assert.deepEqual(second, first);
      assert.equal(third, await text.reading(query('niño')));
      assert.equal(reads.length, 2);
    });

    test('the B-tree indexes serve exact, prefix and case-insensitive filters', async (t) => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      defer(t, () => client.end());
      await client.query('SET enable_seqscan = off');
      const plans: [string, unknown[]][] = [
        ['SELECT * FROM "fracciones" WHERE ("FRACCION" >= $1 AND "FRACCION" < $2)', ['0101', '0102']],
        ['SELECT * FROM "fracciones_usa" WHERE ("FRACCION_SIN_PUNTO" >= $1 AND "FRACCION_SIN_PUNTO" < $2)', ['0101', '0102']],
        ['SELECT * FROM "tlcs" WHERE UPPER("PAIS") = $1', ['USA']],
        ['SELECT * FROM "ieps" WHERE ("FRACCION_CON_PUNTO" >= $1 AND "FRACCION_CON_PUNTO" < $2)', ['8471.3', '8471.4']],
      ];
      for (const [text, values] of plans) {
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(plan, /Index|Bitmap/, `${text}\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan/, `${text}\n${plan}`);
      }
    });

    test('a query past the statement timeout is a 503, and the next one is answered', async (t) => {
      const quick = await serve(t, { DATABASE_URL: db.url, PG_STATEMENT_TIMEOUT_MS: '300', RESPONSE_CACHE_ENTRIES: '0' });
      const locker = new pg.Client({ connectionString: db.url });
      await locker.connect();
      defer(t, () => locker.end());
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "aladi2" IN ACCESS EXCLUSIVE MODE');
      // Answered while the table is still locked: the statement was cancelled, not left waiting.
      const response = await fetch(`${quick.base}/api/v1/aladi2/`, { headers: bearer(quick.token), signal: AbortSignal.timeout(60_000) });
      assert.equal(response.status, 503);
      assert.deepEqual(await response.json(), { detail: 'Service Unavailable' });
      await locker.query('ROLLBACK');
      assert.equal(await status(quick, '/api/v1/aladi2/'), 200);
    });

    test('a real statement timeout (SQLSTATE 57014) maps to StoreUnavailableError', async (t) => {
      const client = new pg.Client({ connectionString: db.url, statement_timeout: 1 });
      await client.connect();
      defer(t, () => client.end());
      const error = await client.query('SELECT pg_sleep(1)').catch((e: unknown) => e);
      assert.ok(error instanceof pg.DatabaseError && error.code === '57014');
      assert.ok(storeError(error, 'db') instanceof StoreUnavailableError);
    });

    test('the service recovers by itself when the database comes back', async (t) => {
      const target = new URL(db.url);
      const relay = new Relay(target.hostname, Number(target.port || 5432));
      await relay.start();
      const viaRelay = new URL(db.url);
      viaRelay.host = `127.0.0.1:${relay.port}`;
      const copy = await startServer({ DATABASE_URL: viaRelay.toString(), PG_CONNECT_TIMEOUT_MS: '1000', RESPONSE_CACHE_ENTRIES: '0' });
      defer(t, () => relay.stop());
      defer(t, () => copy.close());
      assert.equal(await status(copy, '/api/v1/aladi2/'), 200);
      await relay.stop();
      assert.equal(await status(copy, '/api/v1/aladi2/'), 503);
      assert.equal(await status(copy, '/health', {}), 503);
      await relay.start();
      assert.equal(await status(copy, '/api/v1/aladi2/'), 200);
      assert.equal(await status(copy, '/health', {}), 200);
    });

    test('a connection cut in the middle of a transaction fails that transaction, never the process', async (t) => {
      const target = new URL(db.url);
      const relay = new Relay(target.hostname, Number(target.port || 5432));
      await relay.start();
      defer(t, () => relay.stop());
      const viaRelay = new URL(db.url);
      viaRelay.host = `127.0.0.1:${relay.port}`;
      const work = openWorkDb(loadConfig({ DATABASE_URL: viaRelay.toString(), PG_CONNECT_TIMEOUT_MS: '1000' }));
      defer(t, () => work.close());
      const uncaught: unknown[] = [];
      const record = (error: unknown): void => void uncaught.push(error);
      process.on('uncaughtException', record);
      defer(t, () => void process.off('uncaughtException', record));
      let release!: () => void;
      const holding = new Promise<void>((resolve) => (release = resolve));
      let begun = false;
      const failed = work.transaction(async (tx) => {
        await tx.run('SELECT 1');
        begun = true;
        await holding;
        return tx.run('SELECT 1');
      });
      // Its failure is asserted below; a failure before then is the test's, not an unhandled rejection.
      failed.catch(() => undefined);
      // Cut once the transaction has begun and holds its connection, not while that connection opens.
      await waitFor('the transaction to hold a connection', () => begun);
      // The cut reaches the idle, checked-out connection before its next query (with this fix
      // nothing happens then; without it the event would end the process here).
      await relay.cut();
      release();
      await assert.rejects(failed, StoreUnavailableError);
      assert.deepEqual(uncaught, []);
      await relay.start();
      assert.equal(await work.run('SELECT 1'), 1, 'the next transaction opens a new connection');
    });

    test('a connection keeps a bounded number of prepared statements, however many texts it is sent', async (t) => {
      const connection = new Connection(loadConfig({ DATABASE_URL: db.url, PG_POOL_SIZE: '1' }), 'service');
      defer(t, () => connection.close());
      const prepared = async (): Promise<number> =>
        Number((await connection.query<{ n: string }>('SELECT COUNT(*) AS n FROM pg_prepared_statements')).rows[0]!.n);
      // Each text twice: the second use is the one that names it, while names are left.
      for (let i = 0; i < NAMED_MAX + 200; i++) {
        for (let use = 0; use < 2; use++) assert.equal((await connection.query<{ v: number }>(`SELECT $1::int + ${i} AS v`, [1])).rows[0]!.v, 1 + i);
      }
      const count = await prepared();
      assert.ok(count <= NAMED_MAX + 1, `${count} prepared statements`);
      assert.ok(count >= NAMED_MAX, `${count}: texts used twice are prepared while names are left`);
      // A text used once is sent unnamed.
      await connection.query('SELECT 41 + 1 AS once');
      assert.equal(await prepared(), count);
    });

    test("two copies of the service on one database accept each other's tokens and see the same users", async (t) => {
      const other = await serve(t, { DATABASE_URL: db.url, AUTH_USER_CACHE_SECONDS: '0' });
      await addUser(other.config, 'shared', 'shared password');
      const issued = await login(server.base, 'shared', 'shared password');
      assert.equal(issued.status, 200);
      const { access_token: token } = (await issued.json()) as { access_token: string };
      const me = await other.get('/api/v1/auth/me', bearer(token));
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { username: string }).username, 'shared');
      assert.equal(await status(other, '/api/v1/aladi2/', bearer(token)), 200);
      await withUserAdmin(server.config, (admin) => admin.setDisabled('shared', true));
      assert.equal(await status(server, '/api/v1/aladi2/', bearer(token)), 401);
      assert.equal(await status(other, '/api/v1/aladi2/', bearer(token)), 401);
    });

    test('a load replaces the dataset at commit: readers see the old one until then, users stay', async () => {
      const aladi2 = recordSets.find((rs) => rs.path === 'aladi2')!;
      const before = (await server.json<{ dataset: { hash: string } }>('/health')).body.dataset.hash;
      const build = await startBuild(loadConfig({ DATABASE_URL: db.url }));
      try {
        const [first] = fixtureRecords(aladi2);
        assert.ok(build.insert(aladi2, recordToRow(aladi2, first!)));
        assert.equal(build.insert(aladi2, recordToRow(aladi2, first!)), false, 'a second row with one identifier is refused');
        await build.ready();
        assert.equal((await server.json<unknown[]>('/api/v1/aladi2/')).body.length, 8, 'the dataset in the main store is untouched meanwhile');
        const info = await build.commit('one row');
        assert.equal(info.counts['aladi2'], 1);
        assert.equal(info.counts['tlcs'], 0);
      } catch (error) {
        await build.abandon();
        throw error;
      }
      assert.equal((await server.json<unknown[]>('/api/v1/aladi2/')).body.length, 1);
      const health = (await server.json<{ dataset: { source: string; hash: string } }>('/health')).body.dataset;
      assert.equal(health.source, 'one row');
      assert.notEqual(health.hash, before);
      assert.equal(await status(server, '/api/v1/auth/me'), 200, 'the users were kept');
      await writeDatabase(db.url, 'test fixture', fillFixture);
      assert.equal((await server.json<{ dataset: { hash: string } }>('/health')).body.dataset.hash, before, 'the same data, the same hash');
    });

    test('a failed or abandoned load changes nothing, and one load runs at a time', async (t) => {
      const served = (await server.json<{ dataset: unknown }>('/health')).body.dataset;
      await assert.rejects(
        writeDatabase(db.url, 'broken', (writer) => {
          fillFixture(writer);
          throw new Error('the source broke off');
        }),
        /the source broke off/,
      );
      await assert.rejects(
        writeDatabase(db.url, 'duplicate', (writer) => {
          fillFixture(writer);
          fillFixture(writer);
        }),
        /a second record with the identifier/,
      );
      const running = await startBuild(loadConfig({ DATABASE_URL: db.url }));
      await assert.rejects(startBuild(loadConfig({ DATABASE_URL: db.url })), /another import/);
      await running.abandon();
      assert.deepEqual((await server.json<{ dataset: unknown }>('/health')).body.dataset, served);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      defer(t, () => client.end());
      const staging = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'tariff_lookup_loading'");
      assert.equal(staging.rowCount, 0, 'no staging schema is left behind');
    });

    test('a load keeps the grants of the tables it replaces, and the record sets asked to be kept', async (t) => {
      const role = `tariff_reader_${Date.now()}`;
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      defer(t, async () => {
        await client.query(`DROP OWNED BY "${role}"`).catch(() => undefined);
        await client.query(`DROP ROLE IF EXISTS "${role}"`).catch(() => undefined);
        await client.end();
      });
      await client.query(`CREATE ROLE "${role}"`);
      await client.query(`GRANT SELECT ON "aladi2", "tlcs" TO "${role}"`);
      const tlcs = recordSets.find((rs) => rs.path === 'tlcs')!;
      const info = await writeDatabase(
        db.url,
        'partial',
        (writer) => {
          for (const rs of recordSets) if (rs !== tlcs) for (const r of fixtureRecords(rs)) writer.insert(rs, recordToRow(rs, r));
        },
        { keep: [tlcs] },
      );
      assert.equal(info.counts['tlcs'], 8, 'tlcs kept as it was');
      const privileges = await client.query<{ aladi2: boolean; tlcs: boolean; cupos: boolean }>(
        `SELECT has_table_privilege($1, 'aladi2', 'SELECT') AS aladi2, has_table_privilege($1, 'tlcs', 'SELECT') AS tlcs,
                has_table_privilege($1, 'cupos', 'SELECT') AS cupos`,
        [role],
      );
      assert.deepEqual(privileges.rows[0], { aladi2: true, tlcs: true, cupos: false });
    });
  });

  describe('PostgreSQL schema', () => {
    test('a new database gets its tables from the user administration or ensurePostgresSchema, and serves nothing until loaded', async (t) => {
      const db = await createPostgresDatabase();
      defer(t, () => db.drop());
      const config = loadConfig({ DATABASE_URL: db.url });
      const empty = await serve(t, { DATABASE_URL: db.url }, { user: false });
      assert.equal(await status(empty, '/health', {}), 503, 'no tables: the database cannot answer');
      const pool = createPostgresPool(config, 'admin');
      defer(t, () => pool.end());
      await ensurePostgresSchema(pool);
      await ensurePostgresSchema(pool);
      await addUser(config, TEST_USER, TEST_PASSWORD);
      const running = await serve(t, { DATABASE_URL: db.url });
      const health = await running.json<{ dataset: unknown }>('/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.dataset, null);
      assert.deepEqual((await running.json('/api/v1/aladi2/')).body, []);
    });
  });
}
