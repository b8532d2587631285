/**
 * Hostile batch files (issue 43) over real HTTP on both stores: the files that crashed, froze or
 * filled the service are refused naming the bound they pass (or taken, bounded), the service keeps
 * answering, nothing an upload writes outlives its request, and the downloads of what was taken keep
 * every client text a text (CSV quoted and neutralised for `,` and `;` readers, XLSX without the
 * characters XML forbids).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { LIMITS } from '../src/lotes/limits.js';
import { linePieces, lineText, storedLine } from '../src/lotes/stored-lines.js';
import { LotesTables } from '../src/lotes/tables.js';
import { openWorkDb } from '../src/store/work.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { waitFor } from './lifetime.js';
import { endedOn, newBatch } from './batch-end.js';
import { storeKinds } from './stores.js';
import { createTestDatabase } from './databases.js';
import { startServer } from './servers.js';
import { crafted, textRow, xlsx } from './hostile-files.js';

// The uploads' spool directories go to a directory of this test's own, which must stay empty of them.
process.env['TMPDIR'] = mkdtempSync(join(tmpdir(), 'lotes-hostile-'));

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NDJSON = 'application/x-ndjson';

interface Lote {
  id: string;
  nombre: string;
  estado: string;
  lineas: number;
}

const leftovers = (): string[] => readdirSync(process.env['TMPDIR']!).filter((name) => name.startsWith('tariff-lote-'));

async function post(server: Running, body: string | Buffer, type: string, query = ''): Promise<Response> {
  return fetch(`${server.base}/api/v1/lotes${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

/** The refusal's words: a 413's detail, a 422's msg (with loc ["body"]). */
async function refusal(response: Response): Promise<string> {
  const { detail } = (await response.json()) as { detail: string | { loc: unknown[]; msg: string }[] };
  if (typeof detail === 'string') return detail;
  assert.deepEqual(detail[0]!.loc, ['body']);
  return detail[0]!.msg;
}

