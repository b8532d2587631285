/**
 * Watch lists and their webhooks (../shared/spec/vigilancias.md), on both stores, over real HTTP with
 * real receivers on 127.0.0.1 (allowed by VIGILANCIAS_HOSTS_PERMITIDOS): the routes and their errors,
 * every refusal of an unsafe URL, deliveries verified by the `standardwebhooks` package, retries, 410,
 * events from a real load while the service runs whose `cambios` are what /api/v1/cambios answers,
 * and a service killed with deliveries pending that sends them after it starts again.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import Fastify from 'fastify';
import { Webhook } from 'standardwebhooks';
import { writeDatabase } from '../src/data/write.js';
import { openWorkDb } from '../src/store/work.js';
import type { WorkDb } from '../src/store/work.js';
import { Sender } from '../src/vigilancias/deliveries.js';
import type { Resultado } from '../src/vigilancias/deliveries.js';
import type { WebhookPolicy } from '../src/vigilancias/outbound.js';
import { checkedLookup, isPublicAddress, post, refuseUrl } from '../src/vigilancias/outbound.js';
import { Vigilancias } from '../src/vigilancias/vigilancias.js';
import { withAladi2 } from './fixtures.js';
import { defer, temporary, waitFor } from './lifetime.js';
import { storeKinds } from './stores.js';
import { database } from './databases.js';
import type { Running } from './servers.js';
import { captureLog, serve, serveFixture } from './servers.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import type { Client } from './clients.js';
import { TEST_PASSWORD, TEST_USER, clientFor } from './clients.js';
import { runService } from './process.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** The status each request is answered with (by default 204). */
  status: (n: number) => number;
}

