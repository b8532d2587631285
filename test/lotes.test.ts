/**
 * Batches over real HTTP on both stores, on the demo dataset: a batch mixing every estado_fraccion
 * answers, field by field, what the single calls answer (buscar, fracciones, fracciones-anteriores,
 * POST /api/v1/contribuciones); the files read back (CSV, XLSX, NDJSON) with formulas neutralised;
 * ownership, limits, cancel and delete; hostile files never get a 5xx.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import type { Resultado as ServiceResultado } from '../src/lotes/answer.js';
import { FILE_COLUMNS, RESULT_COLUMNS } from '../src/lotes/result-columns.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import type { Client } from './clients.js';
import { waitFor } from './lifetime.js';
import { endedOn } from './batch-end.js';
import { storeKinds } from './stores.js';
import { createTestDatabase, fillDemo } from './databases.js';
import { startServer } from './servers.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, clientFor } from './clients.js';

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NDJSON = 'application/x-ndjson';

interface Lote {
  id: string;
  estado: string;
  lineas: number;
  procesadas: number;
  revisar: number;
  errores: number;
  progreso: number;
  version: string | null;
}

interface Brief {
  fraccion: string;
  nico: string | null;
  descripcion: string | null;
}

/** A line's result: the type of the result columns' table (src/lotes/result-columns.ts); test/lotes/result-columns.test.ts holds the table to the spec. */
type Resultado = ServiceResultado;

interface Page<T> {
  items: T[];
  total: number;
  skip: number;
  limit: number;
}

/** One line of each estado_fraccion, a bad value, a formula in an extra column; `;`, a BOM and headers with accents. */
const MIXED = [
  '\uFEFFReferencia; Descripción ;FRACCIÓN;Valor Aduana;País Origen;Certificado Origen;Color',
  'V1;caballos reproductores de raza pura;0101.21.01;100000.00;USA;si;=HYPERLINK("http://x","clic")',
  'V2;asnos;01013001;2500.50;;no;+1',
  'N1;gallos y gallinas;01051103;;;;',
  'N2;;0101.21.01.99;;;;',
  'R1;carne de bovino;02012099;1000.00;;;-2',
  'I1;;99999999;;;;@SUM(A1)',
  'S1;café tostado;;;;;',
  'E1;tornillos;0101.21.01;12,5;USA;quizá;',
].join('\r\n');

const EXPECTED_STATES: Record<string, string> = {
  V1: 'vigente',
  V2: 'vigente',
  N1: 'nico_requerido',
  N2: 'nico_inexistente',
  R1: 'reemplazada',
  I1: 'inexistente',
  S1: 'sin_fraccion',
  E1: 'vigente',
};

/**
 * A client that declares a body over 20 MiB and sends it all before it reads (as many HTTP libraries
 * do): what it read, and whether the connection was reset under it while it wrote (the answer lost).
 */
async function declaredTooLarge(server: Running): Promise<{ answer: string; reset: boolean }> {
  const { hostname, port } = new URL(server.base);
  const socket = connect(Number(port), hostname);
  let answer = '';
  let reset = false;
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.on('error', () => (reset = true));
  const length = 21 * 1024 * 1024;
  socket.write(
    `POST /api/v1/lotes HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${server.token}\r\ncontent-type: text/csv\r\ncontent-length: ${length}\r\n\r\n`,
  );
  const piece = Buffer.alloc(1024 * 1024, 'a');
  for (let sent = 0; sent < length && !reset && !socket.destroyed; sent += piece.length) {
    if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
  }
  await waitFor('the answer or a reset', () => answer.includes('\r\n\r\n') || reset);
  socket.destroy();
  return { answer, reset };
}

