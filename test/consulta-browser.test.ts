/**
 * The page for people, used as a person uses it, in a real Chromium over a started service on the
 * demo dataset: log in, search, read a fraction, compute, change the date, follow a replaced
 * fraction, explore, keyboard only, 375 px, printing, and axe-core on every page. What a view shows
 * for a code typed in the search box, or for a fraction or NICO the data lacks, is asserted without a
 * browser in consulta-views.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Watched } from './browser.js';
import { browserMissing, newPage, openBrowser, releaseBrowser, seriousViolations, signIn } from './browser.js';
import type { Running } from './servers.js';
import { fillDemo } from './databases.js';
import { serveFixture } from './servers.js';
import { TEST_PASSWORD, TEST_USER } from './clients.js';

const missing = browserMissing();

const SUBJECTS = [
  'Aranceles',
  'Preferencias arancelarias',
  'PROSEC',
  'Cupos',
  'Cuotas compensatorias',
  'Permisos y regulaciones',
  'Normas oficiales (NOM)',
  'IEPS',
  'Precios estimados',
  'Fracciones anteriores',
  'Fracciones de EE. UU.',
];

describe('consulta in a real browser', { skip: missing ?? false }, () => {
  let server: Running;
  let browser: Browser;
  // The browser shares the machine with the service: load shedding would make a busy machine fail the suite.
  serveFixture('sqlite', { MAX_EVENT_LOOP_DELAY_MS: '0' }, (running) => (server = running), fillDemo);
  before(async () => {
    browser = await openBrowser();
  });
  after(releaseBrowser);

  /**
   * Opens a page of the consulta in a new browser, signed in as the login form leaves a tab (the
   * form itself is gone through by the tests of a wrong password and of a refused token, and in
   * consulta-phone.test.ts at a permalink), and waits until it shows what the address names.
   */
  async function opened(path: string, width?: number): Promise<Watched> {
    const watched = await newPage(browser, width);
    await signIn(watched.page, server.base, server.token);
    await shown(watched.page, path);
    return watched;
  }

  /** Goes to a page of the consulta in this tab and waits until it shows what the address names. */
  async function shown(page: Page, path: string): Promise<void> {
    await page.goto(server.base + path);
    await page.locator('main h1').first().waitFor();
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, path);
  }

  /** Waits until the page has shown its answer (the permalink is added last). */
  const settled = (page: Page) => page.locator('.enlace-permanente').waitFor();

  async function accessible(page: Page, where: string): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${where}: ${JSON.stringify(violations, null, 1)}`);
  }

  test('a wrong password is said on the page, and nothing is kept', async () => {
    const { page } = await newPage(browser);
    await page.goto(`${server.base}/consulta/`);
    await page.getByLabel('Usuario').fill(TEST_USER);
    await page.getByLabel('Contraseña').fill('not the password');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('alert').filter({ hasText: 'Usuario o contraseña incorrectos' }).waitFor();
    assert.equal(await page.getByLabel('Contraseña').inputValue(), '', 'the password is not left in the form');
    assert.deepEqual(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.includes('sesion'))), []);
    await accessible(page, 'login');
    await page.close();
  });

  test('search "café tostado": suggestions, results with code, NICO, marked words and path, then the fraction', async () => {
    const { page, errors } = await opened('/consulta/');
    const box = page.getByLabel('Buscar mercancía o fracción');
    // The search box takes the focus by itself.
    await page.waitForFunction(() => document.activeElement?.id === 'q');
    await box.pressSequentially('café tos', { delay: 20 });
    await page.locator('#sugerencias option').first().waitFor({ state: 'attached' });
    await box.fill('café tostado');
    await box.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('q') === 'café tostado');
    const first = page.locator('.resultado').first();
    await first.waitFor();
    assert.match(await first.locator('.codigo').innerText(), /^\d{4}\.\d{2}\.\d{2}$/);
    assert.match(await first.locator('.nico').innerText(), /^NICO \d{2}$/);
    assert.match((await first.locator('mark').allInnerTexts()).join(' ').toLowerCase(), /caf|tost/);
    assert.match(await first.locator('.ruta').innerText(), /\d{2} .+ › \d{4} .+ › \d{4}\.\d{2} /);
    await settled(page);
    await accessible(page, 'search results');
    const code = await first.locator('.codigo').innerText();
    await first.locator('a').click();
    await page.waitForURL(/\/consulta\/fraccion\//);
    assert.match(await page.locator('main h1').innerText(), new RegExp(`^${code.replaceAll('.', '\\.')}`));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the fraction page: dotted code and description, every subject, what the data does not hold said as such, a country selector', async () => {
    const { page, errors } = await opened('/consulta/fraccion/0901.11.99');
    await settled(page);
    assert.match(await page.locator('main h1').innerText(), /^0901\.11\.99 \S/);
    const headings = await page.locator('main h2').allInnerTexts();
    for (const subject of SUBJECTS) assert.ok(headings.includes(subject), `heading ${subject}`);
    for (const subject of SUBJECTS) {
      const section = page.locator('section', { has: page.getByRole('heading', { level: 2, name: subject, exact: true }) });
      const rows = await section.locator('tbody tr').count();
      const empty = await section.getByText(/^Los datos cargados no registran .+ para esta fracción\.$/).count();
      assert.ok(rows > 0 || empty > 0, `${subject} shows records or says that the loaded data holds none`);
      assert.equal(await section.getByText('Sin registros').count(), 0, 'never "Sin registros", which reads as "does not apply"');
    }
    const tlc = page.locator('#preferencias tbody tr');
    const all = await tlc.count();
    assert.ok(all > 1, 'preferences for several countries');
    await page.getByLabel('País', { exact: true }).selectOption('USA');
    const shown = await page.locator('#preferencias tbody tr:visible').allInnerTexts();
    assert.ok(shown.length > 0 && shown.length < all, 'the selector keeps one country');
    assert.ok(
      shown.every((row) => !/\b(CAN|JPN|ISR|URY)\b/.test(row)),
      'no other country remains',
    );
    await accessible(page, 'fraction');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a replaced fraction has a page linking what replaced it, and that fraction links back', async () => {
    const replaced = await replacedFraction(server);
    const { page, errors } = await opened(`/consulta/fraccion/${dots(replaced.old)}`);
    await settled(page);
    assert.match(await page.locator('main h1').innerText(), new RegExp(`^${dots(replaced.old).replaceAll('.', '\\.')}`));
    await accessible(page, 'replaced fraction');
    await page
      .locator('main ul a')
      .filter({ hasText: dots(replaced.current) })
      .first()
      .click();
    await page.waitForURL(/\/consulta\/fraccion\//);
    await settled(page);
    const back = page.locator('#anteriores a').filter({ hasText: dots(replaced.old) });
    assert.ok((await back.count()) > 0, 'the current fraction links the one it replaced');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('"Calcular contribuciones" on the fraction page; then "Vigente al" puts the date in the address, keeps it on every link, and the page names the version', async () => {
    // One load of the fraction for both: the computation is made first, and the date changed after it.
    const { page, errors } = await opened('/consulta/fraccion/0101.21.01');
    await settled(page);
    const section = page.locator('#contribuciones');
    await section.getByRole('heading', { name: 'Calcular contribuciones' }).waitFor();
    await page.getByLabel('Valor en aduana').fill('100000.00');
    await page.getByLabel('País de origen', { exact: true }).fill('USA');
    await page.getByLabel('Certificado de origen').check();
    await page.getByRole('button', { name: 'Calcular' }).click();
    await section.getByText('Mejor opción').first().waitFor();
    const totals = await section.locator('tr.total').count();
    assert.ok(totals >= 1, 'a table per option, each with its total');
    await section.getByRole('heading', { name: 'Requisitos' }).waitFor();
    for (const clave of ['IGI', 'DTA', 'IVA']) assert.ok((await section.getByRole('rowheader', { name: clave }).count()) > 0, clave);
    await page.getByLabel('Vigente al').fill('2024-06-30');
    await page.getByRole('button', { name: 'Aplicar' }).click();
    await page.waitForURL((url) => url.searchParams.get('fecha') === '2024-06-30');
    await settled(page);
    const search = await page.getByRole('link', { name: 'Buscar', exact: true }).getAttribute('href');
    assert.match(search ?? '', /fecha=2024-06-30/);
    assert.match(await page.locator('.enlace-permanente a').innerText(), /\/consulta\/fraccion\/0101\.21\.01\?fecha=2024-06-30$/);
    assert.match(await page.locator('.version').innerText(), /Versión de los datos: \S+/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('"Explorar la tarifa": sections → chapters → headings → fractions, each at its own address', async () => {
    const { page, errors } = await opened('/consulta/explorar/');
    await settled(page);
    await accessible(page, 'explore');
    await page.getByRole('link', { name: /^Sección II\b/ }).click();
    await page.waitForURL(/\/explorar\/seccion\/II$/);
    await page.getByRole('link', { name: /^Capítulo 09\b/ }).click();
    await page.waitForURL(/\/explorar\/capitulo\/09$/);
    await page.getByRole('link', { name: /^Partida 0901\b/ }).click();
    await page.waitForURL(/\/explorar\/partida\/0901$/);
    await settled(page);
    await page.locator('main a[href*="/consulta/fraccion/0901"]').first().click();
    await page.waitForURL(/\/consulta\/fraccion\/0901\./);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a token the service refuses sends the person to the login and back to where they were', async () => {
    // The tab holds a token the service refuses when its first document opens (as a session the service ended leaves it).
    const { page } = await newPage(browser);
    await signIn(page, server.base, 'not.a.token');
    await page.goto(`${server.base}/consulta/fraccion/0101.21.01`);
    await page.waitForURL(/\/consulta\/entrar\?volver=%2Fconsulta%2Ffraccion%2F0101\.21\.01/);
    await page.getByLabel('Usuario').fill(TEST_USER);
    await page.getByLabel('Contraseña').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(/\/consulta\/fraccion\/0101\.21\.01$/);
    await page.getByRole('heading', { level: 1, name: /^0101\.21\.01/ }).waitFor();
    await page.close();
  });

  test('keyboard only: search, then a result, then its fraction, with the focus visible', async () => {
    const { page, errors } = await opened('/consulta/');
    await page.waitForFunction(() => document.activeElement?.id === 'q');
    await page.keyboard.type('café');
    await page.keyboard.press('Enter');
    await page.locator('.resultado').first().waitFor();
    await settled(page);
    let focused = '';
    for (let i = 0; i < 30 && !focused.includes('/consulta/fraccion/'); i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement as HTMLAnchorElement | null)?.href ?? '');
    }
    assert.match(focused, /\/consulta\/fraccion\//, 'a result is reached with Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused result is visibly marked');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/consulta\/fraccion\//);
    await page.locator('main h1').waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('at 375 px wide the pages fit the screen; the fraction page prints without its controls', async () => {
    // One tab goes to each page in turn, as a person does: each is a new document, loaded and measured afresh.
    const { page, errors } = await newPage(browser, 375);
    await signIn(page, server.base, server.token);
    for (const path of ['/consulta/?q=caf%C3%A9', '/consulta/fraccion/0901.11.99', '/consulta/explorar/']) {
      await shown(page, path);
      await settled(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow} px`);
      await accessible(page, `${path} at 375 px`);
      if (path.includes('fraccion')) {
        await page.emulateMedia({ media: 'print' });
        assert.equal(await page.locator('header nav').isVisible(), false, 'no navigation on paper');
        assert.equal(await page.getByRole('button', { name: 'Imprimir' }).isVisible(), false);
        assert.ok(await page.getByRole('heading', { name: 'Aranceles' }).isVisible());
        await page.emulateMedia({ media: 'screen' });
      }
      assert.deepEqual(errors, [], path);
    }
    await page.close();
  });
});

function dots(code: string): string {
  return [code.slice(0, 4), code.slice(4, 6), code.slice(6, 8), code.slice(8, 10)].filter((g) => g !== '').join('.');
}

/** A fraction of the correlation table that the data no longer has, and one that replaced it: found in the data, not assumed. */
async function replacedFraction(server: Running): Promise<{ old: string; current: string }> {
  for (let skip = 0; skip < 10_000; skip += 1000) {
    const { body } = await server.json<{ FRACCIONANTERIOR: string; FRACCIONACTUAL: string }[]>(`/api/v1/fracciones-anteriores/?skip=${skip}&limit=1000`);
    assert.ok(Array.isArray(body), JSON.stringify(body));
    for (const row of body.filter((r) => r.FRACCIONANTERIOR !== r.FRACCIONACTUAL)) {
      const { body: found } = await server.json<{ total: number }>(`/api/v1/fracciones/?fraccion=${row.FRACCIONANTERIOR}&limit=1`);
      if (found.total === 0) return { old: row.FRACCIONANTERIOR, current: row.FRACCIONACTUAL };
    }
    if (body.length < 1000) break;
  }
  throw new Error('the demo dataset has no replaced fraction');
}
