/**
 * The import pipeline over real files: refused rows and refused files, strict mode, the CLI in this
 * process and as a process, and a real server reloading on SIGHUP. The demo dataset through export →
 * import, an import killed half-way and a switch under load are import-demo.test.ts (the demo's
 * export, a minute of a core on a busy machine, runs beside these tests in another test process).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import type { ImportReport } from '../src/data/import.js';
import { recordSets } from '../src/record-sets/index.js';
import { startBuild } from '../src/store/drivers.js';
import { defer, waitFor } from './lifetime.js';
import { TEST_ENV } from './service-env.js';
import { TEST_PASSWORD, TEST_USER, login } from './clients.js';
import { outcomeOf } from './commands.js';
import { ALADI2_GOOD, fileHash, importScene, imported, mainStoreHash, runCli, startCli, summary } from './imports.js';

const { dir, folder, mainFileCopy, serving } = importScene('tariff-import-');

// ---------------------------------------------------------------------------------------------
// Inputs

const USA_GOOD = [
  { CONSECUTIVO: 1, FRACCION_SIN_PUNTO: '0101210010', FRACCION_CON_PUNTO: '0101.21.00.10', NIVEL: 2, DESCRIPCION: 'Males' },
  { CONSECUTIVO: 2, FRACCION_SIN_PUNTO: '0101210020', FRACCION_CON_PUNTO: '0101.21.00.20', NIVEL: 2, DESCRIPCION: 'Females' },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

/** One row of each kind of refusal among good ones; the comment is the physical line. */
const ALADI2_MIXED = [
  'SYSID,FRACCION,NICO,PAIS,TASANUM,TIPOTASA,DOF,NOTAS', // 1
  '1,01012101,00,USA,10.5,1,20200101,good', // 2
  '2,01012101,00,USA,1,x,20200101,bad int', // 3
  '3,01012101,00,USAX,1,1,20200101,too long', // 4
  '4,01012101,00,USA,1.234,1,20200101,bad decimal', // 5
  '5,01012101,00,USA,1,1,2020-01-01,bad date', // 6
  ',01012101,00,USA,1,1,20200101,missing id', // 7
  '1,01012999,00,USA,1,1,20200101,duplicate id', // 8
  '8,01012101,00,USA,1,1,20200101,too,many', // 9
  '9,01012101,00,USA,1,1,20200101,"two', // 10
  'lines"', // 11
  '10,01012101,00,USA,123456,1,20200101,decimal too large', // 12
  '', // 13: empty lines are skipped
  '11,01012101,00,USA,1,1,20200101,good', // 14
].join('\n');

const MIXED_REFUSALS: [line: number, field: string | null, reason: RegExp][] = [
  [3, 'TIPOTASA', /not an integer/],
  [4, 'PAIS', /longer than 3/],
  [5, 'TASANUM', /not a decimal/],
  [6, 'DOF', /YYYYMMDD/],
  [7, 'SYSID', /identifier missing/],
  [8, 'SYSID', /duplicate identifier SYSID=1/],
  [9, null, /9 fields where the header has 8/],
  [12, 'TASANUM', /not a decimal/],
];

// ---------------------------------------------------------------------------------------------

