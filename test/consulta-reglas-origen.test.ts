/**
 * The fraction page's "Reglas de origen" (issue 46) in a real Chromium at 390 px and 1280 px: each
 * agreement's rule with the English text marked `lang="en"` and the project's Spanish reading marked as
 * the project's; the evaluation form with materials pasted as spreadsheet columns, answered in Spanish
 * per requirement; nothing wider than the screen; axe-core finds nothing serious.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserMissing, newPage, openBrowser, releaseBrowser, seriousViolations, signIn } from './browser.js';
import type { Running } from './servers.js';
import { serveFixture } from './servers.js';
import { fillReglasOrigen } from './reglas-origen-fixture.js';

const missing = browserMissing();
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];

describe('consulta: reglas de origen', { skip: missing ?? false }, () => {
  let server: Running;
  let browser: Browser;
  serveFixture('sqlite', { MAX_EVENT_LOOP_DELAY_MS: '0' }, (running) => (server = running), fillReglasOrigen);
  before(async () => {
    browser = await openBrowser();
  });
  after(releaseBrowser);

  for (const size of SIZES) {
    test(`at ${size.width} px: the rules as published and as read, an evaluation in Spanish, nothing too wide, axe clean`, async () => {
      const { page, errors } = await newPage(browser, size.width, size.height);
      await signIn(page, server.base, server.token);
      await page.goto(`${server.base}/consulta/fraccion/8421.99.01`);
      const section = page.locator('#reglas-origen');
      await section.locator('form.evaluar-origen').waitFor();
      assert.equal(await section.locator('h2').textContent(), 'Reglas de origen');
      const english = section.locator('blockquote[lang="en"]').first();
      assert.match((await english.textContent()) ?? '', /A change to a good of subheading 842191 through 842199 from any other heading\./);
      assert.match((await section.locator('.texto-acuerdo .etiqueta').first().textContent()) ?? '', /en inglés/);
      assert.match(
        (await section.locator('.lectura-proyecto').first().textContent()) ?? '',
        /Lectura del proyecto \(no es el texto oficial\):.*Cambio de partida/,
      );
      assert.deepEqual(await seriousViolations(page), []);

      // Pasted from a spreadsheet: a header, then tab-separated columns.
      await page.fill('#o-materiales', 'Fracción\tOriginario\tValor\n8421.99\tno\t1,000.00\n7208.10\tsí\t1000.00');
      await page.fill('#o-vt', '3000.00');
      await page.click('form.evaluar-origen button[type="submit"]');
      const verdict = section.locator('.veredicto');
      await section.locator('.resultado-calculo [role="alert"], .resultado-calculo .veredicto').first().waitFor();
      assert.equal(await section.locator('.resultado-calculo [role="alert"]').count(), 0, (await section.locator('.resultado-calculo').textContent()) ?? '');
      assert.equal(await verdict.textContent(), 'Cumple la regla de origen de TIPAT.');
      const requirements = await section.locator('.regla-evaluada li.requisito').allTextContents();
      assert.ok(
        requirements.some((r) => /^No cumple\. No hay cambio de partida: el material #0 \(8421\.99\)/.test(r)),
        requirements.join('\n'),
      );
      assert.ok(
        requirements.some((r) => /^Cumple\. Contenido regional 33\.33 %/.test(r)),
        requirements.join('\n'),
      );
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      assert.deepEqual(await seriousViolations(page), []);

      // A line that is not a material is named, and nothing is sent.
      await page.fill('#o-materiales', '8421.99\tquizá\t10.00');
      await page.click('form.evaluar-origen button[type="submit"]');
      await section.locator('[role="alert"]').waitFor();
      assert.match((await section.locator('[role="alert"]').textContent()) ?? '', /Línea 1: la segunda columna debe decir sí o no/);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('one article per rule that applies (TIPAT and the UK list for live horses)', async () => {
    const { page } = await newPage(browser, 1280, 900);
    await signIn(page, server.base, server.token);
    // 0101.21.01 has rules; a NICO page of it too; the section is always there.
    await page.goto(`${server.base}/consulta/fraccion/0101.21.01`);
    await page.locator('#reglas-origen form').waitFor();
    assert.equal(await page.locator('#reglas-origen article.regla').count(), 2);
    await page.close();
  });
});
