/**
 * The MCP server (../shared/spec/mcp.md) through the SDK's own client, over Streamable HTTP against a
 * started server (both stores) and over standard input/output against `tariff-lookup mcp` spawned as
 * an assistant starts it: every tool's structured answer is the REST answer for the same input and
 * version, on many inputs; a REST 4xx is a tool error with its detail; arguments the schema refuses
 * name their field; an unknown tool is named; the fraction resource; 401 without a token; no session.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FUENTE_2022 } from '../src/data/demo/index.js';
import { writeDatabase } from '../src/data/write.js';
import { MCP_MAX_ANSWER_BYTES, budgeted } from '../src/http/mcp.js';
import { fillContribuciones } from './contribuciones-fixture.js';
import { fillFixture } from './fixtures.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { defer } from './lifetime.js';
import { storeKinds } from './stores.js';
import { createTestDatabase, database } from './databases.js';
import { serve, serveWithLog, startServer } from './servers.js';
import { TEST_ENV } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, clientWith, tokenFor } from './clients.js';
import { cliInProcess } from './commands.js';

const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** The older version (the fixture) is in force until this date; the contributions records from it on. */
const SECOND_VERSION = '2020-01-01';

/** A database with two versions: the table-driven fixture since always, the contributions records from SECOND_VERSION. */
async function twoVersions(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  const db = await createTestDatabase(kind);
  await writeDatabase(db.url, 'DOF 2020 (prueba)', fillContribuciones, { vigenteDesde: SECOND_VERSION });
  return db;
}

/**
 * The two-version database of each store with a REST server over it, made once for the file: the
 * Streamable HTTP and the stdio describes only read it, so both compare their tools with the same
 * server's answers (the data, the version and the REST answers are the same as over two copies).
 */
const twoVersionsServed = new Map<'sqlite' | 'postgres', Promise<{ db: TestDatabase; server: Running }>>();
function servedTwoVersions(kind: 'sqlite' | 'postgres'): Promise<{ db: TestDatabase; server: Running }> {
  let made = twoVersionsServed.get(kind);
  if (!made) {
    made = twoVersions(kind).then(async (db) => {
      try {
        return { db, server: await startServer({ DATABASE_URL: db.url }) };
      } catch (error) {
        await db.drop();
        throw error;
      }
    });
    twoVersionsServed.set(kind, made);
  }
  return made;
}
after(async () => {
  for (const made of twoVersionsServed.values()) {
    const { db, server } = await made.catch(() => ({ db: undefined, server: undefined }));
    await server?.close();
    await db?.drop();
  }
});

/** One tool call and the REST call it stands for. */
interface Case {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly rest: { readonly method?: 'POST'; readonly path: string; readonly body?: unknown };
}

const shipment = (partidas: unknown[], extra: Record<string, unknown> = {}) => ({ fecha: '2024-06-03', pais_origen: 'USA', partidas, ...extra });
/** Far above the app's 16 KiB body limit: a contributions call carries a whole shipment. */
const bigShipment = shipment(
  Array.from({ length: 300 }, (_, i) => ({ fraccion: '0101.21.01', valor_aduana: `${1000 + i}.50`, certificado_origen: i % 2 === 0 })),
);

