/**
 * A batch's file read a chunk of lines at a time (src/lotes/read.ts): what the readers hand on is the
 * file's lines, whole and in order, however the bytes fall; a refusal names the file's problem, and a
 * failure of whoever takes the lines stays that failure. The results written back (src/lotes/write.ts)
 * keep every character.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import type { Resultado } from '../../src/lotes/answer.js';
import type { RawLine } from '../../src/lotes/columns.js';
import type { FileFormat } from '../../src/lotes/read.js';
import { CHUNK_LINES, FileError, readAllLines, readFile } from '../../src/lotes/read.js';
import { csvChunks, xlsxStream } from '../../src/lotes/write.js';

async function xlsx(rows: string[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('lineas');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Line i's description: accents, eñes, a euro sign and (but in XLSX) an emoji: two-, three- and four-byte characters. */
function description(format: FileFormat, i: number): string {
  // ExcelJS's writer (4.4) garbles a character outside the BMP in a long sharedStrings part: the test's
  // XLSX would hold U+FFFD, so its lines go without the emoji.
  return `Café tostado ñandú ${'é'.repeat(i % 7)} € ${format === 'xlsx' ? '' : '🚗 '}${i}`;
}

/** The same lines in each format: a reference and a description. */
async function files(count: number): Promise<[FileFormat, Buffer][]> {
  const rows = (format: FileFormat): string[][] => Array.from({ length: count }, (_, i) => [`R${i}`, description(format, i)]);
  const csv = `referencia,descripcion\n${rows('csv')
    .map((r) => r.join(','))
    .join('\n')}\n`;
  const ndjson = rows('ndjson')
    .map(([referencia, descripcion]) => JSON.stringify({ referencia, descripcion }))
    .join('\n');
  return [
    ['csv', Buffer.from(csv)],
    ['ndjson', Buffer.from(ndjson)],
    ['xlsx', await xlsx([['referencia', 'descripcion'], ...rows('xlsx')])],
  ];
}

test('every line is handed on whole and in order, in chunks, whatever byte a character starts at', async () => {
  // Over 64 KiB, the piece a parser is fed: two-, three- and four-byte characters fall across the cuts.
  const count = 10 * CHUNK_LINES + 345;
  for (const [format, whole] of await files(count)) {
    // Whole, as the command line reads it, and as an upload arrives: in pieces cut anywhere.
    for (const body of [whole, pieces(whole, 997)]) {
      await everyLine(format, body, count);
    }
  }
});

/** `bytes` as a stream of pieces of `size` bytes (the last shorter). */
async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) {
    await setImmediate();
    yield bytes.subarray(at, at + size);
  }
}

async function everyLine(format: FileFormat, body: Buffer | AsyncIterable<Uint8Array>, count: number): Promise<void> {
  const chunks: RawLine[][] = [];
  const read = await readFile(format, body, (chunk) => void chunks.push(chunk));
  assert.equal(read.lines, count, format);
  assert.ok(
    chunks.every((c) => c.length <= CHUNK_LINES),
    format,
  );
  assert.equal(chunks.length, Math.ceil(count / CHUNK_LINES), format);
  const lines = chunks.flat();
  lines.forEach((line, i) => {
    assert.equal(line.values.descripcion, description(format, i), `${format} line ${line.linea}`);
    assert.equal(line.values.referencia, `R${i}`);
  });
  assert.ok(
    lines.every((line, i) => i === 0 || line.linea > lines[i - 1]!.linea),
    `${format}: file order`,
  );
}

test('a UTF-8 BOM is no part of the first header, and a file of other bytes is refused', async () => {
  const read = await readAllLines('csv', Buffer.from('\uFEFFdescripcion;extra\ncaballo;1\n'));
  assert.deepEqual(read.lines, [{ linea: 2, values: { descripcion: 'caballo' }, extra: { extra: '1' } }]);
  // A BOM cut across an upload's first pieces is a BOM too.
  const cut: RawLine[] = [];
  await readFile('csv', pieces(Buffer.from('\uFEFFdescripcion;extra\ncaballo;1\n'), 1), (chunk) => void cut.push(...chunk));
  assert.deepEqual(cut, read.lines);
  let taken = 0;
  const latin1 = Buffer.from('descripcion\ncaf\xe9\n', 'latin1');
  await assert.rejects(
    readFile('csv', latin1, () => void taken++),
    (error: unknown) => error instanceof FileError && /not UTF-8/.test(error.message),
  );
  assert.equal(taken, 0);
});