async function post(server: Running, body: string | Buffer, type: string, query = ''): Promise<Response> {
  return server.authed.fetch(`/api/v1/lotes${query}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

const finished = (server: Running, id: string): Promise<Lote> => endedOn<Lote>(server, id);

async function clientOf(server: Running, username: string): Promise<Client> {
  await addUser(server.config, username, TEST_PASSWORD);
  return await clientFor(server.base, username, TEST_PASSWORD);
}

for (const kind of await storeKinds()) {
  describe(`lotes (${kind})`, () => {
    let db: TestDatabase;
    let server: Running;
    let mixed: { id: string; lote: Lote; results: Resultado[] };

    before(async () => {
      db = await createTestDatabase(kind, fillDemo);
      // Uploads of 20 MiB here must not race the request and connection timeouts on a busy machine (robustness.test.ts tests them).
      server = await startServer({ DATABASE_URL: db.url, REQUEST_TIMEOUT_SECONDS: '120', CONNECTION_TIMEOUT_SECONDS: '120' });
      const response = await post(server, MIXED, `${CSV}; charset=utf-8`, '?nombre=mezcla&pais_origen=usa');
      assert.equal(response.status, 202, await response.clone().text());
      const created = (await response.json()) as Lote;
      assert.equal(response.headers.get('location'), `/api/v1/lotes/${created.id}`);
      const lote = await finished(server, created.id);
      const page = await server.json<Page<Resultado>>(`/api/v1/lotes/${created.id}/resultados?limit=1000`);
      mixed = { id: created.id, lote, results: page.body.items };
    });

    after(async () => {
      await server?.close();
      await db?.drop();
    });

    const byRef = (ref: string): Resultado => mixed.results.find((r) => r.referencia === ref)!;

    test('every line is answered once, in file order, with its estado_fraccion', () => {
      assert.deepEqual(
        mixed.results.map((r) => r.linea),
        [2, 3, 4, 5, 6, 7, 8, 9],
      );
      for (const [ref, estado] of Object.entries(EXPECTED_STATES)) assert.equal(byRef(ref).estado_fraccion, estado, ref);
      assert.equal(mixed.lote.lineas, 8);
      assert.equal(mixed.lote.procesadas, 8);
      assert.equal(mixed.lote.progreso, 100);
      assert.equal(mixed.lote.revisar, mixed.results.filter((r) => r.revisar).length);
      assert.equal(mixed.lote.errores, mixed.results.filter((r) => r.error !== null).length);
      assert.ok(mixed.lote.version, 'the version that answered is named');
    });

    test('candidatas and coincide are what buscar answers for the description', async () => {
      for (const r of mixed.results.filter((x) => x.descripcion !== null)) {
        const { body } = await server.json<Page<{ FRACCION: string; NICO: string | null; DESCRIPCION: string | null; RELEVANCIA: number }>>(
          `/api/v1/buscar?q=${encodeURIComponent(r.descripcion!)}&limit=5`,
        );
        const expected = body.items.slice(0, 3).map((h) => ({ fraccion: h.FRACCION, nico: h.NICO, descripcion: h.DESCRIPCION, relevancia: h.RELEVANCIA }));
        assert.deepEqual(r.candidatas, expected, r.referencia!);
        const coincide = r.fraccion === null ? null : body.items.some((h) => h.FRACCION === r.fraccion);
        assert.equal(r.coincide, coincide, r.referencia!);
      }
      assert.deepEqual(byRef('N2').candidatas, []);
      assert.equal(byRef('N2').coincide, null);
    });

    test('fraccion, nico and igi are what the fracciones search answers', async () => {
      for (const ref of ['V1', 'V2', 'E1']) {
        const r = byRef(ref);
        const { body } = await server.json<Page<Record<string, unknown>>>(`/api/v1/fracciones/?fraccion=${r.fraccion!}${r.nico!}`);
        assert.equal(body.items.length, 1, ref);
        const record = body.items[0]!;
        assert.equal(record['FRACCION'], r.fraccion);
        assert.equal(record['NICO'], r.nico);
        assert.deepEqual(r.igi, { tasa: record['ADVIMPONUM'], tipo: record['TIPOTASAADVIMPO'], texto: record['ADVIMPOTXT'] }, ref);
      }
      const requerido = await server.json<Page<Record<string, unknown>>>('/api/v1/fracciones/?fraccion=01051103');
      assert.ok(requerido.body.items.length > 1, 'the fraction of nico_requerido has several NICO');
      assert.equal(byRef('N1').nico, null);
      assert.equal(byRef('N2').nico, '99');
      for (const ref of ['N1', 'N2', 'R1', 'I1', 'S1']) assert.equal(byRef(ref).igi, null, ref);
    });

    test('reemplazada_por is what fracciones-anteriores answers, with the descriptions of fracciones', async () => {
      const r = byRef('R1');
      const { body } = await server.json<Record<string, unknown>[]>('/api/v1/fracciones-anteriores/?fraccion_anterior=02012099');
      assert.ok(body.length > 0);
      const expected: Brief[] = [];
      for (const row of body) {
        const fraccion = String(row['FRACCIONACTUAL']);
        const nico = (row['NICOACTUAL'] as string | null) ?? null;
        const current = await server.json<Page<Record<string, unknown>>>(`/api/v1/fracciones/?fraccion=${fraccion}${nico ?? ''}`);
        expected.push({ fraccion, nico, descripcion: (current.body.items[0]?.['DESCRIPCION'] as string | undefined) ?? null });
      }
      assert.deepEqual(r.reemplazada_por, expected);
      for (const ref of ['V1', 'N1', 'N2', 'I1', 'S1']) assert.deepEqual(byRef(ref).reemplazada_por, [], ref);
      const none = await server.json<unknown[]>('/api/v1/fracciones-anteriores/?fraccion_anterior=99999999');
      assert.deepEqual(none.body, []);
    });

    test('contribuciones, preferencia and requisitos are what POST /api/v1/contribuciones answers for the line alone', async () => {
      const contribuciones = async (partida: Record<string, unknown>, pais: string) => {
        const response = await server.authed.fetch('/api/v1/contribuciones', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ fecha: (mixed.lote as unknown as { fecha: string }).fecha, pais_origen: pais, partidas: [partida] }),
        });
        assert.equal(response.status, 200, await response.clone().text());
        return (await response.json()) as {
          totales: { general: string; mejor: string };
          partidas: {
            mejor_opcion: string;
            opciones: { tratamiento: string; acuerdo?: string; contribuciones: { clave: string; tasa?: string }[] }[];
            requisitos: { conjunto: string }[];
          }[];
        };
      };
      const v1 = byRef('V1');
      const single = await contribuciones({ fraccion: '0101.21.01', valor_aduana: '100000.00', certificado_origen: true }, 'USA');
      assert.deepEqual(v1.contribuciones, {
        total_general: single.totales.general,
        total_mejor: single.totales.mejor,
        mejor_opcion: single.partidas[0]!.mejor_opcion,
      });
      assert.notEqual(v1.contribuciones.total_general, v1.contribuciones.total_mejor, 'the certificate gives the preference');
      const options = single.partidas[0]!.opciones.filter((o) => o.tratamiento !== 'general');
      const rate = (o: (typeof options)[number]): number => Number(o.contribuciones.find((c) => c.clave === 'IGI')?.tasa ?? '0');
      const best = [...options].sort((a, b) => rate(a) - rate(b))[0]!;
      assert.deepEqual(v1.preferencia, {
        tratamiento: best.tratamiento,
        acuerdo: best.acuerdo ?? null,
        tasa: best.contribuciones.find((c) => c.clave === 'IGI')?.tasa ?? null,
      });
      const counts = { permisos: 0, regulaciones: 0, noms: 0, cupos: 0 };
      const names: Record<string, keyof typeof counts> = { 'requisito-previo': 'permisos', regulaciones: 'regulaciones', noms: 'noms', cupos: 'cupos' };
      for (const r of single.partidas[0]!.requisitos) counts[names[r.conjunto]!]++;
      assert.deepEqual(v1.requisitos, counts);

      // No certificate: the batch's own line, with the country of the query.
      const v2 = byRef('V2');
      const alone = await contribuciones({ fraccion: '01013001', valor_aduana: '2500.50', certificado_origen: false }, 'USA');
      assert.deepEqual(v2.contribuciones, {
        total_general: alone.totales.general,
        total_mejor: alone.totales.mejor,
        mejor_opcion: alone.partidas[0]!.mejor_opcion,
      });
      for (const ref of ['N1', 'N2', 'R1', 'I1', 'S1', 'E1']) assert.equal(byRef(ref).contribuciones, null, ref);
    });

    test('revisar and error say what is wrong, in Spanish, without refusing the other lines', () => {
      const e1 = byRef('E1');
      assert.match(e1.error!, /valor_aduana "12,5" no es un importe/);
      assert.match(e1.error!, /certificado_origen "quizá"/);
      assert.equal(e1.revisar, true);
      for (const r of mixed.results) {
        const expected = r.estado_fraccion !== 'vigente' || r.coincide === false || r.error !== null;
        assert.equal(r.revisar, expected, r.referencia!);
      }
      assert.equal(byRef('V1').error, null);
      assert.equal(byRef('V1').revisar, false);
      assert.deepEqual(byRef('V1').extra, { Color: '=HYPERLINK("http://x","clic")' }, 'JSON carries the text unchanged');
    });

    test('the results as CSV, XLSX and NDJSON: the same table, attachments, formulas neutralised', async () => {
      const base = `/api/v1/lotes/${mixed.id}/resultados`;
      const csv = await server.authed.fetch(`${base}?formato=csv`);
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type')!, /^text\/csv/);
      assert.match(csv.headers.get('content-disposition')!, /^attachment; filename="lote-.+\.csv"$/);
      const text = await csv.text();
      const rows = text
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split('\r\n');
      assert.equal(rows.length, 1 + 8);
      assert.ok(rows[0]!.startsWith('linea,referencia,descripcion,fraccion,nico,estado_fraccion'));
      assert.equal(rows[0], [...FILE_COLUMNS.map((c) => c.header), 'Color'].join(','), "the result columns' table, then the extra columns");
      assert.ok(text.includes(`"'=HYPERLINK(""http://x"",""clic"")"`), 'a formula gets a leading quote');
      assert.ok(text.includes(",'+1") && text.includes(",'-2") && text.includes(",'@SUM(A1)"));

      const byAccept = await server.authed.fetch(base, { headers: { accept: 'text/csv' } });
      assert.equal(await byAccept.text(), text);

      const xlsx = await server.authed.fetch(`${base}?formato=xlsx`);
      assert.equal(xlsx.status, 200);
      assert.equal(xlsx.headers.get('content-type'), XLSX);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      assert.equal(sheet.rowCount, 1 + 8);
      const header = (sheet.getRow(1).values as unknown[]).slice(1);
      assert.deepEqual(header, rows[0].split(','), 'XLSX has the columns of CSV');
      const color = header.indexOf('Color') + 1;
      const cell = sheet.getRow(2).getCell(color);
      assert.equal(cell.type, ExcelJS.ValueType.String);
      assert.equal(cell.value, '=HYPERLINK("http://x","clic")');

      const ndjson = await server.authed.fetch(base, { headers: { accept: NDJSON } });
      assert.match(ndjson.headers.get('content-disposition')!, /attachment/);
      const lines = (await ndjson.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Resultado);
      assert.deepEqual(lines, mixed.results);
      for (const r of lines)
        assert.deepEqual(
          Object.keys(r),
          RESULT_COLUMNS.map((c) => c.name),
          "NDJSON's fields in the table's order",
        );

      const review = await server.json<Page<Resultado>>(`/api/v1/lotes/${mixed.id}/resultados?solo_revisar=true`);
      assert.deepEqual(
        review.body.items.map((r) => r.linea),
        mixed.results.filter((r) => r.revisar).map((r) => r.linea),
      );
      assert.equal(review.body.total, mixed.lote.revisar);
      const paged = await server.json<Page<Resultado>>(`/api/v1/lotes/${mixed.id}/resultados?skip=2&limit=3`);
      assert.deepEqual(paged.body.items, mixed.results.slice(2, 5));
      assert.equal(paged.body.total, 8);
      assert.equal((await server.json(`/api/v1/lotes/${mixed.id}/resultados?limit=1001`)).status, 422);
      assert.equal((await server.json(`/api/v1/lotes/${mixed.id}/resultados?formato=pdf`)).status, 422);
    });

    test('XLSX and NDJSON files are read as the CSV is', async () => {
      const workbook = new ExcelJS.Workbook();
      const sheet = workbook.addWorksheet('catalogo');
      sheet.addRow(['FRACCION', 'descripcion', 'Valor_Aduana', 'Nota']);
      sheet.addRow(['0101.21.01', 'caballos reproductores de raza pura', '100000.00', { formula: '1+1', result: 2 }]);
      sheet.addRow([99999999, 'algo', 10, 'x']);
      const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
      const fromXlsx = await post(server, xlsx, XLSX, '?pais_origen=USA');
      assert.equal(fromXlsx.status, 202, await fromXlsx.clone().text());
      const ndjson = [
        JSON.stringify({ fraccion: '0101.21.01', descripcion: 'caballos reproductores de raza pura', valor_aduana: '100000.00', nota: '2' }),
        '',
        JSON.stringify({ fraccion: '99999999', descripcion: 'algo', valor_aduana: '10' }),
      ].join('\n');
      const fromNdjson = await post(server, ndjson, NDJSON, '?pais_origen=USA');
      assert.equal(fromNdjson.status, 202);
      const a = await finished(server, ((await fromXlsx.json()) as Lote).id);
      const b = await finished(server, ((await fromNdjson.json()) as Lote).id);
      const ra = (await server.json<Page<Resultado>>(`/api/v1/lotes/${a.id}/resultados`)).body.items;
      const rb = (await server.json<Page<Resultado>>(`/api/v1/lotes/${b.id}/resultados`)).body.items;
      assert.deepEqual(
        ra.map((r) => r.linea),
        [2, 3],
      );
      assert.deepEqual(
        rb.map((r) => r.linea),
        [1, 3],
      );
      assert.deepEqual(ra[0]!.extra, { Nota: '2' });
      const strip = (r: Resultado): Partial<Resultado> => ({ ...r, linea: 0, extra: {} });
      assert.deepEqual(ra.map(strip), rb.map(strip));
      assert.equal(ra[0]!.estado_fraccion, 'vigente');
      assert.equal(ra[1]!.estado_fraccion, 'inexistente');
    });

    test('a batch is its owner’s: another user gets 404 and never sees it listed', async () => {
      const other = await clientOf(server, `otro-${kind}`);
      for (const path of [`/api/v1/lotes/${mixed.id}`, `/api/v1/lotes/${mixed.id}/resultados`, `/api/v1/lotes/${mixed.id}/resultados?formato=csv`]) {
        const response = await other.fetch(path);
        assert.equal(response.status, 404, path);
        assert.deepEqual(await response.json(), { detail: 'Lote not found' });
      }
      const removed = await other.fetch(`/api/v1/lotes/${mixed.id}`, { method: 'DELETE' });
      assert.equal(removed.status, 404);
      const list = await other.fetch('/api/v1/lotes');
      assert.deepEqual(await list.json(), { items: [], total: 0, skip: 0, limit: 100 });
      const mine = await server.json<Page<Lote>>('/api/v1/lotes');
      assert.ok(mine.body.items.some((l) => l.id === mixed.id));
      assert.equal((await fetch(`${server.base}/api/v1/lotes`)).status, 401);
      assert.equal(
        (await fetch(`${server.base}/api/v1/lotes`, { method: 'POST', headers: { 'content-type': CSV }, body: 'fraccion\n01012101\n' })).status,
        401,
      );
    });

    test('a file that cannot be taken is refused whole, naming the problem and the line; nothing is stored', async () => {
      const before = (await server.json<Page<Lote>>('/api/v1/lotes')).body.total;
      const refused: [string | Buffer, string, number, RegExp][] = [
        ['referencia,nombre\nA,b\n', CSV, 422, /neither a descripcion nor a fraccion/],
        ['', CSV, 422, /no header/],
        [Buffer.from([0xff, 0xfe, 0x00, 0x41]), CSV, 422, /not UTF-8/],
        [randomBytes(2000), XLSX, 422, /XLSX/],
        ['{"fraccion":"01012101"}\n{"fraccion": \n', NDJSON, 422, /line 2/],
        ['[1,2]\n', NDJSON, 422, /line 1: the line is not a JSON object/],
        // Refused at line 1,501, after 1,500 good lines were read to the local file (src/http/lotes.ts): nothing of it is stored.
        [`${'{"fraccion":"01012101"}\n'.repeat(1500)}{"fraccion": \n`, NDJSON, 422, /line 1501/],
        ['fraccion\n01012101\n', 'application/json', 415, /Unsupported Media Type/],
        ['fraccion\n01012101\n', 'text/plain', 415, /Unsupported Media Type/],
      ];
      for (const [body, type, status, message] of refused) {
        const response = await post(server, body, type);
        assert.equal(response.status, status, `${type} ${String(message)}`);
        const answer = (await response.json()) as { detail: unknown };
        assert.match(JSON.stringify(answer.detail), message);
        if (status === 422) {
          const [detail] = answer.detail as { type: string; loc: unknown[]; msg: string }[];
          assert.deepEqual(detail!.loc, ['body']);
        }
      }
      const badQuery = await post(server, 'fraccion\n01012101\n', CSV, '?fecha=2024-02-30&pais_origen=US');
      assert.equal(badQuery.status, 422);
      const locs = ((await badQuery.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc.join('.'));
      assert.deepEqual(locs.sort(), ['query.fecha', 'query.pais_origen']);
      assert.equal((await server.json<Page<Lote>>('/api/v1/lotes')).body.total, before);
    });

    // Both bounds are met before the store is touched (src/http/lotes.ts: the upload is spooled within 20
    // MiB, then read to a local file, 100,000 lines at most; only then are its lines stored): the same code
    // on either store, so this test (100,000 lines read, then rounds of some 20 MiB sent and dropped) runs
    // on the first store's server only.
    if (kind === 'sqlite')
      test('limits: more than 100,000 lines or 20 MiB is a 413', async () => {
        const held = (await server.json<Page<Lote>>('/api/v1/lotes')).body.total;
        const tooMany = `descripcion\n${'caballo\n'.repeat(100_001)}`;
        const response = await post(server, tooMany, CSV);
        assert.equal(response.status, 413);
        // Over 20 MiB, with its length or without (chunks): every client reads the 413 and its words before
        // the connection closes (a socket closed while the client still writes would reset and lose them).
        const huge = Buffer.alloc(20 * 1024 * 1024 + 10, 'a');
        const piece = Buffer.alloc(1024 * 1024, 'a');
        const chunks = (): ReadableStream<Uint8Array> =>
          Readable.toWeb(
            Readable.from(
              (function* () {
                yield Buffer.from('descripcion\n');
                for (let i = 0; i < 24; i++) yield piece;
              })(),
            ),
          ) as ReadableStream<Uint8Array>;
        const declared = await declaredTooLarge(server);
        assert.match(declared.answer, /^HTTP\/1\.1 413 /);
        assert.equal(declared.reset, false, 'the connection was reset while the client sent the body the 413 refused');
        // Once each, with a length and in chunks: the client that sends all before it reads (above) is the
        // one a socket closed too soon resets every time; three rounds of these sent some 130 MiB for the same checks.
        const big = await post(server, huge, CSV);
        assert.equal(big.status, 413);
        assert.match(((await big.json()) as { detail: string }).detail, /20 MiB/);
        const chunked = await server.authed.fetch('/api/v1/lotes', {
          method: 'POST',
          headers: { 'content-type': CSV },
          body: chunks(),
          duplex: 'half',
        } as RequestInit);
        assert.equal(chunked.status, 413);
        assert.match(((await chunked.json()) as { detail: string }).detail, /20 MiB/);
        assert.equal((await server.json<Page<Lote>>('/api/v1/lotes')).body.total, held);
      });

    test('hostile files are refused or taken, never a 5xx', async () => {
      const formulas = `descripcion,fraccion,extra\n"=HYPERLINK(""http://evil"",""x"")",=1+1,"@cmd|' /C calc'!A0"\n"\t-2+3",+0101,\r\n`;
      const cases: [string | Buffer, string][] = [
        [randomBytes(4096), CSV],
        [randomBytes(4096), NDJSON],
        [Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(4096)]), XLSX],
        [`descripcion\n"${'x'.repeat(3_000_000)}"\n`, CSV],
        [`descripcion,fraccion\n"unterminated,01012101\n`, CSV],
        [formulas, CSV],
        [`${'['.repeat(100_000)}\n`, NDJSON],
        [`{"descripcion": ${JSON.stringify('y'.repeat(2000))}, "fraccion": {"a": [1]}}\n`, NDJSON],
        ['descripcion\u0000,fraccion\n\u0000,\u0000\n', CSV],
      ];
      for (const [body, type] of cases) {
        const response = await post(server, body, type);
        assert.ok(response.status < 500, `${type}: ${response.status}`);
        assert.ok([202, 413, 422, 429].includes(response.status), `${type}: ${response.status} ${await response.clone().text()}`);
        if (response.status === 202) await finished(server, ((await response.json()) as Lote).id);
      }
    });
  });
}

