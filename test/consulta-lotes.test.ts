/**
 * The batches page (`/consulta/lotes`) used as a person uses it, in a real Chromium over a started
 * service on the demo dataset: send a CSV with lines in several states, watch the progress bar reach
 * the end, read the lines to review first, save the results as CSV and XLSX and read them back, a file
 * the service refuses said in Spanish with its line, a phone's width, axe-core; and, on a service
 * whose batches stay queued, cancel and delete.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import type { Watched } from './browser.js';
import { axeViolations, browserMissing, newPage, openBrowser, releaseBrowser, signIn } from './browser.js';
import type { TestDatabase } from './databases.js';
import type { Running } from './servers.js';
import { createTestDatabase, fillDemo } from './databases.js';
import { serveFixture, startServer } from './servers.js';
import { clientFor, tokenFor } from './clients.js';

const missing = browserMissing();

/** One line of each state a broker must review (a replaced and a non-existent fraction among them), one in force, one with bad values. */
const CATALOGUE = [
  'referencia,descripcion,fraccion,valor_aduana,pais_origen,certificado_origen',
  'V1,caballos reproductores de raza pura,0101.21.01,100000.00,USA,si',
  'N1,gallos y gallinas,01051103,,,',
  'N2,,0101.21.01.99,,,',
  'R1,carne de bovino,02012099,1000.00,,',
  'I1,,99999999,,,',
  'S1,café tostado,,,,',
  'E1,tornillos,0101.21.01,"12,5",USA,quizá',
].join('\r\n');
const LINES = 7;

interface Resultado {
  linea: number;
  referencia: string | null;
  estado_fraccion: string;
  reemplazada_por: { fraccion: string; nico: string | null }[];
  revisar: boolean;
}

const UUID = /\/consulta\/lotes\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** No violation of any impact, not only the serious ones. */
async function accessible(page: Page, where: string): Promise<void> {
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], `${where}: ${JSON.stringify(violations, null, 1)}`);
}

/** Opens a page of the consulta in a new browser, signed in as the login form leaves a tab (test/browser.ts signIn). */
async function opened(browser: Browser, base: string, path: string, width?: number): Promise<Watched> {
  const watched = await newPage(browser, width);
  await signIn(watched.page, base, await tokenFor(base));
  await shown(watched.page, base, path);
  return watched;
}

/** Goes to a page of the consulta in this tab and waits until it has shown its answer (the permalink comes last). */
async function shown(page: Page, base: string, path: string): Promise<void> {
  await page.goto(base + path);
  await page.locator('.enlace-permanente').waitFor();
}

/** Chooses a file in the form and sends it; the page goes to the batch's own address. */
async function sendFile(page: Page, name: string, content: string, fields: { nombre?: string; pais?: string } = {}): Promise<void> {
  const mimeType = name.endsWith('.csv') ? 'text/csv' : 'text/plain';
  await page.getByLabel('Archivo CSV o XLSX').setInputFiles({ name, mimeType, buffer: Buffer.from(content) });
  if (fields.nombre !== undefined) await page.getByLabel('Nombre del lote (opcional)').fill(fields.nombre);
  if (fields.pais !== undefined) await page.getByLabel('País de origen (opcional)').fill(fields.pais);
  await page.getByRole('button', { name: 'Enviar lote' }).click();
}

/** What the page saved when the button was pressed: its name and bytes. */
async function saved(page: Page, button: string): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

/** The browser for the file's two services, taken by the first suite that runs, released when the file ends (its pages are new tabs: browser.ts newPage). */
let launched: Promise<Browser> | undefined;
const theBrowser = (): Promise<Browser> => (launched ??= openBrowser());
after(async () => {
  if (launched !== undefined) await releaseBrowser();
});