async function receiver(t: TestContext, port = 0): Promise<Receiver> {
  const state: Receiver = { url: '', received: [], status: () => 204 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      state.received.push({ headers: req.headers, body });
      res.writeHead(state.status(state.received.length)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  defer(t, () => new Promise((resolve) => server.close(resolve)));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/avisos` });
}

const ENV = { VIGILANCIAS_HOSTS_PERMITIDOS: '127.0.0.1', VIGILANCIAS_REINTENTOS: '50ms,50ms,50ms', LOG_LEVEL: 'silent' };

/** The service in this process over a fresh database of `kind`, its clock movable (a version's day coming). */
async function service(t: TestContext, kind: 'sqlite' | 'postgres', env: Record<string, string> = {}) {
  const db = await database(t, kind);
  const clock = { now: new Date() };
  const server = await serve(t, { DATABASE_URL: db.url, ...ENV, ...env }, { app: { now: () => clock.now } });
  await addUser(server.config, 'otra', TEST_PASSWORD);
  return { db, config: server.config, clock, base: server.base, client: server.authed, other: await clientFor(server.base, 'otra') };
}

type Entregas = { items: { id: string; evento: string; estado: string; intentos: number; ultimo_codigo: number | null }[]; total: number };

for (const kind of await storeKinds()) {
  describe(`vigilancias (${kind})`, () => {
    /**
     * One service of the store for the tests that save and read watch lists and deliver nothing: at
     * most two lists per user, plain http allowed to erp.interno alone. Each test calls as users of
     * its own (made here, `name`), so that none sees or counts another's lists (serveFixture).
     */
    let saving: Running;
    serveFixture(kind, { ...ENV, VIGILANCIAS_POR_USUARIO: '2', VIGILANCIAS_HOSTS_PERMITIDOS: 'erp.interno' }, (server) => (saving = server));
    const savingAs = async (name: string): Promise<Client> => {
      await addUser(saving.config, name, TEST_PASSWORD);
      return clientFor(saving.base, name);
    };

    test('make, read, list, replace, rotate and delete; fractions normalised; errors in the contract shapes; another user gets 404; the limit', async () => {
      const client = await savingAs('guarda');
      const other = await savingAs('otra');
      const made = await client.call('POST', '/api/v1/vigilancias', {
        nombre: 'Catálogo cliente A',
        fracciones: ['0101', '8471.30.01', '84713001', '4011.10.10.01', ' 0201 10 01 '],
        conjuntos: ['tlcs', 'fracciones', 'tlcs'],
        webhook: { url: 'https://erp.example.com/aranceles/avisos' },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.deepEqual(made.body['fracciones'], ['0101', '84713001', '4011101001', '02011001']);
      assert.deepEqual(made.body['conjuntos'], ['fracciones', 'tlcs']);
      assert.match(String(made.body['secreto']), /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.equal(Buffer.from(String(made.body['secreto']).slice(6), 'base64').length, 24);
      const id = String(made.body['id']);

      const read = await client.call('GET', `/api/v1/vigilancias/${id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body['secreto'], undefined);
      assert.equal(read.body['activa'], true);
      const list = await client.call<{ items: unknown[]; total: number }>('GET', '/api/v1/vigilancias');
      assert.equal(list.body.total, 1);
      assert.equal((await other.call('GET', `/api/v1/vigilancias/${id}`)).status, 404);
      assert.equal((await other.call<{ total: number }>('GET', '/api/v1/vigilancias')).body.total, 0);
      assert.equal((await other.call('DELETE', `/api/v1/vigilancias/${id}`)).status, 404);

      const all = await client.call('PUT', `/api/v1/vigilancias/${id}`, { nombre: 'B', fracciones: ['01'], webhook: { url: 'https://erp.example.com/b' } });
      assert.equal(all.status, 200);
      assert.equal((all.body['conjuntos'] as string[]).length, 19);
      assert.equal(all.body['secreto'], undefined);
      const rotated = await client.call('POST', `/api/v1/vigilancias/${id}/secreto`);
      assert.match(String(rotated.body['secreto']), /^whsec_/);
      assert.notEqual(rotated.body['secreto'], made.body['secreto']);

      const bad = await client.call<{ detail: { type: string; loc: (string | number)[] }[] }>('POST', '/api/v1/vigilancias', {
        nombre: 'x',
        fracciones: ['1', '8471.30.01.0', 'abc'],
        conjuntos: ['nope'],
        webhook: { url: 'https://erp.example.com/' },
      });
      assert.equal(bad.status, 422);
      assert.deepEqual(
        bad.body.detail.map((d) => d.loc),
        [
          ['body', 'fracciones', 0],
          ['body', 'fracciones', 1],
          ['body', 'fracciones', 2],
          ['body', 'conjuntos', 0],
        ],
      );
      const missing = await client.call<{ detail: { type: string; loc: string[] }[] }>('POST', '/api/v1/vigilancias', { nombre: 'x', fracciones: [] });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.detail.map((d) => d.type).sort(), ['missing', 'too_short']);

      for (const nombre of ['a\r\nb', 'nul\u0000', 'tab\tname', 'del\u007f', 'c1\u0085']) {
        const bad = await client.call<{ detail: { type: string; loc: string[] }[] }>('POST', '/api/v1/vigilancias', {
          nombre,
          fracciones: ['01'],
          webhook: { url: 'https://erp.example.com/' },
        });
        assert.equal(bad.status, 422, JSON.stringify(nombre));
        assert.deepEqual(
          bad.body.detail.map((d) => [d.type, d.loc.join('.')]),
          [['string_pattern_mismatch', 'body.nombre']],
          JSON.stringify(nombre),
        );
      }
      const body = { nombre: 'x', fracciones: ['01'], webhook: { url: 'https://erp.example.com/' } };
      assert.equal((await client.call('POST', '/api/v1/vigilancias', body)).status, 201);
      assert.equal((await client.call('POST', '/api/v1/vigilancias', body)).status, 422, 'a third one is past VIGILANCIAS_POR_USUARIO=2');
      assert.equal((await client.call('DELETE', `/api/v1/vigilancias/${id}`)).status, 204);
      assert.equal((await client.call('GET', `/api/v1/vigilancias/${id}`)).status, 404);
      assert.equal((await client.call('POST', '/api/v1/vigilancias', body)).status, 201);
    });

    test('a code whose length suggests a dropped leading zero is kept as sent, with a warning in the answer that saved it', async () => {
      const client = await savingAs('ceros');
      const body = { nombre: 'x', fracciones: ['101.21.01', '0101.21.01', '84713', '0101'], webhook: { url: 'https://erp.example.com/' } };
      const made = await client.call<{ id: string; fracciones: string[]; advertencias?: { tipo: string; fraccion: string; sugerencia: string }[] }>(
        'POST',
        '/api/v1/vigilancias',
        body,
      );
      assert.equal(made.status, 201);
      assert.deepEqual(made.body.fracciones, ['1012101', '01012101', '84713', '0101']);
      assert.deepEqual(
        made.body.advertencias?.map((a) => [a.tipo, a.fraccion, a.sugerencia]),
        [
          ['cero_inicial', '1012101', '01012101'],
          ['cero_inicial', '84713', '084713'],
        ],
      );
      assert.equal((await client.call('GET', `/api/v1/vigilancias/${made.body.id}`)).body['advertencias'], undefined, 'told once, when saved');
      const replaced = await client.call('PUT', `/api/v1/vigilancias/${made.body.id}`, { ...body, fracciones: ['0101.21.01'] });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body['advertencias'], undefined, 'nothing to warn of');
      const again = await client.call<{ advertencias?: unknown[] }>('PUT', `/api/v1/vigilancias/${made.body.id}`, { ...body, fracciones: ['101'] });
      assert.equal(again.body.advertencias?.length, 1);
    });

    test('unsafe URLs are refused when saved, each with a 422', async () => {
      const client = await savingAs('urls');
      for (const url of [
        'http://erp.example.com/avisos',
        'ftp://erp.example.com/',
        'https://127.0.0.1/',
        'https://localhost/',
        'https://10.1.2.3/',
        'https://192.168.0.10/',
        'https://172.16.5.4/',
        'https://169.254.169.254/latest/meta-data/',
        'https://[::1]/',
        'https://[fd00:ec2::254]/',
        'https://[::ffff:10.0.0.1]/',
        'https://0.0.0.0/',
        'https://[::127.0.0.1]/',
        'https://[::169.254.169.254]/',
        'https://[64:ff9b::a00:1]/',
        'https://[2002:a9fe:a9fe::]/',
        'https://LOCALHOST./',
        'https://erp.example.com:8443/',
        'https://erp.example.com:80/',
        'no es una URL',
      ]) {
        const answer = await client.call<{ detail: { loc: string[]; ctx?: { code?: string } }[] }>('POST', '/api/v1/vigilancias', {
          nombre: 'x',
          fracciones: ['01'],
          webhook: { url },
        });
        assert.equal(answer.status, 422, url);
        assert.deepEqual(answer.body.detail[0]?.loc, ['body', 'webhook', 'url'], url);
        // The refusal names its code (src/error-codes.ts), which the page translates.
        assert.match(answer.body.detail[0]?.ctx?.code ?? '', /^WEBHOOK_/, url);
      }
      // A host the operator allows may be reached over plain http.
      assert.equal(
        (await client.call('POST', '/api/v1/vigilancias', { nombre: 'x', fracciones: ['01'], webhook: { url: 'http://erp.interno/a' } })).status,
        201,
      );
    });

    test('a test event is delivered signed as Standard Webhooks says; a tampered body or an old timestamp fails verification', async (t) => {
      const { client } = await service(t, kind);
      const hook = await receiver(t);
      const made = await client.call('POST', '/api/v1/vigilancias', { nombre: 'x', fracciones: ['01'], webhook: { url: hook.url } });
      const id = String(made.body['id']);
      const queued = await client.call('POST', `/api/v1/vigilancias/${id}/prueba`);
      assert.equal(queued.status, 202);
      await waitFor('the test event', () => hook.received.length === 1);
      const { headers, body } = hook.received[0]!;
      const wh = new Webhook(String(made.body['secreto']));
      const event = wh.verify(body, headers as Record<string, string>) as { type: string; data: unknown };
      assert.equal(event.type, 'tarifa.prueba');
      assert.deepEqual(event.data, {});
      assert.equal(headers['webhook-id'], queued.body['evento']);
      assert.throws(() => wh.verify(body.replace('prueba', 'cambios'), headers as Record<string, string>));
      const old = new Date(Date.now() - 10 * 60_000);
      const oldHeaders = {
        ...(headers as Record<string, string>),
        'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
        'webhook-signature': wh.sign(String(headers['webhook-id']), old, body),
      };
      assert.throws(() => wh.verify(body, oldHeaders), /timestamp/i);
      await waitFor(
        'the delivery recorded',
        async () => (await client.call<Entregas>('GET', `/api/v1/vigilancias/${id}/entregas`)).body.items[0]?.estado === 'entregada',
      );

      // Sent again on request, with the same webhook-id.
      const entrega = (await client.call<Entregas>('GET', `/api/v1/vigilancias/${id}/entregas`)).body.items[0]!;
      assert.equal((await client.call('POST', `/api/v1/vigilancias/${id}/entregas/${entrega.id}/reenviar`)).status, 202);
      await waitFor('the delivery sent again', () => hook.received.length === 2);
      assert.equal(hook.received[1]!.headers['webhook-id'], headers['webhook-id']);
    });

    test('failures are retried with the same webhook-id until a 2xx; the last failure is fallida; 410 disables the watch list', async (t) => {
      const { client } = await service(t, kind);
      const flaky = await receiver(t);
      flaky.status = (n) => (n <= 2 ? 500 : 200);
      const a = await client.call('POST', '/api/v1/vigilancias', { nombre: 'a', fracciones: ['01'], webhook: { url: flaky.url } });
      await client.call('POST', `/api/v1/vigilancias/${String(a.body['id'])}/prueba`);
      await waitFor('three attempts', () => flaky.received.length === 3);
      assert.equal(new Set(flaky.received.map((r) => r.headers['webhook-id'])).size, 1);
      await waitFor('delivered on the third attempt', async () => {
        const e = (await client.call<Entregas>('GET', `/api/v1/vigilancias/${String(a.body['id'])}/entregas`)).body.items[0];
        return e?.estado === 'entregada' && e.intentos === 3 && e.ultimo_codigo === 200;
      });

      const dead = await receiver(t);
      dead.status = () => 503;
      const b = await client.call('POST', '/api/v1/vigilancias', { nombre: 'b', fracciones: ['01'], webhook: { url: dead.url } });
      await client.call('POST', `/api/v1/vigilancias/${String(b.body['id'])}/prueba`);
      await waitFor('fallida after the last wait', async () => {
        const e = (await client.call<Entregas>('GET', `/api/v1/vigilancias/${String(b.body['id'])}/entregas`)).body.items[0];
        return e?.estado === 'fallida' && e.intentos === 4;
      });

      const gone = await receiver(t);
      gone.status = () => 410;
      const c = await client.call('POST', '/api/v1/vigilancias', { nombre: 'c', fracciones: ['01'], webhook: { url: gone.url } });
      const cid = String(c.body['id']);
      for (let i = 0; i < 3; i++) await client.call('POST', `/api/v1/vigilancias/${cid}/prueba`);
      await waitFor('the watch list disabled', async () => (await client.call('GET', `/api/v1/vigilancias/${cid}`)).body['activa'] === false);
      // What was pending when the 410 came is dropped (a delivery under way at that moment may still end in its own 410).
      await waitFor('nothing left pending', async () =>
        (await client.call<Entregas>('GET', `/api/v1/vigilancias/${cid}/entregas`)).body.items.every((e) => e.estado !== 'pendiente'),
      );
      const left = (await client.call<Entregas>('GET', `/api/v1/vigilancias/${cid}/entregas`)).body.items;
      assert.ok(left.length >= 1 && left.every((e) => e.estado === 'fallida' && e.ultimo_codigo === 410));
      assert.equal(gone.received.length, left.length, 'a dropped delivery is never sent');
      const metrics = (): Promise<string> => fetch(`${client.base}/metrics`).then((r) => r.text());
      // The attempt is counted once its outcome is recorded, just after the watch list is disabled.
      await waitFor('the 410 counted', async () => /vigilancias_intentos_total\{resultado="desactivada"\} [123]\n/.test(await metrics()));
      const text = await metrics();
      assert.match(text, /vigilancias_intentos_total\{resultado="entregada"\} 1\n/);
      assert.match(text, /vigilancias_intentos_total\{resultado="reintento"\} 5\n/);
      assert.match(text, /vigilancias_intentos_total\{resultado="fallida"\} 1\n/);
      assert.match(text, /vigilancias_entregas\{estado="entregada"\} 1\n/);
      assert.match(text, /vigilancias_entregas\{estado="pendiente"\} 0\n/);
    });

    test('a version loaded while the service runs: one event per watch list it changes, its cambios as /api/v1/cambios answers; nothing to the others; vigente when its day comes', async (t) => {
      const { db, client, clock } = await service(t, kind);
      const hook = await receiver(t);
      const watch = async (nombre: string, fracciones: string[], conjuntos?: string[]) =>
        String((await client.call('POST', '/api/v1/vigilancias', { nombre, fracciones, conjuntos, webhook: { url: hook.url } })).body['id']);
      const computers = await watch('computadoras', ['8471.30.01']);
      const horses = await watch('caballos', ['0101', '8471.30.01'], ['aladi2', 'tlcs']);
      const untouched = await watch('sin cambios', ['8471'], ['tlcs']);

      await writeDatabase(db.url, 'DOF 2020', withAladi2(2), { vigenteDesde: '2020-01-01' });
      await waitFor('two events', () => hook.received.length >= 2);
      const events = hook.received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
      const of = (id: string) => events.find((e) => e.data['vigilancia'] === id);
      for (const [id, fraccion, conjunto] of [
        [computers, '84713001', undefined],
        [horses, '0101', 'aladi2'],
      ] as const) {
        const event = of(id)!;
        assert.equal(event.type, 'tarifa.cambios');
        assert.equal(event.data['momento'], 'cargada');
        assert.equal(event.data['vigente_desde'], '2020-01-01');
        const answer = await client.call<{ items: unknown[]; desde_version: string; hasta_version: string }>(
          'GET',
          `/api/v1/cambios?desde=2019-12-31&hasta=2020-01-01&fraccion=${fraccion}${conjunto ? `&conjunto=${conjunto}` : ''}&limit=1000`,
        );
        assert.equal(event.data['version_anterior'], answer.body.desde_version);
        assert.equal(event.data['version_nueva'], answer.body.hasta_version);
        const cambios = event.data['cambios'] as { fraccion: string }[];
        const expected =
          id === horses
            ? [
                ...answer.body.items,
                ...(await client.call<{ items: unknown[] }>('GET', `/api/v1/cambios?desde=2019-12-31&hasta=2020-01-01&fraccion=84713001&conjunto=aladi2`)).body
                  .items,
              ]
            : answer.body.items;
        assert.ok(expected.length > 0);
        assert.deepEqual(
          [...cambios].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
          [...expected].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
        );
        assert.equal((event.data['resumen'] as { bajas: number }).bajas, expected.length);
      }
      assert.equal(of(untouched), undefined);

      await writeDatabase(db.url, 'DOF 2099', withAladi2(1), { vigenteDesde: '2099-01-01' });
      // It removes one more horse record: only the watch list with 0101 is told.
      await waitFor('the event of the version loaded ahead', () => hook.received.length >= 3);
      const ahead = JSON.parse(hook.received[2]!.body) as { data: Record<string, unknown> };
      assert.equal(ahead.data['momento'], 'cargada');
      assert.equal(ahead.data['vigilancia'], horses);
      clock.now = new Date('2099-01-01T12:00:00Z');
      await waitFor('the event of its day', () => hook.received.length >= 4);
      const current = JSON.parse(hook.received[3]!.body) as { data: Record<string, unknown> };
      assert.equal(current.data['momento'], 'vigente');
      assert.equal(current.data['vigilancia'], horses);
      assert.equal(current.data['version_nueva'], ahead.data['version_nueva']);
      assert.deepEqual(current.data['cambios'], ahead.data['cambios']);
      assert.equal(hook.received.length, 4);
    });
  });

  test(`kill -9 with deliveries pending: they are sent after the next start (${kind})`, async (t) => {
    const db = await database(t, kind);
    const env = { DATABASE_URL: db.url, ...ENV, VIGILANCIAS_REINTENTOS: '500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms' };
    await addUser(testConfig(env), TEST_USER, TEST_PASSWORD);
    const hook = await receiver(t);
    hook.status = () => 500;
    const first = await runService(t, env);
    const client = await clientFor(first.base);
    const made = await client.call('POST', '/api/v1/vigilancias', { nombre: 'x', fracciones: ['01'], webhook: { url: hook.url } });
    for (let i = 0; i < 3; i++) await client.call('POST', `/api/v1/vigilancias/${String(made.body['id'])}/prueba`);
    await waitFor('attempts that fail', () => hook.received.length >= 3);
    first.child.kill('SIGKILL');
    await first.exited;
    hook.status = () => 200;
    const failedIds = new Set(hook.received.map((r) => r.headers['webhook-id']));
    // The next start, over the same database: the service in this process (the killed one was another
    // process, whose leases are taken back as any other's), not a second process, about a CPU-second.
    const second = await serve(t, env, { user: false });
    const again = await clientFor(second.base);
    await waitFor(
      'every pending delivery sent',
      async () => {
        const items = (await again.call<Entregas>('GET', `/api/v1/vigilancias/${String(made.body['id'])}/entregas`)).body.items;
        return items.length === 3 && items.every((e) => e.estado === 'entregada');
      },
      60_000,
    );
    assert.equal(failedIds.size, 3);
    for (const id of failedIds) assert.ok(hook.received.filter((r) => r.headers['webhook-id'] === id).length >= 2, `${String(id)} sent again`);
  });
}