for (const kind of await storeKinds()) {
  describe(`hostile batch files (${kind})`, () => {
    let db: TestDatabase;
    let server: Running;

    before(async () => {
      db = await createTestDatabase(kind);
      server = await startServer({ DATABASE_URL: db.url, LOTES_POR_USUARIO: '50' });
    });

    after(async () => {
      await server?.close();
      await db?.drop();
    });

    async function finished(id: string): Promise<void> {
      await endedOn(server, id, 120_000);
    }

    // Each of these is refused while the file is read to a local file, before the store is touched
    // (src/http/lotes.ts: spooled, readToFile, and only then the lines stored): the same code on either
    // store, so they are sent to the first store's server only (the wide header, taken, to both).
    if (kind === 'sqlite')
      test('the files of issue 43 are refused naming the bound they pass; the service answers and keeps no file', async () => {
        const total = async (): Promise<number> => (await server.json<{ total: number }>('/api/v1/lotes')).body.total;
        const held = await total();
        const wideNamed = `${Array.from({ length: 300 }, (_, i) => (i === 0 ? 'descripcion' : `c${i}`)).join(',')}\ncaballos\n`;
        const cases: [string, string | Buffer, string, number, RegExp][] = [
          ['16 rows of 16,382 cells of one 20,000-character shared string', crafted.sharedStringBomb(), XLSX, 422, /more than 256 columns/],
          ['a repeated row number', crafted.repeatedRow(), XLSX, 422, /line 2: row 2 comes after row 2/],
          ['an NDJSON line of 200,000 keys', crafted.manyKeys(), NDJSON, 422, /line 1: the line is longer than 262144 characters/],
          ['NDJSON nested 10,000 deep', crafted.deepNdjson(), NDJSON, 422, /line 1: the line nests arrays and objects more than 32 deep/],
          ['a header of 300 named columns', wideNamed, CSV, 422, /more than 256 columns/],
          [
            'NDJSON lines of 300 keys',
            `${JSON.stringify(Object.fromEntries([['descripcion', 'x'], ...Array.from({ length: 299 }, (_, i) => [`k${i}`, i])]))}\n`,
            NDJSON,
            422,
            /300 fields; a line may have at most 256/,
          ],
          ['a value past the header', 'descripcion\ncaballos,x\n', CSV, 422, /line 2: .*a value in column 2, past the header's 1 columns/],
          ['a line of 20,000 characters', `descripcion\n${'x'.repeat(20_000)}\n`, CSV, 422, /line 2: .*16384 characters/],
          ['a header and no line (CSV)', 'descripcion,fraccion\n', CSV, 422, /no lines under its header/],
          ['a header and no line (XLSX)', xlsx({ rows: textRow(1, ['descripcion', 'fraccion']) }), XLSX, 422, /no lines under its header/],
          [
            'a sheet that declares 200 MiB',
            xlsx({ rows: textRow(1, ['descripcion']), sheetDeclaredSize: 200 * 1024 * 1024 }),
            XLSX,
            413,
            /expands to 209715200 bytes; .* at most 134217728/,
          ],
          [
            'a sheet larger than it declares',
            xlsx({ rows: [textRow(1, ['descripcion']), textRow(2, ['caballos'])].join(''), sheetDeclaredSize: 100 }),
            XLSX,
            422,
            /expands to more than the 100 bytes it declares/,
          ],
          [
            'lines that hold more text together than a batch stores',
            xlsx({
              rows: Array.from({ length: 3_000 }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="s"><v>${i === 0 ? 0 : 1}</v></c></row>`).join(''),
              shared: ['descripcion', 'y'.repeat(15_000)],
            }),
            XLSX,
            413,
            /at most 41943040 characters of text/,
          ],
        ];
        for (const [what, body, type, status, message] of cases) {
          const response = await post(server, body, type);
          assert.equal(response.status, status, `${what}: ${response.status}`);
          assert.match(await refusal(response), message, what);
          assert.deepEqual(leftovers(), [], `${what}: no file left behind`);
          assert.equal((await server.json('/health')).status, 200);
        }
        assert.equal(await total(), held, 'nothing stored');

        // 60,000 blank rows reaching column XFD: blank rows are no lines, whatever their last cell.
        const blank = await post(server, crafted.blankRowsToXfd(), XLSX);
        assert.equal(blank.status, 422);
        assert.match(await refusal(blank), /no lines under its header/);
      });

    test('a header of 200,000 empty columns is a header of its named ones: the results are as narrow', async () => {
      const wide = await post(server, crafted.wideHeader(), CSV);
      assert.equal(wide.status, 202);
      const { id } = (await wide.json()) as Lote;
      await finished(id);
      const csv = await (
        await fetch(`${server.base}/api/v1/lotes/${id}/resultados?formato=csv`, { headers: { authorization: `Bearer ${server.token}` } })
      ).text();
      const table: string[][] = parse(csv.replace(/^\uFEFF/, ''));
      const [header] = table;
      assert.equal(header!.length, 25, 'the table columns and no empty extra ones');
      assert.deepEqual(leftovers(), []);
    });

    // Refused while the file is read, before the store is touched: on the first store's server only.
    if (kind === 'sqlite')
      test('a file whose rows are mostly blank is bounded by its rows, blank ones included', async () => {
        const response = await post(server, `descripcion\n${'\n'.repeat(LIMITS.rows)}caballos\n`, CSV);
        assert.equal(response.status, 413);
        assert.match(await refusal(response), /at most 200000 rows, blank ones included/);
      });

    test('downloads: CSV quotes and neutralises for `,`, `;` and line readers; XLSX drops what XML forbids', async () => {
      const texts = ["Café\n=cmd|' /C calc'!A0", 'x;=1+1', '\r\n=1+1', 'a,@SUM(A1)', 'control\u0001 and\u0000 null\u000b', '\t-2+3', 'ok "quoted"', 'x;"=1"'];
      const ndjson = texts.map((t, i) => JSON.stringify({ referencia: `R${i}`, descripcion: t, nota: t })).join('\n');
      const response = await post(server, ndjson, NDJSON);
      assert.equal(response.status, 202, await response.clone().text());
      const { id } = (await response.json()) as Lote;
      await finished(id);
      const base = `${server.base}/api/v1/lotes/${id}/resultados`;
      const headers = { authorization: `Bearer ${server.token}` };

      const csv = (await (await fetch(`${base}?formato=csv`, { headers })).text()).replace(/^\uFEFF/, '');
      // An RFC 4180 reader sees the table: one row a line, every row as wide.
      const rows: string[][] = parse(csv);
      assert.equal(rows.length, 1 + texts.length);
      assert.ok(rows.every((r) => r.length === rows[0]!.length));
      const nota = rows[0]!.indexOf('nota');
      texts.forEach((t, i) => assert.equal(rows[i + 1]![nota]!.replace(/'/g, '').replace(/\p{Cc}/gu, ''), t.replace(/'/g, '').replace(/\p{Cc}/gu, '')));
      // A reader that splits lines first, and then at `;` (Excel in a decimal-comma locale) or at `,`, never meets a formula.
      for (const line of csv.split(/\r\n|\r|\n/)) {
        for (const separator of [';', ',']) {
          for (const piece of line.split(separator))
            assert.doesNotMatch(piece.replace(/^"+/, ''), /^[=+\-@\t]/, `${JSON.stringify(piece)} in ${JSON.stringify(line)}`);
        }
      }

      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(Buffer.from(await (await fetch(`${base}?formato=xlsx`, { headers })).arrayBuffer()) as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      const column = (sheet.getRow(1).values as string[]).indexOf('nota');
      assert.equal(sheet.getRow(1 + 5).getCell(column).value, 'control and null', 'the controls XML forbids are dropped');
      assert.equal(sheet.getRow(1 + 2).getCell(column).value, 'x;=1+1', 'a string cell, kept as sent');
    });

    test('nombre keeps no control character', async () => {
      const named = await post(server, 'descripcion\ncaballos\n', CSV, `?nombre=${encodeURIComponent(' lote\r\nde\u0000 prueba\t ')}`);
      assert.equal(named.status, 202);
      assert.equal(((await named.json()) as Lote).nombre, 'lotede prueba');
      const blankName = await post(server, 'descripcion\ncaballos\n', CSV, `?nombre=${encodeURIComponent('\r\n')}`);
      assert.equal(blankName.status, 202);
      const { nombre } = (await blankName.json()) as Lote;
      assert.match(nombre, /^\d{4}-\d{2}-\d{2}T/, 'a name of controls only is the upload time');
    });

    // The archive is read before the store is touched, and its one line stored as any other: on the first store's server only.
    if (kind === 'sqlite')
      test('an XLSX whose archive gives its sizes in ZIP64 fields (as streaming writers do) is read as any other', async () => {
        const rows = [textRow(1, ['referencia', 'descripcion']), textRow(2, ['Z1', 'caballos'])].join('');
        const response = await post(server, xlsx({ rows, zip64: true }), XLSX);
        assert.equal(response.status, 202, await response.clone().text());
        assert.equal(((await response.json()) as Lote).lineas, 1);
      });

    // Cut while it is spooled, before the store is touched: on the first store's server only.
    if (kind === 'sqlite')
      test('an upload cut short stores nothing and leaves no file', async () => {
        const listed = async (): Promise<number> => (await server.json<{ total: number }>('/api/v1/lotes')).body.total;
        const held = await listed();
        const url = new URL(`${server.base}/api/v1/lotes`);
        await new Promise<void>((resolve) => {
          const headers = { authorization: `Bearer ${server.token}`, 'content-type': CSV };
          const client = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers });
          client.on('error', () => resolve());
          client.write(`descripcion\n${'caballos\n'.repeat(50_000)}`, () => {
            client.destroy();
            resolve();
          });
        });
        await waitFor('the cut upload handled', async () => leftovers().length === 0 && (await server.json('/health')).status === 200);
        assert.equal(await listed(), held);
      });

    // Refused while the file is read, before the store is touched: on the first store's server only.
    if (kind === 'sqlite')
      test('issue 47: an XLSX whose first row is empty has no header', async () => {
        const response = await post(server, xlsx({ rows: [textRow(2, ['descripcion']), textRow(3, ['caballos'])].join('') }), XLSX);
        assert.equal(response.status, 422);
        assert.match(await refusal(response), /line 1: the file has no header: its first row, which names the columns, is empty/);
      });

    test('issue 47: lines as sent: NDJSON extra fields keep their JSON type, leading tabs and CRs stay, neutralised only in CSV', async () => {
      const line = { referencia: '\tTAB', descripcion: '\rcaballos reproductores', peso: 12.5, ok: true, tags: ['a', 1], nada: null, texto: ' dos ' };
      const response = await post(server, `${JSON.stringify(line)}\n`, NDJSON);
      assert.equal(response.status, 202, await response.clone().text());
      const { id } = (await response.json()) as Lote;
      await finished(id);
      const page = await server.json<{ items: { referencia: string; descripcion: string; extra: Record<string, unknown>; candidatas: unknown[] }[] }>(
        `/api/v1/lotes/${id}/resultados`,
      );
      const [result] = page.body.items;
      assert.equal(result!.referencia, '\tTAB');
      assert.equal(result!.descripcion, '\rcaballos reproductores');
      assert.deepEqual(result!.extra, { peso: 12.5, ok: true, tags: ['a', 1], nada: null, texto: ' dos ' });
      const csv = await (
        await fetch(`${server.base}/api/v1/lotes/${id}/resultados?formato=csv`, { headers: { authorization: `Bearer ${server.token}` } })
      ).text();
      const table: string[][] = parse(csv.replace(/^\uFEFF/, ''));
      const [header, row] = table;
      const at = (name: string): string => row![header!.indexOf(name)]!;
      assert.equal(at('referencia'), "'\tTAB");
      assert.equal(at('descripcion'), "'\rcaballos reproductores");
      assert.equal(at('peso'), '12.5');
      assert.equal(at('tags'), '["a",1]');
    });

    // The 20 MiB bound is met while the upload is spooled (src/http/lotes-upload.ts), before the file is
    // read or anything is stored: the same code on either store, so these 24 MiB are sent to the first store's server only.
    if (kind === 'sqlite')
      test('issue 47: a body past 20 MiB gets a 413 the client reads, with or without a length, as it writes the rest', async () => {
        const send = (chunked: boolean): Promise<number | string> =>
          new Promise((resolve) => {
            const total = 24 * 1024 * 1024;
            const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, 'content-type': CSV };
            if (!chunked) headers['content-length'] = String(total);
            const url = new URL(`${server.base}/api/v1/lotes`);
            const client = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers });
            client.on('response', (response) => {
              response.resume();
              response.on('end', () => resolve(response.statusCode!));
            });
            client.on('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
            // Written as a client that reads only once its body is out (as curl does), at the socket's pace.
            void (async () => {
              const piece = Buffer.alloc(256 * 1024, 'a');
              for (let sent = 0; sent < total && !client.destroyed; sent += piece.length) {
                if (!client.write(piece)) await new Promise((drained) => client.once('drain', drained));
              }
              client.end();
            })();
          });
        assert.equal(await send(false), 413);
        assert.equal(await send(true), 413);
        assert.deepEqual(leftovers(), []);
      });

    test('a batch whose client is gone before the commit is not stored', async () => {
      const tables = new LotesTables(openWorkDb(server.config));
      const batch = newBatch('ausente');
      const file = {
        lines: 1,
        extraColumns: [],
        stored: async function* () {
          yield await Promise.resolve('2\t{"values":{"descripcion":"caballos"},"extra":{}}\n');
        },
      };
      assert.equal(await tables.create(batch, 3, file, () => false), 'unwanted');
      assert.equal(await tables.byId(batch.id), undefined);
      assert.equal(await tables.active('cuenta-ausente'), 0);
      assert.equal(await tables.create(batch, 3, file, () => true), 'stored');
      assert.equal((await tables.byId(batch.id))?.lineas, 1);
      await tables.db.close();
    });

    test('lines reach lotes_lineas from the lines file as written, across its pieces', async () => {
      // Values that JSON escapes (tab, line breaks), characters of two to four bytes, and lines longer
      // than one 64 KiB read, so that pieces end inside a character's bytes and inside a line.
      const values = (i: number): Record<string, string> => ({
        referencia: `\tR${i}\r`,
        descripcion: `${'ñandú 🐎 \u2028'.repeat(i % 3 === 0 ? 2500 : 3)} línea\n${i}`,
      });
      const raw = Array.from({ length: 40 }, (_, k) => ({ linea: 2 + 3 * k, values: values(k), extra: { peso: k + 0.5, nota: null } }));
      const dir = mkdtempSync(join(tmpdir(), 'lotes-lineas-'));
      const path = join(dir, 'lineas');
      writeFileSync(path, raw.map((line) => lineText(storedLine(line))).join(''));
      const pieces: string[] = [];
      for await (const piece of linePieces(path)) pieces.push(piece);
      assert.ok(pieces.length > 1);
      for (const piece of pieces) assert.equal(piece.at(-1), '\n');
      assert.equal(pieces.join(''), readFileSync(path, 'utf8'));
      const tables = new LotesTables(openWorkDb(server.config));
      const batch = newBatch('lineas');
      const file = { lines: raw.length, extraColumns: ['peso', 'nota'], stored: () => linePieces(path) };
      assert.equal(await tables.create(batch, 3, file), 'stored');
      assert.deepEqual(await tables.nextLines(batch.id, 0, 100), raw);
      assert.deepEqual(await tables.nextLines(batch.id, raw[9]!.linea, 2), raw.slice(10, 12));
      await tables.cancelOrRemove(batch.id, 'cuenta-lineas', new Date().toISOString());
      await tables.db.close();
      rmSync(dir, { recursive: true, force: true });
    });
  });
}