describe('a good import', () => {
  const ctx = serving();

  test('replaces the record sets it has files for, keeps the others and the users, and the service switches by itself', async () => {
    const { mainFile, server } = ctx;
    const before = await mainStoreHash(server);
    const report = await imported(folder({ 'aladi2.csv': ALADI2_GOOD, 'fracciones-usa.jsonl': USA_GOOD, 'notes.txt': 'x' }), mainFile, {
      source: 'vendor drop 2026-06',
    });
    assert.equal(report.failure, null, summary(report));
    assert.deepEqual(
      report.files.map((f) => [f.file, f.rows, f.imported, f.refused]),
      [
        ['aladi2.csv', 2, 2, 0],
        ['fracciones-usa.jsonl', 2, 2, 0],
      ],
    );
    assert.deepEqual(report.ignored, [{ file: 'notes.txt', reason: 'not a .csv or .jsonl file' }]);
    assert.equal(report.kept.length, recordSets.length - 2);
    assert.ok(report.rowsPerSecond > 0);

    await waitFor('the service to switch', async () => (await mainStoreHash(server)) === report.dataset?.hash);
    assert.notEqual(report.dataset?.hash, before);
    const health = (await (await server.get('/health')).json()) as { dataset: { source: string; counts: Record<string, number> } };
    assert.equal(health.dataset.source, 'vendor drop 2026-06');
    assert.equal(health.dataset.counts['aladi2'], 2);
    assert.equal(health.dataset.counts['cupos'], 8, 'a record set with no file is kept');

    const aladi2 = await server.json<Record<string, unknown>[]>('/api/v1/aladi2/');
    assert.equal(aladi2.status, 200, 'the token issued before the import still works: users are carried over');
    assert.deepEqual(
      aladi2.body.map((r) => [r['SYSID'], r['TASANUM'], r['NOTAS'], r['OBSERVACIONES'], r['TASATXT']]),
      [
        [10, '10.50', 'con coma, y "comillas"', 'dos\r\nlíneas', null],
        [11, null, null, null, null],
      ],
    );
    const usa = await server.json<{ items: Record<string, unknown>[] }>('/api/v1/fracciones-usa/?fraccion=0101.21.00.10');
    assert.deepEqual(
      usa.body.items.map((r) => r['DESCRIPCION']),
      ['Males'],
    );
    assert.equal((await login(server.base, TEST_USER, TEST_PASSWORD)).status, 200);
  });

  test('--empty-missing empties the record sets that have no file', async () => {
    const { mainFile } = ctx;
    const report = await imported(folder({ 'aladi2.csv': ALADI2_GOOD }), mainFile, { emptyMissing: true });
    assert.equal(report.failure, null, summary(report));
    assert.equal(report.emptied.length, recordSets.length - 1);
    assert.deepEqual(report.kept, []);
    assert.equal(report.dataset?.counts['cupos'], 0);
    assert.equal(report.dataset?.counts['aladi2'], 2);
  });

  test('characters cut across read chunks arrive whole', async (t) => {
    const { mainFile } = ctx;
    const notes = 'Ñandú café ü 🐎 '.repeat(25);
    const rows = Array.from({ length: 400 }, (_, i) => `${i + 1},01012101,"${notes}"`);
    const report = await imported(folder({ 'aladi2.csv': ['SYSID,FRACCION,OBSERVACIONES', ...rows].join('\n') }), mainFile);
    assert.equal(report.failure, null, summary(report));
    assert.equal(report.files[0]?.imported, 400);
    const db = new Database(mainFile, { readonly: true });
    defer(t, () => db.close());
    const values = db.prepare('SELECT DISTINCT "OBSERVACIONES" FROM "aladi2"').pluck().all();
    assert.deepEqual(values, [notes]);
  });
});

