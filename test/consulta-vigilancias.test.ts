/**
 * The watch lists page (`/consulta/vigilancias`, ../shared/spec/vigilancias.md "Elsewhere") used as a
 * person uses it, in a real Chromium over a started service with a real receiver on 127.0.0.1 (allowed
 * by VIGILANCIAS_HOSTS_PERMITIDOS): "Vigilar esta fracción" from a fraction page, a watch list made
 * from a pasted column (a messy line and refused URLs said in Spanish beside their fields), listed,
 * edited, its test event failing and sent again (the shown secret verifies the signature), a fraction
 * added to it from another fraction page, deleted; axe-core clean; at 390 px nothing wider than the
 * screen and nothing shifting.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { recordSets } from '../src/record-sets/index.js';
import type { Watched } from './browser.js';
import { browserMissing, newPage, openBrowser, releaseBrowser, seriousViolations, signIn } from './browser.js';
import type { Running } from './servers.js';
import { waitFor } from './lifetime.js';
import { serveFixture } from './servers.js';

const missing = browserMissing();
const PHONE = { width: 390, height: 844 };

/** Sums the layout shifts not caused by input (Chrome's definition of CLS, in one window). */
const OBSERVE_SHIFTS = `
  window.__cls = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__cls += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
`;

interface Receiver {
  readonly url: string;
  readonly received: { headers: IncomingHttpHeaders; body: string }[];
  /** What the receiver answers now. */
  status: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { url: '', received: [] as Receiver['received'], status: 204 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      state.received.push({ headers: req.headers, body });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/avisos`;
  return Object.assign(state, { close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

interface Vigilancia {
  id: string;
  nombre: string;
  fracciones: string[];
  conjuntos: string[];
}

describe('the watch lists page in a real browser', { skip: missing ?? false }, () => {
  let server: Running;
  let browser: Browser;
  let receiver: Receiver;
  // One retry 50 ms after a failed attempt, then the delivery is failed: the page sees it fail at once.
  serveFixture(
    'sqlite',
    { MAX_EVENT_LOOP_DELAY_MS: '0', VIGILANCIAS_HOSTS_PERMITIDOS: '127.0.0.1', VIGILANCIAS_REINTENTOS: '50ms' },
    (running) => (server = running),
  );
  before(async () => {
    browser = await openBrowser();
    receiver = await startReceiver();
  });
  after(async () => {
    await releaseBrowser();
    await receiver?.close();
  });

  /** The API as the test user, for what the test checks behind the page. */
  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await server.authed.call<T>(method, path, body);
    assert.ok(answer.response.ok, `${method} ${path}: ${answer.status}`);
    return answer.body;
  }
  const lists = async (): Promise<Vigilancia[]> => (await api<{ items: Vigilancia[] }>('GET', '/api/v1/vigilancias')).items;

  /** Opens a page in a new browser, signed in as the login form leaves a tab (test/browser.ts signIn). */
  async function opened(path: string, size = { width: 1280, height: 900 }): Promise<Watched> {
    const watched = await newPage(browser, size.width, size.height);
    await watched.page.addInitScript(OBSERVE_SHIFTS);
    await signIn(watched.page, server.base, server.token);
    await shown(watched.page, path);
    return watched;
  }

  /** Goes to a page in this tab and waits until it has shown its answer. */
  async function shown(page: Page, path: string): Promise<void> {
    await page.goto(server.base + path);
    await settled(page);
  }

  /** Waits until the page has shown its answer (the permalink is added last). */
  const settled = (page: Page) => page.locator('.enlace-permanente').waitFor();

  async function accessible(page: Page, where: string): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${where}: ${JSON.stringify(violations, null, 1)}`);
  }

  /** The console errors other than the refused saves the test makes on purpose (a 422 is logged by the browser). */
  const unexpected = (errors: readonly string[]): string[] => errors.filter((e) => !/status of 422\b/.test(e));

  /**
   * Clicks "Actualizar" until a delivery in `estado` is listed. After each click the list is given
   * a quarter of a second to show it (the service looks for work every 200 ms), rather than clicking
   * again every 25 ms, each click a request and a new table.
   */
  async function deliveryIn(page: Page, estado: string): Promise<void> {
    const rows = page.locator(`#entregas tr[data-estado="${estado}"]`);
    await waitFor(`a delivery ${estado} on the page`, async () => {
      if ((await rows.count()) > 0) return true;
      await page.getByRole('button', { name: 'Actualizar' }).click();
      await rows
        .first()
        .waitFor({ timeout: 250 })
        .catch(() => undefined);
      return false;
    });
  }

  test('from a fraction to a watch list: made from a pasted column, refusals beside their fields, listed, edited, sent again, added to, deleted', async () => {
    const { page, errors } = await opened('/consulta/fraccion/0101.21.01');
    await page.getByRole('link', { name: 'Vigilar esta fracción' }).click();
    await page.waitForURL((url) => url.pathname === '/consulta/vigilancias' && url.searchParams.get('fraccion') === '0101.21.01');
    await settled(page);
    await page.getByText('Todavía no tiene vigilancias').waitFor();
    const fractions = page.getByLabel('Fracciones', { exact: true });
    assert.equal(await fractions.inputValue(), '0101.21.01', 'the fraction is in the new watch list form');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'v-nombre', 'the form takes the focus');
    const offered = await page.locator('input[name="conjuntos"]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value));
    assert.deepEqual([...offered].sort(), recordSets.map((rs) => rs.path).sort(), 'a checkbox for every record set of the contract');

    // Empty fields are named before anything is sent.
    await page.getByRole('button', { name: 'Crear vigilancia' }).click();
    await page.locator('#v-nombre-error').getByText('Escriba un nombre para la vigilancia').waitFor();
    await page.locator('#v-url-error').getByText('Escriba la dirección https').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'v-nombre', 'the first field refused takes the focus');

    // A messy column: blank lines and spaces pass, the line that is no fraction is named by its number.
    await page.getByLabel('Nombre').fill('Catálogo cliente A');
    await fractions.fill(['0101.21.01', '', '   8471.30.01  ', '8471', '84.71-30', '4011.10.10.01', ''].join('\n'));
    await page.getByLabel('Vehículos: marcas').uncheck();
    await page.getByLabel('Vehículos: modelos').uncheck();
    await page.getByLabel('Dirección del webhook').fill(receiver.url);
    await page.getByRole('button', { name: 'Crear vigilancia' }).click();
    const fractionsError = page.locator('#v-fracciones-error');
    await fractionsError.getByText('Línea 5: «84.71-30» no es una fracción.').waitFor();
    await page.getByRole('alert').filter({ hasText: 'No se guardó: revise los campos señalados.' }).waitFor();
    assert.equal(await fractions.getAttribute('aria-invalid'), 'true');
    assert.match((await fractions.getAttribute('aria-describedby')) ?? '', /\bv-fracciones-error\b/, 'the message is read with the field');
    assert.equal((await lists()).length, 0, 'nothing was made');

    // Refused addresses, said in Spanish beside the URL.
    await fractions.fill(['0101.21.01', '', '   8471.30.01  ', '8471', '4011.10.10.01'].join('\n'));
    const url = page.getByLabel('Dirección del webhook');
    const urlError = page.locator('#v-url-error');
    await url.fill('http://erp.example.com/avisos');
    await page.getByRole('button', { name: 'Crear vigilancia' }).click();
    await urlError.getByText('La dirección debe empezar con https://', { exact: false }).waitFor();
    assert.equal(await fractionsError.innerText(), '', 'the fractions are no longer refused');
    await url.fill('https://10.1.2.3/avisos');
    await page.getByRole('button', { name: 'Crear vigilancia' }).click();
    await urlError.getByText('10.1.2.3 no es una dirección pública', { exact: false }).waitFor();
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    await accessible(page, 'the form with its refusals');

    await url.fill(receiver.url);
    await page.getByRole('button', { name: 'Crear vigilancia' }).click();
    const secretBox = page.locator('.secreto');
    await secretBox.getByText('no se volverá a mostrar', { exact: false }).waitFor();
    const secret = await page.locator('#secreto').innerText();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]{32}$/);
    const [made] = await lists();
    assert.ok(made);
    assert.deepEqual(made.fracciones, ['01012101', '84713001', '8471', '4011101001']);
    assert.deepEqual(
      made.conjuntos,
      recordSets.map((rs) => rs.path).filter((p) => !p.startsWith('vehiculos-')),
    );
    const row = page.locator('#lista-vigilancias tbody tr');
    assert.equal(await row.count(), 1);
    assert.equal(await row.getByRole('rowheader').innerText(), 'Catálogo cliente A');
    assert.equal(await row.locator('td[data-label="Fracciones"]').innerText(), '4');
    assert.equal(await row.locator('td[data-label="Estado"]').innerText(), 'Activa');
    assert.doesNotMatch(await row.locator('td[data-label="Conjuntos de datos"]').innerText(), /Vehículos/);
    assert.equal(await fractions.inputValue(), '', 'the form is empty again');
    await accessible(page, 'the list with a new watch list');

    // Its page: the same form, filled; edited.
    await row.getByRole('link', { name: 'Catálogo cliente A' }).click();
    await page.waitForURL((u) => u.pathname === `/consulta/vigilancias/${made.id}`);
    await settled(page);
    assert.equal(await page.getByLabel('Nombre').inputValue(), 'Catálogo cliente A');
    assert.equal(await fractions.inputValue(), '0101.21.01\n8471.30.01\n8471\n4011.10.10.01');
    assert.equal(await page.getByLabel('Vehículos: marcas').isChecked(), false);
    assert.equal(await page.getByLabel('Cupos').isChecked(), true);
    assert.equal(await page.getByLabel('Dirección del webhook').inputValue(), receiver.url);
    await page.getByText('todavía no ha enviado ningún aviso', { exact: false }).waitFor();
    await page.getByLabel('Nombre').fill('Catálogo cliente B');
    await fractions.fill(`${await fractions.inputValue()}\n0201\n`);
    await page.getByLabel('Cupos').uncheck();
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText('Cambios guardados: 5 fracciones vigiladas.').waitFor();
    assert.equal(await page.locator('main h1').innerText(), 'Vigilancia «Catálogo cliente B»');
    const edited = (await lists())[0]!;
    assert.equal(edited.nombre, 'Catálogo cliente B');
    assert.deepEqual(edited.fracciones, ['01012101', '84713001', '8471', '4011101001', '0201']);
    assert.ok(!edited.conjuntos.includes('cupos') && edited.conjuntos.includes('tlcs'));

    // A test event the receiver refuses: failed after its retry; sent again once the receiver answers.
    receiver.status = 500;
    await page.getByRole('button', { name: 'Enviar aviso de prueba' }).click();
    await deliveryIn(page, 'fallida');
    const failed = page.locator('#entregas tr[data-estado="fallida"]');
    assert.match(await failed.getByRole('rowheader').innerText(), /^Aviso de prueba/);
    assert.equal(await failed.locator('td[data-label="Estado"]').innerText(), 'Fallida');
    assert.equal(await failed.locator('td[data-label="Intentos"]').innerText(), '2');
    assert.equal(await failed.locator('td[data-label="Respuesta"]').innerText(), 'HTTP 500');
    assert.equal(receiver.received.length, 2);
    receiver.status = 204;
    await failed.getByRole('button', { name: /^Enviar de nuevo/ }).click();
    await deliveryIn(page, 'entregada');
    const delivered = page.locator('#entregas tr[data-estado="entregada"]');
    assert.equal(await delivered.locator('td[data-label="Respuesta"]').innerText(), 'HTTP 204');
    assert.equal(receiver.received.length, 3);
    const last = receiver.received[2]!;
    assert.equal(last.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'], 'sent again with the same webhook-id');
    const event = new Webhook(secret).verify(last.body, last.headers as Record<string, string>) as { type: string };
    assert.equal(event.type, 'tarifa.prueba', 'the secret the page showed verifies the signature');
    await accessible(page, 'a watch list with its deliveries');

    // "Vigilar esta fracción" for a fraction the list already watches by a prefix, then for one it does not.
    await page.goto(`${server.base}/consulta/fraccion/0201.10.01`);
    await page.getByRole('link', { name: 'Vigilar esta fracción' }).click();
    await page.waitForURL((u) => u.searchParams.get('fraccion') === '0201.10.01');
    await page.getByLabel('O añada 0201.10.01 a una vigilancia que ya tiene').selectOption({ label: 'Catálogo cliente B' });
    await page.getByRole('button', { name: 'Añadir' }).click();
    await page.getByText('«Catálogo cliente B» ya vigila 0201.10.01 (por el código 0201).').waitFor();
    await page.goto(`${server.base}/consulta/vigilancias?fraccion=0101.29.99`);
    await page.getByRole('button', { name: 'Añadir' }).click();
    await page.getByText('Se añadió 0101.29.99 a «Catálogo cliente B».').waitFor();
    assert.deepEqual((await lists())[0]!.fracciones, ['01012101', '84713001', '8471', '4011101001', '0201', '01012999']);

    // Deleted, after a confirmation in the page.
    await page.getByRole('link', { name: 'Ver «Catálogo cliente B»' }).click();
    await settled(page);
    await page.getByRole('button', { name: 'Borrar vigilancia' }).click();
    await page.getByText('¿Borrar la vigilancia «Catálogo cliente B»?', { exact: false }).waitFor();
    assert.equal((await lists()).length, 1, 'nothing is deleted before the confirmation');
    await page.getByRole('button', { name: 'Sí, borrar' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vigilancia borrada' }).waitFor();
    assert.equal((await lists()).length, 0);
    await page.getByRole('link', { name: 'Volver a sus vigilancias' }).click();
    await page.getByText('Todavía no tiene vigilancias').waitFor();
    assert.deepEqual(unexpected(errors), []);
    // Its address now says so (the browser logs the API's 404s, which are the answer here).
    await page.goto(`${server.base}/consulta/vigilancias/${made.id}`);
    await page.getByRole('alert').filter({ hasText: 'Esta vigilancia no existe o no es suya.' }).waitFor();
    assert.deepEqual(
      unexpected(errors).filter((e) => !/status of 404\b/.test(e)),
      [],
    );
    await page.close();
  });

  test('at 390 px wide: the list and a watch list with deliveries fit the screen, the header stays short, nothing shifts, axe finds nothing serious', async () => {
    const made = await api<Vigilancia>('POST', '/api/v1/vigilancias', {
      nombre: 'Un nombre de vigilancia bastante largo para un teléfono',
      fracciones: ['0101.21.01', '8471'],
      webhook: { url: `${receiver.url}/una/ruta/larga/que/no/cabe/en/la/pantalla/de/un/telefono?con=parametros` },
    });
    receiver.status = 204;
    await api('POST', `/api/v1/vigilancias/${made.id}/prueba`);
    // One tab goes to each page in turn: each is a new document, its layout shifts counted from its first paint.
    const paths = ['/consulta/vigilancias', `/consulta/vigilancias/${made.id}`, '/consulta/vigilancias?fraccion=0101.21.01'];
    const { page, errors } = await opened(paths[0]!, PHONE);
    for (const path of paths) {
      if (path !== paths[0]) await shown(page, path);
      const measured = await page.evaluate(() => ({
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        header: document.getElementById('cabecera')!.getBoundingClientRect().height,
        cls: (window as unknown as { __cls: number }).__cls,
      }));
      assert.ok(measured.overflow <= 0, `${path} scrolls sideways by ${measured.overflow} px`);
      assert.ok(measured.header <= 120, `${path}: header ${measured.header} px tall`);
      assert.ok(measured.cls < 0.1, `${path}: cumulative layout shift ${measured.cls}`);
      await accessible(page, `${path} at 390 px`);
      if (path === '/consulta/vigilancias') {
        // The secret, one long word, shown once: wrapped, not wider than the screen.
        await page.getByLabel('Nombre').fill('Desde el teléfono');
        await page.getByLabel('Fracciones', { exact: true }).fill('0101.21.01');
        await page.getByLabel('Dirección del webhook').fill(receiver.url);
        await page.getByRole('button', { name: 'Crear vigilancia' }).click();
        await page.locator('#secreto').waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `the secret scrolls sideways by ${overflow} px`);
        await accessible(page, 'the secret at 390 px');
      }
      assert.deepEqual(errors, [], path);
    }
    await page.close();
    for (const v of await lists()) await api('DELETE', `/api/v1/vigilancias/${v.id}`);
  });
});