/**
 * The working store as `db` is, except that the first transaction writing an attempt's outcome fails
 * as a lost connection would, after its statement: the transaction is rolled back.
 */
function failingOnce(db: WorkDb): WorkDb & { failures: number } {
  const wrapped: WorkDb & { failures: number } = {
    kind: db.kind,
    dialect: db.dialect,
    types: db.types,
    lockRows: db.lockRows,
    failures: 0,
    bool: (value) => db.bool(value),
    run: (text, values) => db.run(text, values),
    all: <T>(text: string, values?: readonly unknown[]) => db.all<T>(text, values),
    ensure: (ddl) => db.ensure(ddl),
    close: () => db.close(),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          ...tx,
          run: async (text, values) => {
            const changed = await tx.run(text, values);
            if (wrapped.failures === 0 && /^UPDATE "vigilancias_entregas" SET "estado"/.test(text)) {
              wrapped.failures++;
              throw new Error('Connection terminated unexpectedly');
            }
            return changed;
          },
        }),
      ),
  };
  return wrapped;
}

describe('the sender', () => {
  test('an outcome the store fails to take is written again at once: delivered once, not sent again when the lease runs out', async (t) => {
    const hook = await receiver(t);
    const work = openWorkDb(testConfig({ DATABASE_URL: `sqlite:${temporary(t)}/tarifa.sqlite` }));
    const db = failingOnce(work);
    const results: Resultado[] = [];
    const log = captureLog();
    const sender = new Sender(db, {
      waits: [60_000],
      policy: policyOf(['127.0.0.1']),
      concurrency: 4,
      log: Fastify({ logger: { level: 'warn', stream: log.stream } }).log,
      attempted: (resultado) => results.push(resultado),
    });
    const vigilancias = new Vigilancias(db, () => sender.wake());
    defer(t, async () => {
      await sender.close();
      await work.close();
    });
    const made = await vigilancias.create(TEST_USER, TEST_USER, { nombre: 'x', fracciones: ['01'], conjuntos: [], url: hook.url }, 10);
    assert.ok('vigilancia' in made);
    sender.start();
    const queued = await vigilancias.test(TEST_USER, made.vigilancia.id);
    await waitFor('the outcome recorded', async () => (await vigilancias.deliveries(TEST_USER, made.vigilancia.id, 0, 10))?.items[0]?.estado === 'entregada');
    const [delivery] = (await vigilancias.deliveries(TEST_USER, made.vigilancia.id, 0, 10))!.items;
    assert.equal(db.failures, 1, 'the first write of the outcome failed');
    assert.equal(delivery?.id, queued?.id);
    assert.equal(delivery?.intentos, 1);
    assert.equal(hook.received.length, 1);
    assert.deepEqual(results, ['entregada']);
    assert.match(log.text(), /could not be recorded; trying again/);
  });
});