describe('refused rows', () => {
  let mainFile: string;
  before(() => {
    mainFile = mainFileCopy();
  });

  test('each kind is listed with its file, line, field and reason; the valid rows are imported', async () => {
    const report = await imported(folder({ 'aladi2.csv': ALADI2_MIXED }), mainFile);
    assert.equal(report.failure, null);
    assert.equal(report.imported, true);
    assert.deepEqual(
      report.refusals.map((r) => [r.file, r.line, r.field]),
      MIXED_REFUSALS.map(([line, field]) => ['aladi2.csv', line, field]),
    );
    report.refusals.forEach((r, i) => assert.match(r.reason, MIXED_REFUSALS[i]![2], r.reason));
    assert.equal(report.refusedRows, MIXED_REFUSALS.length);
    assert.deepEqual(
      report.files.map((f) => [f.rows, f.imported, f.refused]),
      [[11, 3, 8]],
    );
    assert.equal(report.dataset?.counts['aladi2'], 3);
  });

  test('unknown columns are reported and ignored; absent ones are reported and stored empty', async () => {
    const report = await imported(folder({ 'aladi2.csv': 'SYSID,FRACCION,COLOR\n1,01012101,azul\n' }), mainFile);
    assert.equal(report.failure, null);
    assert.deepEqual(report.files[0]?.unknownColumns, ['COLOR']);
    assert.ok(report.files[0]?.absentColumns.includes('PAIS'));
    assert.equal(report.refusedRows, 0);
    assert.equal(report.dataset?.counts['aladi2'], 1);
  });

  test('JSON lines: a line that is not JSON, not an object, or not valid is refused with its line', async () => {
    const lines = [
      '{"CONSECUTIVO": 1, "FRACCION_SIN_PUNTO": "0101210010"}',
      'not json',
      '[1, 2]',
      '{"CONSECUTIVO": 2, "NIVEL": 1.5}',
      '',
      '{"FRACCION_SIN_PUNTO": "01"}',
      '{"CONSECUTIVO": 3, "EXTRA": true}',
    ];
    const report = await imported(folder({ 'fracciones-usa.jsonl': lines.join('\n') }), mainFile);
    assert.equal(report.failure, null);
    assert.deepEqual(
      report.refusals.map((r) => [r.line, r.field]),
      [
        [2, null],
        [3, null],
        [4, 'NIVEL'],
        [6, 'CONSECUTIVO'],
      ],
    );
    assert.deepEqual(report.files[0]?.unknownColumns, ['EXTRA']);
    assert.equal(report.dataset?.counts['fracciones-usa'], 2);
  });

  test('the CLI prints the report, one line on stderr, and exits 2', async () => {
    const outcome = await runCli(['import', folder({ 'aladi2.csv': ALADI2_MIXED })], mainFile);
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(outcome.stdout, /^ {2}aladi2\.csv:3: TIPOTASA: not an integer: x$/m);
    assert.match(outcome.stdout, /rows\/s/);
    assert.equal(outcome.stderr.trim().split('\n').length, 1);
    assert.match(outcome.stderr, /8 rows refused/);
  });
});

describe('refused files: nothing is imported and the main file is untouched', () => {
  let mainFile: string;
  before(() => {
    mainFile = mainFileCopy();
  });
  const latin1 = Buffer.concat([Buffer.from('SYSID,NOTAS\n1,ok\n2,'), Buffer.from('café', 'latin1'), Buffer.from('\n3,ok\n')]);
  // More than one 64 KiB read chunk before the bad byte.
  const manyRows = Array.from({ length: 8000 }, (_, i) => `${i + 1},fila ${i + 1}`).join('\n');
  const cases: [name: string, files: Record<string, string | Buffer>, message: RegExp][] = [
    ['a header without the identifier', { 'aladi2.csv': 'FRACCION,PAIS\n01012101,USA\n' }, /^aladi2\.csv:1: the header has no SYSID column/],
    ['a header without part of a two-column identifier', { 'tlcs.csv': 'SYSID,PAIS\n1,USA\n' }, /^tlcs\.csv:1: the header has no FRACCION column/],
    ['Latin-1 text', { 'aladi2.csv': latin1 }, /^aladi2\.csv:3: not valid UTF-8/],
    [
      'invalid UTF-8 past the first read chunk',
      { 'aladi2.csv': Buffer.concat([Buffer.from(`SYSID,NOTAS\n${manyRows}\n`), Buffer.from([0x31, 0x2c, 0xff, 0x0a])]) },
      /^aladi2\.csv:8002: not valid UTF-8/,
    ],
    ['UTF-16', { 'aladi2.csv': Buffer.from('\uFEFFSYSID,NOTAS\n1,ok\n', 'utf16le') }, /^aladi2\.csv:1: not valid UTF-8/],
    [
      'a file cut inside a character',
      { 'aladi2.csv': Buffer.concat([Buffer.from('SYSID,NOTAS\n1,caf'), Buffer.from([0xc3])]) },
      /^aladi2\.csv:2: not valid UTF-8/,
    ],
    ['a gzip file', { 'aladi2.csv': gzipSync('SYSID\n1\n') }, /^aladi2\.csv:1: not valid UTF-8/],
    ['a stray quote', { 'aladi2.csv': 'SYSID,NOTAS\n1,ok\n2,a "quoted" word\n' }, /^aladi2\.csv:3: not CSV/],
    ['a quote never closed', { 'aladi2.csv': 'SYSID,NOTAS\n1,"open\n2,x\n' }, /^aladi2\.csv:\d+: not CSV/],
    ['an empty file', { 'aladi2.csv': '' }, /^aladi2\.csv:1: empty/],
    ['a column named twice', { 'aladi2.csv': 'SYSID,PAIS,PAIS\n1,USA,MEX\n' }, /^aladi2\.csv:1: the header names the column PAIS twice/],
    ['two files for one record set', { 'aladi2.csv': ALADI2_GOOD, 'aladi2.jsonl': '{}' }, /^aladi2\.jsonl: aladi2\.csv holds aladi2 too/],
    ['no file that names a record set', { 'README.md': '# data', 'aranceles.csv': 'SYSID\n1\n' }, /no file names a record set/],
    ['a good file beside a bad one', { 'aladi2.csv': ALADI2_GOOD, 'cupos.csv': 'FRACCION\n01012101\n' }, /^cupos\.csv:1: the header has no SYSID/],
  ];

  for (const [name, files, message] of cases) {
    test(name, async () => {
      const before = fileHash(mainFile);
      const report = await imported(folder(files), mainFile);
      assert.equal(report.imported, false);
      assert.match(report.failure ?? '', message);
      assert.equal(fileHash(mainFile), before);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.includes('.building')),
        [],
        'the build file is removed',
      );
    });
  }

  test('the CLI says it in one line on stderr and exits 1', async () => {
    const before = fileHash(mainFile);
    const outcome = await runCli(['import', folder({ 'aladi2.csv': latin1 })], mainFile);
    assert.equal(outcome.code, 1);
    assert.equal(
      outcome.stderr,
      'tariff-lookup: import failed, nothing changed: aladi2.csv:3: not valid UTF-8 (a file saved as Latin-1, Windows-1252 or UTF-16 must be converted to UTF-8)\n',
    );
    assert.equal(fileHash(mainFile), before);
  });

  test('a folder that does not exist', async () => {
    const outcome = await runCli(['import', join(dir, 'nowhere')], mainFile);
    assert.equal(outcome.code, 1);
    assert.match(outcome.stderr, /^tariff-lookup: import failed, nothing changed: .*nowhere: cannot read the folder/);
  });

  test('a second import while one runs is refused', async (t) => {
    const running = await startBuild(loadConfig({ DATABASE_URL: `sqlite:${mainFile}` }));
    defer(t, () => running.abandon());
    const report = await imported(folder({ 'aladi2.csv': ALADI2_GOOD }), mainFile);
    assert.match(report.failure ?? '', /is locked: another import is running/);
  });
});