test('a file refused at a late line has had its earlier lines handed on: the refusal still names the line', async () => {
  const good = Array.from({ length: CHUNK_LINES + 10 }, (_, i) => JSON.stringify({ fraccion: `0101210${i % 10}` }));
  const body = Buffer.from(`${good.join('\n')}\n{"fraccion": \n`);
  let taken = 0;
  await assert.rejects(
    readFile('ndjson', body, (chunk) => void (taken += chunk.length)),
    (error: unknown) => error instanceof FileError && error.line === CHUNK_LINES + 11,
  );
  assert.equal(taken, CHUNK_LINES, 'the first chunk was taken (the caller undoes it)');
});

test("a failure of the bytes' source (an upload cut short) is that failure, never called the file's", async () => {
  const failure = new Error('the connection was lost');
  for (const [format, body] of await files(CHUNK_LINES * 3)) {
    async function* cut(): AsyncGenerator<Uint8Array> {
      yield* pieces(body.subarray(0, body.length >> 1), 4096);
      throw failure;
    }
    await assert.rejects(
      readFile(format, cut(), () => undefined),
      (error: unknown) => error === failure,
      format,
    );
  }
});

test("a failure of whoever takes the lines is that failure, never called the file's", async () => {
  const failure = new Error('the database went away');
  for (const [format, body] of await files(CHUNK_LINES + 1)) {
    await assert.rejects(
      readFile(format, body, () => Promise.reject(failure)),
      (error: unknown) => error === failure,
      format,
    );
  }
});

test('a download keeps every character a client sent: the XLSX and CSV of results with emoji, eñes and euro signs', async () => {
  const results: Resultado[] = Array.from({ length: 10 * CHUNK_LINES + 345 }, (_, i) => ({
    linea: i + 2,
    referencia: `R${i}`,
    descripcion: description('csv', i),
    extra: { nota: `🚗 ${i}` },
    fraccion: null,
    nico: null,
    estado_fraccion: 'sin_fraccion',
    reemplazada_por: [],
    candidatas: [],
    coincide: null,
    igi: null,
    preferencia: null,
    sin_datos_preferencia: false,
    requisitos: null,
    contribuciones: null,
    revisar: true,
    error: null,
  }));
  // Pages come as the database gives them, a turn of the event loop apart.
  async function* pages(): AsyncGenerator<Resultado[]> {
    for (let i = 0; i < results.length; i += 100) {
      await setImmediate();
      yield results.slice(i, i + 100);
    }
  }
  const bytes: Buffer[] = [];
  for await (const chunk of xlsxStream(pages(), ['nota'])) bytes.push(chunk as Buffer);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.concat(bytes) as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as string[]).slice(1);
  const [descripcion, nota] = [header.indexOf('descripcion') + 1, header.indexOf('nota') + 1];
  results.forEach((r, i) => {
    const row = sheet.getRow(i + 2);
    assert.equal(row.getCell(descripcion).value, r.descripcion, `XLSX row ${i + 2}`);
    assert.equal(row.getCell(nota).value, r.extra['nota']);
  });
  let csv = '';
  for await (const chunk of csvChunks(pages(), ['nota'])) csv += chunk;
  for (const r of results) assert.ok(csv.includes(`${r.descripcion},`) && csv.includes(String(r.extra['nota'])), `CSV line ${r.linea}`);
});

test('a file the parsers cannot read is refused in the service’s words, never the parser’s message', async () => {
  const refusal = async (format: FileFormat, body: Buffer): Promise<string> => {
    let message = '';
    await assert.rejects(
      readFile(format, body, () => undefined),
      (error: unknown) => error instanceof FileError && ((message = error.message), true),
    );
    return message;
  };
  const workbook = await xlsx([['descripcion'], ['caballo']]);
  // Not a ZIP archive at all (the ZIP reader says "invalid signature"), and a workbook cut short ("FILE_ENDED").
  for (const body of [Buffer.from('descripcion\ncaballo\n'), workbook.subarray(0, workbook.length >> 1)]) {
    const message = await refusal('xlsx', body);
    assert.match(message, /^the file cannot be read as XLSX \((it is not a ZIP archive|[a-z ,'’]+)\)$/);
    assert.doesNotMatch(message, /signature|FILE_ENDED|0x|Error/i);
  }
  assert.equal(
    await refusal('csv', Buffer.from('descripcion,fraccion\n"caballo,01012101\n')),
    'line 2: the file cannot be read as CSV: a quoted value is never closed',
  );
});
