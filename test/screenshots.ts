/**
 * Retakes the README's screenshots of the page for people (docs/img/), in Debian's Chromium over a
 * service on the demo dataset: `npm run build && node dist/test/screenshots.js`. `node --test` runs every
 * file under test/, this one included: there (NODE_TEST_CONTEXT is set) it does nothing.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const SHOTS = [
  ['consulta-busqueda', '/consulta/?q=caf%C3%A9%20tostado'],
  ['consulta-fraccion', '/consulta/fraccion/0901.11.99'],
] as const;

async function retake(): Promise<void> {
  // Imported here, not above: under `node --test` this file loads nothing of the service (seconds of loading for nothing).
  const { projectRoot } = await import('../src/config-values.js');
  const { launch, newPage } = await import('./browser.js');
  const { TEST_PASSWORD, TEST_USER } = await import('./clients.js');
  const { createTestDatabase, fillDemo } = await import('./databases.js');
  const { startServer } = await import('./servers.js');
  const db = await createTestDatabase('sqlite', fillDemo);
  const server = await startServer({ DATABASE_URL: db.url, MAX_EVENT_LOOP_DELAY_MS: '0' });
  const browser = await launch();
  try {
    const dir = join(projectRoot, 'docs', 'img');
    mkdirSync(dir, { recursive: true });
    for (const [name, path] of SHOTS) {
      const { page } = await newPage(browser, 1100, 900);
      await page.goto(server.base + path);
      await page.getByLabel('Usuario').fill(TEST_USER);
      await page.getByLabel('Contraseña').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.locator('.enlace-permanente').waitFor();
      await page.screenshot({ path: join(dir, `${name}.png`) });
      await page.close();
      console.log(`docs/img/${name}.png`);
    }
  } finally {
    await browser.close();
    await server.close();
    await db.drop();
  }
}

if (process.env['NODE_TEST_CONTEXT'] === undefined) await retake();