/** A webhook policy: hosts the operator trusts, and the ports open to others (443 by default). */
const policyOf = (hosts: readonly string[] = [], ports: readonly number[] = [443]): WebhookPolicy => ({ hosts: new Set(hosts), ports: new Set(ports) });

describe('outbound requests never reach a non-public address unless allowed', () => {
  test('the address check: global unicast only (ipaddr.js ranges, IPv6 inside 2000::/3, no IPv4 carried in IPv6)', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '192.0.2.1',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:8.8.8.8',
      '::127.0.0.1',
      '::169.254.169.254',
      '::8.8.8.8',
      '64:ff9b::10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::',
      '2001::1',
      '2001:db8::1',
      '100::1',
      'ff02::1',
      '224.0.0.1',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['8.8.8.8', '2001:4860:4860::8888', '2606:4700::1111']) assert.equal(isPublicAddress(a), true, a);
  });

  test('at each attempt: the name is resolved through the checked lookup, and an address literal is checked before connecting', async (t) => {
    const hook = await receiver(t);
    const port = Number(new URL(hook.url).port);
    // `localhost` resolves to loopback: the lookup the request connects through refuses it (a name that rebinds is refused the same way), without saying where it points.
    const refused = await new Promise<Error | null>((resolve) => checkedLookup('localhost', { all: false }, (error) => resolve(error)));
    assert.equal(String(refused?.message), 'localhost does not resolve to public addresses only');
    assert.deepEqual(await post(`http://127.0.0.1:${port}/`, {}, '{}', policyOf(), 5000), {
      error: 'the URL must be https (plain http only to a host listed in VIGILANCIAS_HOSTS_PERMITIDOS)',
    });
    assert.deepEqual(await post(`https://127.0.0.1:${port}/`, {}, '{}', policyOf([], [port]), 5000), { error: '127.0.0.1 is not a public address' });
    assert.deepEqual(await post(`https://[::127.0.0.1]:${port}/`, {}, '{}', policyOf([], [port]), 5000), { error: '::7f00:1 is not a public address' });
    assert.deepEqual(await post(`https://8.8.8.8:${port}/`, {}, '{}', policyOf(), 5000), {
      error: `port ${port} is not allowed (443 only, as VIGILANCIAS_PUERTOS_PERMITIDOS says)`,
    });
    const viaName = await post(`https://LOCALHOST.:${port}/`, {}, '{}', policyOf([], [port]), 5000);
    assert.deepEqual(viaName, { error: 'localhost is not a public host' });
    const viaSubName = await post(`https://vm.localhost.:${port}/`, {}, '{}', policyOf([], [port]), 5000);
    assert.deepEqual(viaSubName, { error: 'vm.localhost is not a public host' });
    assert.equal(hook.received.length, 0, 'no request reached the receiver');
    // Allowed, it is reached on any port; a redirect is an answer like any other, never followed.
    hook.status = () => 302;
    assert.deepEqual(await post(hook.url, {}, '{}', policyOf(['127.0.0.1']), 5000), { status: 302 });
    assert.equal(hook.received.length, 1);
    assert.deepEqual(await refuseUrl('https://localhost/', policyOf()), { code: 'WEBHOOK_LOCAL_HOST', params: { host: 'localhost' } });
    assert.equal(await refuseUrl('https://localhost/', policyOf(['localhost'])), undefined);
    assert.equal(await refuseUrl('https://LOCALHOST./', policyOf(['localhost'])), undefined);
    // The operator may open other ports.
    assert.equal(await refuseUrl('https://8.8.8.8:8443/', policyOf([], [443, 8443])), undefined);
    assert.deepEqual(await refuseUrl('https://8.8.8.8:8444/', policyOf([], [443, 8443])), { code: 'WEBHOOK_PORT', params: { port: 8444, ports: '443, 8443' } });
  });

  test("a connection that fails is told in the service's words, never with the address the name resolved to", async () => {
    // Nothing listens on port 9 of loopback: the system's message would name 127.0.0.1:9.
    const outcome = await post('https://127.0.0.1:9/', {}, '{}', policyOf(['127.0.0.1']), 5000);
    assert.deepEqual(outcome, { error: 'ECONNREFUSED: the receiver refused the connection' });
  });
});
