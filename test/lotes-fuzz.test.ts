/**
 * A fuzz of the batch readers (issue 43) against the started server on both stores: random and
 * structured hostile CSV, NDJSON and XLSX files (quotes, separators and line breaks in the wrong
 * places, BOMs, controls, lone surrogates, long texts, deep JSON, rows out of order, cells in any
 * column, shared strings that are not there, sizes that lie, damaged archives) are taken or refused
 * with a 413 or 422 in the contract's shape: never a 5xx, never a crash, never a file left behind.
 * The run counts are modest (a busy 2-core machine): fast-check prints the seed of any failure.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { storeKinds } from './stores.js';
import { createTestDatabase } from './databases.js';
import { startServer } from './servers.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { cellRef, xlsx, xmlText } from './hostile-files.js';

process.env['TMPDIR'] = mkdtempSync(join(tmpdir(), 'lotes-fuzz-'));

const TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ndjson: 'application/x-ndjson',
} as const;

const RUNS = 25;

/** Texts that have broken readers: separators, quotes, line breaks, formulas, controls, BOMs, lone surrogates, column names. */
const nasty = fc.oneof(
  { weight: 10, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '"',
      '""',
      '"a"b',
      ',',
      ';',
      '\r',
      '\n',
      '\r\n',
      '\t',
      '=1+1',
      '@SUM(A1)',
      '\u0000',
      '\uFEFF',
      '\uD800',
      '\uDFFF',
      '_x000D_',
      '&amp;',
      '<t>',
      ']]>',
    ),
  },
  { weight: 4, arbitrary: fc.constantFrom('descripcion', 'fraccion', 'referencia', 'nico', 'valor_aduana', 'Descripción', '0101.21.01', '01012101', '99') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)) },
);

/** Mostly a header a batch takes (with descripcion), now and then any. */
const headerOf = <T>(cells: fc.Arbitrary<T[]>, first: T): fc.Arbitrary<T[]> =>
  fc.tuple(fc.boolean(), fc.boolean(), cells).map(([plain, any, rest]) => (plain || !any ? [first, ...rest] : rest));

const widthOf = (header: number): fc.Arbitrary<number> =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(Math.max(1, header)) }, { weight: 1, arbitrary: fc.constant(header + 2) });

const csvFile = fc
  .record({
    delimiter: fc.constantFrom(',', ';'),
    lineBreak: fc.constantFrom('\n', '\r\n', '\r'),
    bom: fc.boolean(),
    header: headerOf(fc.array(fc.oneof(nasty, fc.constantFrom('descripcion', 'fraccion')), { maxLength: 12 }), 'descripcion'),
    tail: fc.constantFrom('', '', '', '"', ',,,,', '\n\n\n', '"unterminated'),
  })
  .chain((file) =>
    // Rows mostly no wider than the header, now and then wider.
    widthOf(file.header.length).chain((width) =>
      fc.array(fc.array(fc.tuple(nasty, fc.boolean()), { maxLength: width }), { maxLength: 30 }).map((rows) => ({ ...file, rows })),
    ),
  )
  .map(({ delimiter, lineBreak, bom, header, rows, tail }) => {
    const cell = ([text, quoted]: [string, boolean]): string => (quoted ? `"${text.replace(/"/g, '""')}"` : text);
    const lines = [header.map((h) => cell([h, false])).join(delimiter), ...rows.map((r) => r.map(cell).join(delimiter))];
    return `${bom ? '\uFEFF' : ''}${lines.join(lineBreak)}${tail}`;
  });

/** JSON values up to some depth, and now and then one far deeper than a line may nest. */
const ndjsonFile = fc
  .array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .dictionary(
            fc.oneof(fc.constantFrom('descripcion', 'fraccion', 'nico', 'extra'), nasty),
            fc.oneof(
              nasty.map((s): unknown => s),
              fc.jsonValue({ maxDepth: 4 }),
            ),
            {
              maxKeys: 12,
            },
          )
          .map((o) => JSON.stringify(o)),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.integer({ min: 30, max: 5_000 }).map((depth) => `{"descripcion":"x","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`) },
      { weight: 1, arbitrary: nasty },
    ),
    { maxLength: 30 },
  )
  .chain((lines) => fc.constantFrom('\n', '\r\n').map((lineBreak) => lines.join(lineBreak)));