describe('the batches page in a real browser', { skip: missing ?? false }, () => {
  let server: Running;
  let browser: Browser;
  let id = '';
  serveFixture('sqlite', { MAX_EVENT_LOOP_DELAY_MS: '0' }, (running) => (server = running), fillDemo);
  before(async () => {
    browser = await theBrowser();
  });

  test('send a CSV, watch the progress reach the end, read the lines to review first, save the results as CSV and XLSX', async () => {
    const { page, errors } = await opened(browser, server.base, '/consulta/lotes/');
    await page.getByRole('link', { name: 'Lotes', exact: true }).first().waitFor();
    await page.getByText('Aún no ha enviado ningún lote.').waitFor();
    await accessible(page, 'the batches page, empty');

    await sendFile(page, 'catalogo.csv', CATALOGUE, { nombre: 'catálogo de prueba', pais: 'usa' });
    await page.waitForURL(UUID);
    id = UUID.exec(new URL(page.url()).pathname)![1]!;
    await page.getByRole('heading', { level: 1, name: 'Lote catálogo de prueba' }).waitFor();
    const bar = page.getByRole('progressbar', { name: 'Avance del lote' });
    await bar.waitFor();
    await page.waitForFunction(() => (document.getElementById('avance') as HTMLProgressElement | null)?.value === 100);
    await page.getByRole('heading', { level: 2, name: 'Líneas por revisar' }).waitFor();
    assert.equal(await bar.getAttribute('max'), '100');
    assert.match(await page.locator('#avance-texto').innerText(), new RegExp(`^Terminado: 100 % · ${LINES} de ${LINES} líneas$`));

    // The lines to review are those the API flags, in file order.
    const api = await server.json<{ items: Resultado[] }>(`/api/v1/lotes/${id}/resultados?limit=1000`);
    assert.equal(api.status, 200);
    const flagged = api.body.items.filter((r) => r.revisar);
    assert.ok(flagged.length > 0 && flagged.length < LINES, 'some lines to review, not all');
    const rows = page.locator('section.revisar tbody tr');
    assert.deepEqual(
      await rows.locator('th').allInnerTexts(),
      flagged.map((r) => String(r.linea)),
    );
    const byRef = (ref: string) => rows.filter({ has: page.getByRole('cell', { name: ref, exact: true }) });
    for (const ref of ['N1', 'N2', 'R1', 'I1', 'S1', 'E1']) assert.equal(await byRef(ref).count(), 1, `${ref} is to be reviewed`);
    assert.equal(await byRef('V1').count(), 0, 'a line in force that matches its description is not');
    assert.match(await byRef('R1').innerText(), /Reemplazada/);
    const replaced = api.body.items.find((r) => r.referencia === 'R1')!;
    assert.ok(replaced.reemplazada_por.length > 0);
    for (const f of replaced.reemplazada_por) {
      const code = f.fraccion + (f.nico ?? '');
      const dotted = [code.slice(0, 4), code.slice(4, 6), code.slice(6, 8), code.slice(8, 10)].filter((g) => g !== '').join('.');
      assert.equal(await byRef('R1').locator(`a[href*="/consulta/fraccion/${dotted}"]`).count(), 1, `R1 links ${dotted}, which replaced it`);
    }
    assert.match(await byRef('I1').innerText(), /Inexistente/);
    assert.match(await byRef('E1').innerText(), /valor_aduana "12,5" no es un importe/);
    await page.locator('.enlace-permanente').waitFor();
    await accessible(page, 'a finished batch');

    // The files, fetched with the tab's token, are the service's own.
    const csv = await saved(page, 'Descargar CSV');
    assert.equal(csv.name, `lote-${id}.csv`);
    const direct = await server.authed.fetch(`/api/v1/lotes/${id}/resultados?formato=csv`);
    assert.deepEqual(csv.bytes, Buffer.from(await direct.arrayBuffer()), 'the saved file is what the API answers');
    const table = parse<Record<string, string>>(csv.bytes, { columns: true, bom: true });
    assert.equal(table.length, LINES);
    assert.deepEqual(
      table.map((r) => [r['referencia'], r['estado_fraccion']]),
      api.body.items.map((r) => [r.referencia, r.estado_fraccion]),
    );
    assert.equal(table.find((r) => r['referencia'] === 'R1')!['estado_fraccion'], 'reemplazada');
    assert.equal(table.find((r) => r['referencia'] === 'I1')!['estado_fraccion'], 'inexistente');

    const xlsx = await saved(page, 'Descargar XLSX');
    assert.equal(xlsx.name, `lote-${id}.xlsx`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    assert.equal(sheet.rowCount, 1 + LINES);
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const column = (name: string): number => header.indexOf(name) + 1;
    const fromSheet: unknown[][] = [];
    for (let n = 2; n <= sheet.rowCount; n++) {
      const row = sheet.getRow(n);
      fromSheet.push([row.getCell(column('referencia')).value, row.getCell(column('estado_fraccion')).value, row.getCell(column('revisar')).value]);
    }
    assert.deepEqual(
      fromSheet,
      api.body.items.map((r) => [r.referencia, r.estado_fraccion, String(r.revisar)]),
    );

    await page.getByLabel('Solo las líneas por revisar').check();
    const onlyReview = await saved(page, 'Descargar CSV');
    assert.equal(onlyReview.name, `lote-${id}-revisar.csv`);
    assert.deepEqual(
      parse<Record<string, string>>(onlyReview.bytes, { columns: true, bom: true }).map((r) => r['linea']),
      flagged.map((r) => String(r.linea)),
    );

    // The list names it, finished.
    await page.getByRole('navigation', { name: 'Niveles' }).getByRole('link', { name: 'Lotes' }).click();
    await page.waitForURL(/\/consulta\/lotes\/?$/);
    const listed = page.locator(`tr[data-lote="${id}"]`);
    await listed.waitFor();
    assert.match(await listed.innerText(), /catálogo de prueba[\s\S]*Terminado[\s\S]*100 %/);
    assert.equal(await listed.getByRole('progressbar', { name: 'Avance del lote catálogo de prueba' }).getAttribute('value'), '100');
    await page.locator('.enlace-permanente').waitFor();
    await accessible(page, 'the batches page, one batch');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a file the service refuses is said in Spanish, naming the line; a file neither CSV nor XLSX is not sent', async () => {
    const before = (await server.json<{ total: number }>('/api/v1/lotes')).body.total;
    const { page, errors } = await opened(browser, server.base, '/consulta/lotes/');
    await sendFile(page, 'sin-columnas.csv', 'referencia,nombre\r\nA,b\r\n');
    const alert = page.getByRole('alert').filter({ hasText: 'El archivo no se aceptó' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /\(línea 1\).*descripcion.*fraccion.*No se guardó nada\./);
    assert.match(new URL(page.url()).pathname, /\/consulta\/lotes\/?$/, 'the page stays on the form');
    await accessible(page, 'a refused file');

    await sendFile(page, 'notas.txt', 'descripcion\r\ncaballos\r\n');
    await page.getByRole('alert').filter({ hasText: 'Elija un archivo CSV o XLSX.' }).waitFor();
    assert.equal((await server.json<{ total: number }>('/api/v1/lotes')).body.total, before, 'nothing stored');
    // The browser reports the refused upload's 422 in its console; nothing else may be there.
    assert.deepEqual(
      errors.filter((e) => !/status of 422/.test(e)),
      [],
    );
    await page.close();
  });

  test('more lines to review than a page shows: "Ver más líneas" adds the next ones, in file order', async () => {
    const many = ['fraccion', ...Array.from({ length: 130 }, () => '99999999')].join('\r\n');
    const { page, errors } = await opened(browser, server.base, '/consulta/lotes/');
    await sendFile(page, 'muchas.csv', many, { nombre: 'muchas' });
    await page.waitForURL(UUID);
    const rows = page.locator('section.revisar tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 100);
    await page.getByText('Se muestran 100 de 130.').waitFor();
    await page.getByRole('button', { name: 'Ver más líneas' }).click();
    await page.getByText('Se muestran 130 de 130.').waitFor();
    assert.deepEqual(
      await rows.locator('th').allInnerTexts(),
      Array.from({ length: 130 }, (_, i) => String(i + 2)),
    );
    assert.equal(await page.getByRole('button', { name: 'Ver más líneas' }).count(), 0, 'no more to show');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('at 390 px wide the pages fit the screen; the lines to review scroll inside their own box', async () => {
    assert.notEqual(id, '', 'the first test sent a batch');
    // One tab goes to each page in turn: each is a new document, loaded and measured afresh.
    const { page, errors } = await newPage(browser, 390);
    await signIn(page, server.base, await tokenFor(server.base));
    for (const path of ['/consulta/lotes/', `/consulta/lotes/${id}`]) {
      await shown(page, server.base, path);
      if (path !== '/consulta/lotes/') await page.locator('section.revisar tbody tr').first().waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow} px`);
      if (path !== '/consulta/lotes/') {
        const box = await page.evaluate(() => {
          const element = document.querySelector<HTMLElement>('section.revisar .tabla')!;
          return { overflowX: getComputedStyle(element).overflowX, scrolls: element.scrollWidth > element.clientWidth };
        });
        assert.deepEqual(box, { overflowX: 'auto', scrolls: true });
      }
      await accessible(page, `${path} at 390 px`);
      assert.deepEqual(errors, [], path);
    }
    await page.close();
  });
});

describe('the batches page on a service whose batches stay queued: cancel, then delete', { skip: missing ?? false }, () => {
  let db: TestDatabase;
  let server: Running | undefined;
  let base = '';
  let browser: Browser;

  before(async () => {
    db = await createTestDatabase('sqlite');
    server = await startServer({ DATABASE_URL: db.url, MAX_EVENT_LOOP_DELAY_MS: '0', LOTES_POR_USUARIO: '1' }, { app: { lotesWorker: false } });
    base = server.base;
    browser = await theBrowser();
  });
  after(async () => {
    await server?.close();
    await db?.drop();
  });

  test('a queued batch shows 0 %, a second one is refused in words, the first is cancelled with its button, then deleted', async () => {
    const { page, errors } = await opened(browser, base, '/consulta/lotes/');
    await sendFile(page, 'uno.csv', 'fraccion\r\n01012101\r\n', { nombre: 'en espera' });
    await page.waitForURL(UUID);
    const id = UUID.exec(new URL(page.url()).pathname)![1]!;
    await page.locator('.enlace-permanente').waitFor();
    assert.match(await page.locator('#avance-texto').innerText(), /^En cola: 0 % · 0 de 1 líneas$/);
    assert.equal(await page.getByRole('progressbar', { name: 'Avance del lote' }).getAttribute('value'), '0');
    await accessible(page, 'a queued batch');

    // LOTES_POR_USUARIO is 1 here: a second file is refused, said in words, until the first is cancelled.
    await page.getByRole('navigation', { name: 'Niveles' }).getByRole('link', { name: 'Lotes' }).click();
    await page.waitForURL(/\/consulta\/lotes\/?$/);
    assert.match(await page.locator(`tr[data-lote="${id}"]`).innerText(), /en espera[\s\S]*En cola[\s\S]*0 %/);
    await sendFile(page, 'dos.csv', 'fraccion\r\n01012101\r\n');
    await page.getByRole('alert').filter({ hasText: 'Ya tiene en cola o en proceso el máximo de lotes a la vez (1).' }).waitFor();
    await page.goto(`${base}/consulta/lotes/${id}`);
    await page.locator('.enlace-permanente').waitFor();

    await page.getByRole('button', { name: 'Cancelar el lote' }).click();
    await page
      .locator('#avance-texto')
      .filter({ hasText: /^Cancelado: / })
      .waitFor();
    await page.getByRole('heading', { level: 2, name: 'Líneas por revisar' }).waitFor();
    const client = await clientFor(base);
    const state = (await (await client.fetch(`/api/v1/lotes/${id}`)).json()) as { estado: string };
    assert.equal(state.estado, 'cancelado');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Eliminar el lote' }).click();
    await page.waitForURL(/\/consulta\/lotes\/?$/);
    await page.getByText('Aún no ha enviado ningún lote.').waitFor();
    assert.equal((await client.fetch(`/api/v1/lotes/${id}`)).status, 404);
    await page.goto(`${base}/consulta/lotes/${id}`);
    await page.getByRole('alert').filter({ hasText: 'Este lote no existe' }).waitFor();
    // The browser reports the refused 429 and the deleted batch's 404 in its console; nothing else may be there.
    assert.deepEqual(
      errors.filter((e) => !/status of (404|429)/.test(e)),
      [],
    );
    await page.close();
  });
});