const CASES: readonly Case[] = [
  { tool: 'buscar_fraccion', args: { q: 'reproductores' }, rest: { path: '/api/v1/buscar?q=reproductores' } },
  { tool: 'buscar_fraccion', args: { q: 'café niño', limit: 3 }, rest: { path: '/api/v1/buscar?q=caf%C3%A9%20ni%C3%B1o&limit=3' } },
  { tool: 'buscar_fraccion', args: { q: 'cafe', as_of: '2015-06-01' }, rest: { path: '/api/v1/buscar?q=cafe&as_of=2015-06-01' } },
  { tool: 'buscar_fraccion', args: { q: '0101' }, rest: { path: '/api/v1/buscar?q=0101' } },
  { tool: 'buscar_fraccion', args: { q: 'zzzqqq' }, rest: { path: '/api/v1/buscar?q=zzzqqq' } },
  { tool: 'buscar_fraccion', args: { q: 'a&b=c?d' }, rest: { path: '/api/v1/buscar?q=a%26b%3Dc%3Fd' } },
  { tool: 'buscar_fraccion', args: { q: '   ' }, rest: { path: '/api/v1/buscar?q=%20%20%20' } },
  { tool: 'buscar_fraccion', args: { q: 'cafe', as_of: '1800-01-01' }, rest: { path: '/api/v1/buscar?q=cafe&as_of=1800-01-01' } },
  { tool: 'ficha_fraccion', args: { fraccion: '0101.21.01' }, rest: { path: '/api/v1/ficha/0101.21.01' } },
  { tool: 'ficha_fraccion', args: { fraccion: '01012101', nico: '00', pais: 'USA' }, rest: { path: '/api/v1/ficha/01012101?nico=00&pais=USA' } },
  { tool: 'ficha_fraccion', args: { fraccion: '8471300199', as_of: '2015-06-01' }, rest: { path: '/api/v1/ficha/8471300199?as_of=2015-06-01' } },
  {
    tool: 'ficha_fraccion',
    args: { fraccion: '0101 29 99', pais: 'can', as_of: '2015-06-01' },
    rest: { path: '/api/v1/ficha/0101%2029%2099?pais=can&as_of=2015-06-01' },
  },
  { tool: 'ficha_fraccion', args: { fraccion: '99999999' }, rest: { path: '/api/v1/ficha/99999999' } },
  { tool: 'ficha_fraccion', args: { fraccion: '123' }, rest: { path: '/api/v1/ficha/123' } },
  {
    tool: 'calcular_contribuciones',
    args: shipment([{ fraccion: '0101.21.01', valor_aduana: '100000.00', certificado_origen: true }]),
    rest: { method: 'POST', path: '/api/v1/contribuciones', body: shipment([{ fraccion: '0101.21.01', valor_aduana: '100000.00', certificado_origen: true }]) },
  },
  {
    tool: 'calcular_contribuciones',
    args: shipment([{ fraccion: '7208.51.01', valor_aduana: '250000.00', sector_prosec: 'II' }], { pais_origen: 'CHN' }),
    rest: {
      method: 'POST',
      path: '/api/v1/contribuciones',
      body: shipment([{ fraccion: '7208.51.01', valor_aduana: '250000.00', sector_prosec: 'II' }], { pais_origen: 'CHN' }),
    },
  },
  { tool: 'calcular_contribuciones', args: bigShipment, rest: { method: 'POST', path: '/api/v1/contribuciones', body: bigShipment } },
  {
    tool: 'calcular_contribuciones',
    args: shipment([{ fraccion: '9999.99.99', valor_aduana: '10.00' }]),
    rest: { method: 'POST', path: '/api/v1/contribuciones', body: shipment([{ fraccion: '9999.99.99', valor_aduana: '10.00' }]) },
  },
  {
    tool: 'calcular_contribuciones',
    // A mixed duty with no quantity: a 422 only the computation finds, not the schema.
    args: shipment([{ fraccion: '0402.10.99', valor_aduana: '5000.00' }]),
    rest: { method: 'POST', path: '/api/v1/contribuciones', body: shipment([{ fraccion: '0402.10.99', valor_aduana: '5000.00' }]) },
  },
  { tool: 'cambios_tarifa', args: { desde: '2015-01-01' }, rest: { path: '/api/v1/cambios?desde=2015-01-01' } },
  {
    tool: 'cambios_tarifa',
    args: { desde: '2015-01-01', hasta: '2021-01-01', conjunto: 'tlcs', limit: 2, skip: 1 },
    rest: { path: '/api/v1/cambios?desde=2015-01-01&hasta=2021-01-01&conjunto=tlcs&limit=2&skip=1' },
  },
  { tool: 'cambios_tarifa', args: { desde: '2015-01-01', fraccion: '0101.21.01' }, rest: { path: '/api/v1/cambios?desde=2015-01-01&fraccion=0101.21.01' } },
  { tool: 'cambios_tarifa', args: { desde: '2021-01-01', hasta: '2015-01-01' }, rest: { path: '/api/v1/cambios?desde=2021-01-01&hasta=2015-01-01' } },
  { tool: 'cambios_tarifa', args: { desde: '2015-01-01', conjunto: 'nada' }, rest: { path: '/api/v1/cambios?desde=2015-01-01&conjunto=nada' } },
  { tool: 'regla_origen', args: { fraccion: '0101.21.01' }, rest: { path: '/api/v1/reglas-origen/0101.21.01' } },
  {
    tool: 'regla_origen',
    args: { fraccion: '0101.21.01', acuerdo: 'TIPAT', fecha: '2024-01-01' },
    rest: { path: '/api/v1/reglas-origen/0101.21.01?acuerdo=TIPAT&fecha=2024-01-01' },
  },
  { tool: 'regla_origen', args: { fraccion: '99999999' }, rest: { path: '/api/v1/reglas-origen/99999999' } },
  { tool: 'regla_origen', args: { fraccion: '0101.21.01', pais: 'ZZZ' }, rest: { path: '/api/v1/reglas-origen/0101.21.01?pais=ZZZ' } },
  {
    tool: 'evaluar_origen',
    args: { fraccion: '0101.21.01', acuerdo: 'TIPAT', materiales: [{ fraccion: '0101.29', originario: false, valor: '10.00' }] },
    rest: {
      method: 'POST',
      path: '/api/v1/reglas-origen/evaluar',
      body: { fraccion: '0101.21.01', acuerdo: 'TIPAT', materiales: [{ fraccion: '0101.29', originario: false, valor: '10.00' }] },
    },
  },
  {
    tool: 'evaluar_origen',
    args: { fraccion: '0101.21.01', acuerdo: 'nada', materiales: [] },
    rest: { method: 'POST', path: '/api/v1/reglas-origen/evaluar', body: { fraccion: '0101.21.01', acuerdo: 'nada', materiales: [] } },
  },
  { tool: 'versiones_tarifa', args: {}, rest: { path: '/api/v1/versiones' } },
  { tool: 'explorar_tarifa', args: {}, rest: { path: '/api/v1/nomenclatura' } },
  { tool: 'explorar_tarifa', args: { codigo: '' }, rest: { path: '/api/v1/nomenclatura' } },
  { tool: 'explorar_tarifa', args: { codigo: '01' }, rest: { path: '/api/v1/nomenclatura/capitulos/01' } },
  { tool: 'explorar_tarifa', args: { codigo: '84.71' }, rest: { path: '/api/v1/nomenclatura/partidas/8471' } },
  { tool: 'explorar_tarifa', args: { codigo: '0101' }, rest: { path: '/api/v1/nomenclatura/partidas/0101' } },
  { tool: 'explorar_tarifa', args: { codigo: '97' }, rest: { path: '/api/v1/nomenclatura/capitulos/97' } },
];