/** A cell of any type SpreadsheetML has, in any column, pointing at shared strings that may not exist. */
const xlsxCell = (width: number): fc.Arbitrary<(row: number) => string> =>
  fc
    .record({
      column: fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 0, max: Math.max(0, width - 1) }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 16_383 }) },
      ),
      type: fc.constantFrom('s', 'inlineStr', 'n', 'b', 'e', 'str', 'd', undefined),
      text: nasty,
      index: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 2 }) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 12 }) }),
      withReference: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    })
    .map(({ column, type, text, index, withReference }) => (row: number): string => {
      const reference = withReference ? ` r="${cellRef(column, row)}"` : '';
      if (type === 'inlineStr') return `<c${reference} t="inlineStr"><is><t>${xmlText(text)}</t></is></c>`;
      if (type === 's') return `<c${reference} t="s"><v>${index}</v></c>`;
      return `<c${reference}${type === undefined ? '' : ` t="${type}"`}><v>${xmlText(text)}</v></c>`;
    });

const xlsxFile = headerOf(fc.array(fc.constantFrom('descripcion', 'fraccion', 'referencia', 'nota', '', '&amp;'), { maxLength: 6 }), 'descripcion')
  .chain((header) =>
    fc.record({
      header: fc.constant(header),
      rows: fc.array(
        fc.record({
          // Mostly in order, now and then any number (twice, backwards, far ahead).
          number: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 1_048_576 }) }),
          cells: fc.array(xlsxCell(header.length), { maxLength: Math.max(1, header.length) }),
        }),
        { maxLength: 25 },
      ),
      shared: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: fc.array(nasty, { minLength: 3, maxLength: 10 }) }),
      // Now and then: a size that lies, a damaged byte.
      declared: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }),
      damage: fc.oneof(
        { weight: 8, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }) },
      ),
    }),
  )
  .map(({ header, rows, shared, declared, damage }) => {
    const headerRow = `<row r="1">${header.map((h, i) => `<c r="${cellRef(i, 1)}" t="inlineStr"><is><t>${h}</t></is></c>`).join('')}</row>`;
    const body = rows
      .map((r, i) => {
        const number = r.number ?? i + 2;
        return `<row r="${number}">${r.cells.map((c) => c(number)).join('')}</row>`;
      })
      .join('');
    const file = xlsx({ rows: headerRow + body, ...(shared === null ? {} : { shared }), ...(declared === null ? {} : { sheetDeclaredSize: declared }) });
    for (const [at, byte] of damage) file[at % file.length] = byte;
    return file;
  });

const randomBytes = fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes));

for (const kind of await storeKinds()) {
  describe(`a fuzz of the batch readers (${kind})`, () => {
    let db: TestDatabase;
    let server: Running;

    before(async () => {
      db = await createTestDatabase(kind);
      // No worker: the fuzz is of the readers; every batch taken stays queued, within a generous per-user limit.
      server = await startServer({ DATABASE_URL: db.url, LOTES_POR_USUARIO: '1000' }, { user: 'fuzz', app: { lotesWorker: false } });
    });

    after(async () => {
      await server?.close();
      await db?.drop();
    });

    /** Sends the file: a 202, or a 413/422 in the contract's shape; no 5xx, and nothing left in the temporary directory. */
    async function sent(body: string | Buffer, type: string): Promise<void> {
      const response = await server.authed.fetch('/api/v1/lotes', {
        method: 'POST',
        headers: { 'content-type': type },
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });
      const text = await response.text();
      assert.ok([202, 413, 422].includes(response.status), `${response.status} ${text.slice(0, 300)}`);
      const { detail } = JSON.parse(text) as { detail?: unknown };
      if (response.status === 413) assert.equal(typeof detail, 'string');
      if (response.status === 422) {
        const [first] = detail as { loc: unknown[]; msg: string; type: string }[];
        assert.deepEqual(first!.loc, ['body']);
        assert.equal(typeof first!.msg, 'string');
      }
      assert.deepEqual(
        readdirSync(process.env['TMPDIR']!).filter((name) => name.startsWith('tariff-lote-')),
        [],
      );
    }

    test('hostile CSV', async () => {
      await fc.assert(
        fc.asyncProperty(csvFile, (file) => sent(file, TYPES.csv)),
        { numRuns: RUNS },
      );
    });

    test('hostile NDJSON', async () => {
      await fc.assert(
        fc.asyncProperty(ndjsonFile, (file) => sent(file, TYPES.ndjson)),
        { numRuns: RUNS },
      );
    });

    test('hostile XLSX', async () => {
      await fc.assert(
        fc.asyncProperty(xlsxFile, (file) => sent(file, TYPES.xlsx)),
        { numRuns: RUNS * 2 },
      );
    });

    test('random bytes as each type', async () => {
      await fc.assert(
        fc.asyncProperty(randomBytes, fc.constantFrom(...Object.values(TYPES)), (bytes, type) => sent(bytes, type)),
        { numRuns: RUNS },
      );
      assert.equal((await fetch(`${server.base}/health`)).status, 200);
    });
  });
}