describe('--strict', () => {
  test('the first refused row fails the whole import: exit 1, the main file untouched', async () => {
    const mainFile = mainFileCopy();
    const before = fileHash(mainFile);
    const outcome = await runCli(['import', folder({ 'aladi2.csv': ALADI2_MIXED }), '--strict', '--json'], mainFile);
    assert.equal(outcome.code, 1);
    assert.match(outcome.stderr, /^tariff-lookup: import failed, nothing changed: aladi2\.csv:3: TIPOTASA: not an integer: x \(--strict/);
    const report = JSON.parse(outcome.stdout) as ImportReport;
    assert.equal(report.imported, false);
    assert.equal(report.refusals.length, 1);
    assert.equal(fileHash(mainFile), before);
  });
});

describe('serve reloads on SIGHUP', () => {
  test('the served process switches to the imported file at once', async (t) => {
    const mainFile = mainFileCopy();
    const child = startCli(['serve'], mainFile, { ...TEST_ENV, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    const logs: Record<string, unknown>[] = [];
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
    });
    const exited = outcomeOf(child);
    defer(t, async () => {
      child.kill('SIGTERM');
      await exited;
    });
    await waitFor('the server to listen', () => logs.some((l) => String(l['msg']).startsWith('Server listening at')));
    const base = /http:\/\/[\d.:]+/.exec(String(logs.find((l) => String(l['msg']).startsWith('Server listening at'))?.['msg']))?.[0];
    const report = await imported(folder({ 'aladi2.csv': ALADI2_GOOD }), mainFile);
    assert.equal(report.failure, null, summary(report));
    child.kill('SIGHUP');
    await waitFor('the SIGHUP reload', () => logs.some((l) => l['reason'] === 'SIGHUP' && l['hash'] === report.dataset?.hash));
    const health = (await (await fetch(`${base}/health`)).json()) as { dataset: { hash: string } };
    assert.equal(health.dataset.hash, report.dataset?.hash);
  });
});