const TOOL_NAMES = [
  'buscar_fraccion',
  'ficha_fraccion',
  'calcular_contribuciones',
  'regla_origen',
  'evaluar_origen',
  'cambios_tarifa',
  'versiones_tarifa',
  'explorar_tarifa',
];

const texts = (result: CallToolResult): string[] => result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));

/** The REST answer to a case, from the server over the same database. */
async function restAnswer(server: Running, c: Case): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (c.rest.body !== undefined) headers['content-type'] = 'application/json';
  const response = await server.authed.fetch(c.rest.path, {
    method: c.rest.method ?? 'GET',
    headers,
    ...(c.rest.body === undefined ? {} : { body: JSON.stringify(c.rest.body) }),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * The REST answer to one of CASES, asked of `server` once: both transports of a store compare their
 * tools with the same server's answers (servedTwoVersions), which only reads its data.
 */
const casesAnswered = new WeakMap<Running, Map<Case, Promise<{ status: number; body: unknown }>>>();
function restAnswerOnce(server: Running, c: Case): Promise<{ status: number; body: unknown }> {
  let answers = casesAnswered.get(server);
  if (answers === undefined) {
    answers = new Map();
    casesAnswered.set(server, answers);
  }
  let answer = answers.get(c);
  if (answer === undefined) {
    answer = restAnswer(server, c);
    answers.set(c, answer);
  }
  return answer;
}

/** What every transport must do, given a connected client and a REST server over the same data. */
function behavesAsRest(setup: () => { client: Client; server: Running }): void {
  test('eight read-only tools whose input fields are the REST parameters of the same name, described in Spanish with the data they answer from', async () => {
    const { client } = setup();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    const fields = (name: string): string[] => Object.keys(byName.get(name)!.inputSchema.properties ?? {}).sort();
    assert.deepEqual(fields('buscar_fraccion'), ['as_of', 'limit', 'q']);
    assert.deepEqual(fields('ficha_fraccion'), ['as_of', 'fraccion', 'nico', 'pais']);
    assert.deepEqual(fields('cambios_tarifa'), ['conjunto', 'desde', 'fraccion', 'hasta', 'limit', 'skip']);
    assert.deepEqual(fields('versiones_tarifa'), []);
    assert.deepEqual(fields('explorar_tarifa'), ['codigo']);
    assert.deepEqual(fields('calcular_contribuciones'), ['fecha', 'pais_origen', 'partidas', 'regimen', 'tipo_cambio']);
    assert.deepEqual(fields('regla_origen'), ['acuerdo', 'as_of', 'fecha', 'fraccion', 'pais']);
    assert.deepEqual(fields('evaluar_origen'), ['acuerdo', 'entrada', 'fecha', 'fraccion', 'materiales', 'nico', 'totalmente_obtenido', 'valores']);
    assert.deepEqual(byName.get('buscar_fraccion')!.inputSchema.required, ['q']);
    assert.deepEqual(byName.get('ficha_fraccion')!.inputSchema.required, ['fraccion']);
    assert.deepEqual(byName.get('calcular_contribuciones')!.inputSchema.required, ['pais_origen', 'partidas']);
    const limit = byName.get('buscar_fraccion')!.inputSchema.properties!['limit'] as Record<string, unknown>;
    assert.equal(limit['type'], 'integer');
    assert.equal(limit['maximum'], 1000);
    for (const tool of tools) {
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      assert.match(tool.description ?? '', /las tasas y los registros son los de los datos cargados/i, tool.name);
      assert.match(tool.description ?? '', /Versión vigente hoy: 2020-01-01\.1/, tool.name);
      // The test data is not the demo's: no demo warning.
      assert.doesNotMatch(tool.description ?? '', /ADVERTENCIA/, tool.name);
    }
  });

  test('each tool answers, as structured content, exactly what its REST operation answers for the same input and version', async () => {
    const { client, server } = setup();
    const statuses = new Set<number>();
    for (const c of CASES) {
      const expected = await restAnswerOnce(server, c);
      statuses.add(expected.status);
      const result = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
      const label = `${c.tool} ${JSON.stringify(c.args).slice(0, 120)} (REST ${expected.status})`;
      if (expected.status === 200) {
        assert.notEqual(result.isError, true, `${label}: ${texts(result).join(' ')}`);
        const wrapped = Array.isArray(expected.body) ? { items: expected.body } : expected.body;
        assert.deepEqual(result.structuredContent, wrapped, label);
        assert.ok(texts(result)[0]!.length > 0, label);
        assert.deepEqual(JSON.parse(texts(result).at(-1)!), expected.body, label);
      } else {
        // Besides 404 and 422, PostgreSQL answers a full-text search on an older version (a schema of its own) with 503 (a REST matter, see the report).
        assert.equal(result.isError, true, label);
        assert.deepEqual(result.structuredContent, expected.body, label);
        const detail = (expected.body as { detail: unknown }).detail;
        const details = typeof detail === 'string' ? [detail] : (detail as { msg: string }[]).map((d) => d.msg);
        for (const text of details) assert.ok(texts(result)[0]!.includes(text), `${label}: ${texts(result)[0]} lacks ${text}`);
      }
    }
    // The cases reach answers, not-found answers and validation errors alike.
    for (const status of [200, 404, 422]) assert.ok(statuses.has(status), `no case answered ${status}`);
  });

  test('the short text is Spanish and names what was answered', async () => {
    const { client } = setup();
    const ficha = (await client.callTool({ name: 'ficha_fraccion', arguments: { fraccion: '0101.21.01' } })) as CallToolResult;
    assert.match(texts(ficha)[0]!, /^Fracción 0101\.21\.01: Reproductores de raza pura\. Registros: /);
    const contribuciones = (await client.callTool({
      name: 'calcular_contribuciones',
      arguments: CASES.find((c) => c.tool === 'calcular_contribuciones')!.args,
    })) as CallToolResult;
    assert.match(texts(contribuciones)[0]!, /total con tratamiento general \d+ pesos, con la mejor opción \d+ pesos/);
    const versiones = (await client.callTool({ name: 'versiones_tarifa', arguments: {} })) as CallToolResult;
    assert.match(texts(versiones)[0]!, /^2 versiones de los datos; vigente hoy: 2020-01-01\.1/);
  });

  test('arguments the input schema refuses are a tool error naming the field', async () => {
    const { client } = setup();
    const refused: [string, Record<string, unknown>, string][] = [
      ['buscar_fraccion', {}, 'q'],
      ['buscar_fraccion', { q: 'cafe', limit: 5000 }, 'limit'],
      ['buscar_fraccion', { q: 'cafe', limit: 'diez' }, 'limit'],
      ['buscar_fraccion', { q: 'cafe', as_of: '2024-02-30' }, 'as_of'],
      ['buscar_fraccion', { q: 'cafe', pagina: 2 }, 'pagina'],
      ['ficha_fraccion', { nico: '00' }, 'fraccion'],
      ['ficha_fraccion', { fraccion: '01012101', nico: '7' }, 'nico'],
      ['ficha_fraccion', { fraccion: 1012101 }, 'fraccion'],
      ['ficha_fraccion', { fraccion: '01012101', pais: 'ABCD' }, 'pais'],
      ['cambios_tarifa', { desde: 'ayer' }, 'desde'],
      ['cambios_tarifa', { desde: '2015-01-01', skip: -1 }, 'skip'],
      ['explorar_tarifa', { codigo: '123' }, 'codigo'],
      ['calcular_contribuciones', { pais_origen: 'USA' }, 'partidas'],
      ['calcular_contribuciones', shipment([{ fraccion: '0101.21.01', valor_aduana: 100 }]), 'partidas.0.valor_aduana'],
      ['calcular_contribuciones', shipment([{ fraccion: '0101.21.01' }]), 'partidas.0.valor_aduana'],
      ['calcular_contribuciones', shipment([{ fraccion: '0101.21.01', valor_aduana: '1e9' }]), 'partidas.0.valor_aduana'],
    ];
    for (const [tool, args, field] of refused) {
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.ok(texts(result)[0]!.includes(field), `${tool} ${JSON.stringify(args)}: ${texts(result)[0]} does not name ${field}`);
    }
  });

  test('an unknown tool is an error naming it', async () => {
    const { client } = setup();
    await assert.rejects(client.callTool({ name: 'borrar_tarifa', arguments: {} }), /borrar_tarifa/);
  });

  test('the resource template tarifa://fraccion/{fraccion} reads the ficha as JSON', async () => {
    const { client, server } = setup();
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((r) => r.uriTemplate),
      ['tarifa://fraccion/{fraccion}'],
    );
    for (const fraction of ['01012101', '7208.51.01', '0101210100']) {
      const uri = `tarifa://fraccion/${fraction}`;
      const read = await client.readResource({ uri });
      const content = read.contents[0]!;
      assert.equal(content.uri, uri);
      assert.equal(content.mimeType, 'application/json');
      const expected = await restAnswer(server, { tool: '', args: {}, rest: { path: `/api/v1/ficha/${fraction}` } });
      assert.equal(expected.status, 200);
      assert.deepEqual(JSON.parse((content as { text: string }).text), expected.body);
    }
    await assert.rejects(client.readResource({ uri: 'tarifa://fraccion/99999999' }), /not found/i);
    await assert.rejects(client.readResource({ uri: 'tarifa://fraccion/0101' }), /8 dígitos/);
    await assert.rejects(client.readResource({ uri: 'tarifa://otra/01012101' }), /Unknown resource/);
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};
const MCP_ACCEPT = 'application/json, text/event-stream';
/** The user whose calls the JSON-RPC batch test counts. */
const BATCH_USER = 'lotes-jsonrpc';

for (const kind of await storeKinds()) {
  describe(`MCP over Streamable HTTP at /mcp (${kind})`, () => {
    let db: TestDatabase;
    let server: Running;
    let client: Client;

    before(async () => {
      ({ db, server } = await servedTwoVersions(kind));
      client = new Client({ name: 'test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      });
      await client.connect(transport);
    });

    /**
     * One server with a rate limit of five calls for both rate-limit tests, each calling as a user of
     * its own (tool calls are counted per user): a start, and the tools made from its OpenAPI
     * document, rather than one for each.
     */
    let limited: Promise<Running> | undefined;
    const limitedServer = (): Promise<Running> => (limited ??= startServer({ DATABASE_URL: db.url, RATE_LIMIT_MAX: '5' }));

    after(async () => {
      await client?.close();
      await (await limited?.catch(() => undefined))?.close();
    });

    behavesAsRest(() => ({ client, server }));

    test('without a token, or with a bad one, 401 Not authenticated with WWW-Authenticate: Bearer', async () => {
      const post = (headers: Record<string, string>) =>
        fetch(`${server.base}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
          body: JSON.stringify(initialize),
        });
      const none = await post({});
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(await none.json(), { detail: 'Not authenticated' });
      const bad = await post({ authorization: 'Bearer not-a-token' });
      assert.equal(bad.status, 401);
      assert.equal(bad.headers.get('www-authenticate'), 'Bearer');
      const anonymous = new Client({ name: 'anonymous', version: '1.0.0' });
      await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`))), /401|Unauthorized|Not authenticated/i);
    });

    test('stateless: a tool is called with no initialize and no session, and the answer carries no session', async () => {
      const response = await server.authed.fetch('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MCP_ACCEPT },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ficha_fraccion', arguments: { fraccion: '0101.21.01' } } }),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('mcp-session-id'), null);
      const message = (await response.json()) as { id: number; result: CallToolResult };
      assert.equal(message.id, 7);
      const rest = await server.json('/api/v1/ficha/0101.21.01');
      assert.deepEqual(message.result.structuredContent, rest.body);
    });

    test('a tool call counts once against the rate limit: the REST call it makes is not counted again', async () => {
      const limited = await limitedServer();
      const call = (id: number): Promise<Response> =>
        limited.authed.fetch('/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: MCP_ACCEPT },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ficha_fraccion', arguments: { fraccion: '0101.21.01' } } }),
        });
      for (const id of [1, 2, 3, 4, 5]) {
        const response = await call(id);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('ratelimit-remaining'), String(5 - id));
        const message = (await response.json()) as { result: CallToolResult };
        assert.equal(message.result.isError ?? false, false, JSON.stringify(message.result.content));
      }
      const refused = await call(6);
      assert.equal(refused.status, 429);
      assert.ok(refused.headers.get('retry-after'));
      await refused.arrayBuffer();
    });

    test('each tool call of a JSON-RPC batch counts against the rate limit; a batch of more than 20 messages is refused whole', async () => {
      const limited = await limitedServer();
      // A user of its own: a budget of five calls that no other test has spent.
      await addUser(limited.config, BATCH_USER, TEST_PASSWORD);
      const caller = clientWith(limited.base, await tokenFor(limited.base, BATCH_USER, TEST_PASSWORD));
      const ficha = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ficha_fraccion', arguments: { fraccion: '0101.21.01' } } });
      const batch = (body: unknown): Promise<Response> =>
        caller.fetch('/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: MCP_ACCEPT },
          body: JSON.stringify(body),
        });
      const three = await batch([ficha(1), ficha(2), ficha(3)]);
      assert.equal(three.status, 200);
      assert.equal(three.headers.get('ratelimit-remaining'), '2', 'three calls counted three');
      const answers = (await three.json()) as { id: number; result: CallToolResult }[];
      assert.deepEqual(
        answers.map((a) => [a.id, a.result.isError ?? false]),
        [
          [1, false],
          [2, false],
          [3, false],
        ],
      );
      const refused = await batch([ficha(4), ficha(5), ficha(6)]);
      assert.equal(refused.status, 429, 'three more calls are past the 5 of the window');
      assert.ok(refused.headers.get('retry-after'));
      await refused.arrayBuffer();

      const big = await server.authed.fetch('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MCP_ACCEPT },
        body: JSON.stringify(Array.from({ length: 21 }, (_, i) => ficha(i))),
      });
      assert.equal(big.status, 400);
      assert.deepEqual(await big.json(), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: a JSON-RPC batch holds at most 20 messages; this one holds 21' },
      });
    });

    test('params the protocol refuses are -32602 in the service’s words, never a dump of the schema library', async () => {
      const headers = { 'content-type': 'application/json', accept: MCP_ACCEPT };
      const answer = await server.authed.fetch('/mcp', {
        method: 'POST',
        headers,
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } },
          { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 7 } },
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ficha_fraccion', arguments: [] } },
        ]),
      });
      const errors = ((await answer.json()) as { id: number; error: { code: number; message: string } }[]).map((m) => [m.id, m.error.code, m.error.message]);
      assert.deepEqual(errors, [
        [1, -32602, 'Invalid params: params must be an object with name (the tool, a string) and, optionally, arguments (an object)'],
        [2, -32602, 'Invalid params: params must be an object with uri (a string, e.g. tarifa://fraccion/01012101)'],
        [3, -32602, 'Invalid params: params must be an object with name (the tool, a string) and, optionally, arguments (an object)'],
      ]);
    });

    test('a body that is not JSON-RPC is answered in JSON-RPC terms; other methods on /mcp are 405', async () => {
      const headers = { 'content-type': 'application/json', accept: MCP_ACCEPT };
      const broken = await server.authed.fetch('/mcp', { method: 'POST', headers, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
      assert.equal(broken.status, 400);
      assert.equal(((await broken.json()) as { error: { code: number } }).error.code, -32700);
      const text = await server.authed.fetch('/mcp', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: JSON.stringify(initialize),
      });
      assert.equal(text.status, 415);
      const get = await server.authed.fetch('/mcp');
      assert.equal(get.status, 405);
      assert.match(get.headers.get('allow') ?? '', /POST/);
    });
  });
}