describe('lotes without a worker: queued batches, the per-user limit, cancel and delete', () => {
  let db: TestDatabase;
  let client: Client;
  let server: Running;

  before(async () => {
    db = await createTestDatabase('sqlite');
    server = await startServer({ DATABASE_URL: db.url, LOTES_POR_USUARIO: '2' }, { user: 'limitado', app: { lotesWorker: false } });
    client = server.authed;
  });

  after(async () => {
    await server?.close();
    await db?.drop();
  });

  const send = (): Promise<Response> =>
    client.fetch(`/api/v1/lotes?nombre=uno`, { method: 'POST', headers: { 'content-type': CSV }, body: 'fraccion\n01012101\n' });

  test('LOTES_POR_USUARIO batches queued: one more is a 429 with Retry-After, stored nowhere; cancelling one makes room', async () => {
    const first = (await (await send()).json()) as Lote & { nombre: string };
    assert.equal(first.estado, 'en_cola');
    assert.equal(first.nombre, 'uno');
    assert.equal(first.progreso, 0);
    assert.equal((await send()).status, 202);
    const third = await send();
    assert.equal(third.status, 429);
    assert.ok(Number(third.headers.get('retry-after')) > 0);
    const list = (await (await client.fetch(`/api/v1/lotes`)).json()) as Page<Lote>;
    assert.equal(list.total, 2);
    assert.equal(list.items[1]!.id, first.id, 'newest first');

    const cancel = await client.fetch(`/api/v1/lotes/${first.id}`, { method: 'DELETE' });
    assert.equal(cancel.status, 204);
    const cancelled = (await (await client.fetch(`/api/v1/lotes/${first.id}`)).json()) as Lote;
    assert.equal(cancelled.estado, 'cancelado');
    assert.equal((await send()).status, 202, 'a cancelled batch no longer counts');

    const remove = await client.fetch(`/api/v1/lotes/${first.id}`, { method: 'DELETE' });
    assert.equal(remove.status, 204);
    assert.equal((await client.fetch(`/api/v1/lotes/${first.id}`)).status, 404);
    assert.equal((await client.fetch(`/api/v1/lotes/${first.id}`, { method: 'DELETE' })).status, 404);
    const page = (await (await client.fetch(`/api/v1/lotes?skip=1&limit=1`)).json()) as Page<Lote>;
    assert.equal(page.total, 2);
    assert.equal(page.items.length, 1);
    assert.equal((await client.fetch(`/api/v1/lotes?limit=0`)).status, 422);
  });

  test('a method a batch path does not serve is a 405 naming those it does', async () => {
    const response = await client.fetch(`/api/v1/lotes/x`, { method: 'PUT' });
    assert.equal(response.status, 405);
    assert.deepEqual(
      response.headers
        .get('allow')!
        .split(',')
        .map((m) => m.trim())
        .sort(),
      ['DELETE', 'GET', 'HEAD'],
    );
  });
});