test('the answers of one MCP request are bounded: a call past the budget is a tool error asking for less', async () => {
  const ask = budgeted((call) => {
    const text = JSON.stringify({ items: 'x'.repeat(400), url: call.url });
    return Promise.resolve({ status: 200, text, json: JSON.parse(text) as unknown });
  }, 1000);
  assert.equal((await ask({ method: 'GET', url: '/a' })).status, 200);
  assert.equal((await ask({ method: 'GET', url: '/b' })).status, 200);
  const third = await ask({ method: 'GET', url: '/c' });
  assert.equal(third.status, 413);
  assert.match(String((third.json as { detail: string }).detail), /el límite es 1000 bytes por petición/);
  assert.equal(MCP_MAX_ANSWER_BYTES, 4 * 1024 * 1024);
});

/** A client of the /mcp of the server at `base`, with `token`, closed when the test ends. */
async function httpClient(t: TestContext, base: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  defer(t, () => client.close());
  return client;
}

describe('MCP tool descriptions and the loaded data', () => {
  test("over the demo dataset every description carries the demo's warning", async (t) => {
    const db = await database(t, 'sqlite', () => undefined);
    await writeDatabase(db.url, FUENTE_2022, fillFixture, { vigenteDesde: '2022-12-12' });
    const server = await serve(t, { DATABASE_URL: db.url });
    const client = await httpClient(t, server.base, server.token);
    const { tools } = await client.listTools();
    assert.equal(tools.length, TOOL_NAMES.length);
    for (const tool of tools) {
      assert.match(tool.description ?? '', /ADVERTENCIA: los datos cargados son los de demostración/, tool.name);
      assert.match(tool.description ?? '', /las tasas no son vigentes/, tool.name);
    }
  });

  test("the REST call a tool makes is logged under the /mcp request's id, as the caller", async (t) => {
    const db = await database(t, 'sqlite');
    const { base, log } = await serveWithLog(t, { DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    const token = await tokenFor(base);
    const client = await httpClient(t, base, token);
    await client.callTool({ name: 'ficha_fraccion', arguments: { fraccion: '0101.21.01' } });
    const requests = log.lines().filter((l) => l['msg'] === 'request');
    const ficha = requests.find((l) => l['route'] === '/api/v1/ficha/:fraccion');
    assert.ok(ficha, JSON.stringify(requests));
    assert.equal(ficha['user'], TEST_USER);
    const mcp = requests.find((l) => l['route'] === '/mcp' && l['reqId'] === ficha['reqId']);
    assert.ok(mcp, `no /mcp request logged under ${String(ficha['reqId'])}: ${JSON.stringify(requests)}`);
  });
});

for (const kind of await storeKinds()) {
  describe(`MCP over standard input/output: tariff-lookup mcp (${kind})`, () => {
    let db: TestDatabase;
    let server: Running;
    let client: Client;
    let stderr = '';

    before(async () => {
      ({ db, server } = await servedTwoVersions(kind));
      // No JWT_SECRET, no token: whoever runs the command already has the database.
      const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: db.url };
      delete env['JWT_SECRET'];
      const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], env, stderr: 'pipe' });
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
    });

    after(async () => {
      await client?.close();
    });

    behavesAsRest(() => ({ client, server }));

    test('tariff-lookup mcp --help says what it serves and that it needs no token', async () => {
      const { code, stdout: help } = await cliInProcess(['mcp', '--help'], {});
      assert.equal(code, 0);
      assert.match(help, /^Usage: tariff-lookup mcp/);
      assert.match(help, /tarifa:\/\/fraccion\/\{fraccion\}/);
      assert.match(help, /needs no token/);
    });

    test('log lines go to standard error, one per REST call the tools make, as the in-process identity', async () => {
      await client.callTool({ name: 'versiones_tarifa', arguments: {} });
      assert.match(stderr, /"route":"\/api\/v1\/versiones"/);
      assert.match(stderr, /tariff-lookup mcp/);
    });
  });
}
