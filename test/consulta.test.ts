/** The page for people as HTTP sees it: its addresses, its strict CSP, its own files only, its size; and /api/v1/nomenclatura. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Running } from './servers.js';
import { storeKinds } from './stores.js';
import { fillDemo } from './databases.js';
import { serveFixture } from './servers.js';

let server: Running;
/** Asked before any suite starts: a suite filling the demo dataset keeps the event loop busy for seconds. */
const kinds = await storeKinds();

const PAGES = [
  '/consulta/',
  '/consulta',
  '/consulta/entrar?volver=%2Fconsulta%2F',
  '/consulta/?q=caf%C3%A9%20tostado',
  '/consulta/fraccion/0901.21.01',
  '/consulta/fraccion/0101210100',
  '/consulta/explorar/',
  '/consulta/explorar/seccion/II',
  '/consulta/explorar/capitulo/09',
  '/consulta/explorar/partida/0901',
  '/consulta/lotes/',
  '/consulta/lotes/0b6f4f6e-8d3a-4c59-9a57-3f1e2d6c7b10',
  '/consulta/vigilancias',
  '/consulta/vigilancias?fraccion=0101.21.01',
  '/consulta/vigilancias/vig_0123456789abcdef',
];

/** What a page's HTML makes the browser load. */
function namedFiles(html: string, base: string): URL[] {
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, base)).filter((u) => u.protocol !== 'data:');
}

describe('consulta over HTTP', () => {
  serveFixture('sqlite', { MAX_EVENT_LOOP_DELAY_MS: '0' }, (running) => (server = running), fillDemo);

  test('every page answers with the same shell, no token needed, in Spanish, under a strict CSP', async () => {
    for (const path of PAGES) {
      const response = await server.get(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only');
      assert.match(csp, /connect-src 'self'(;|$)/, 'the token can be sent to this origin only');
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer', 'a search or a fraction in the address is not sent to other sites');
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      const html = await response.text();
      assert.match(html, /<html lang="es">/);
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
      assert.doesNotMatch(html, /\sstyle=|<style/, 'no inline style');
    }
  });

  test('an address that is not a page is a 404 that still shows the page frame; the API root stays as it is', async () => {
    const response = await server.get('/consulta/no-existe');
    assert.equal(response.status, 404);
    assert.match(await response.text(), /<main id="contenido"/);
    const root = await server.get('/');
    assert.equal(((await root.json()) as { docs: string }).docs, '/docs');
  });

  test('everything the page loads comes from the service itself, and the scripts and styles weigh under 170 KB', async () => {
    const page = await server.get('/consulta/');
    const files = namedFiles(await page.text(), server.base);
    assert.ok(files.some((u) => u.pathname.endsWith('.js')) && files.some((u) => u.pathname.endsWith('.css')));
    const seen = new Set<string>();
    let bytes = 0;
    const queue = [...files];
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url.pathname)) continue;
      seen.add(url.pathname);
      assert.equal(url.origin, server.base, `${url.href} is from this origin`);
      const response = await fetch(url);
      assert.equal(response.status, 200, url.pathname);
      const body = await response.text();
      bytes += Buffer.byteLength(body);
      // The modules import one another: follow them, so the budget counts every file the page can load.
      for (const m of body.matchAll(/from '(\.\.?\/[^']+\.js)'/g)) queue.push(new URL(m[1]!, url));
    }
    assert.ok(seen.size >= 5, 'the modules are followed');
    assert.ok(bytes < 170 * 1024, `${bytes} bytes of JavaScript and CSS`);
    assert.equal((await server.get('/consulta/static/nada.js')).status, 404);
    assert.equal((await server.get('/consulta/static/..%2Fserver.js')).status, 404);
  });

  test("a chapter's English HS texts, the page's fallback, are a file beside its modules; no other name is", async () => {
    const response = await server.get('/consulta/static/ingles-01.json');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const texts = (await response.json()) as Record<string, string>;
    assert.equal(texts['01'], 'Animals; live');
    assert.equal(texts['0101'], 'Horses, asses, mules and hinnies; live');
    assert.equal(texts['010121'], 'Horses; live, pure-bred breeding animals');
    assert.ok(Object.keys(texts).every((code) => code.startsWith('01')));
    assert.equal((await server.get('/consulta/static/ingles-1.json')).status, 404);
    assert.equal((await server.get('/consulta/static/ingles-00.json')).status, 404);
  });

  test('/api/v1/nomenclatura: sections with their chapters, behind the token', async () => {
    assert.equal((await server.get('/api/v1/nomenclatura')).status, 401);
    const { status, body } = await server.json<{
      secciones: { seccion: string | null; descripcion: string | null; capitulos: { capitulo: string; fracciones: number }[] }[];
    }>('/api/v1/nomenclatura');
    assert.equal(status, 200);
    const roman = body.secciones.map((s) => s.seccion);
    assert.deepEqual(roman.slice(0, 3), ['I', 'II', 'III']);
    const chapters = body.secciones.flatMap((s) => s.capitulos.map((c) => c.capitulo));
    assert.deepEqual(chapters, [...chapters].sort(), 'chapters in code order');
    assert.ok(
      body.secciones.find((s) => s.seccion === 'II')?.capitulos.some((c) => c.capitulo === '09' && c.fracciones > 0),
      'coffee is in section II',
    );
    const { body: inChapter } = await server.json<{ total: number }>('/api/v1/fracciones/?fraccion=01&limit=1');
    const counted = body.secciones.flatMap((s) => s.capitulos).find((c) => c.capitulo === '01')?.fracciones ?? 0;
    assert.ok(counted > 0 && counted <= inChapter.total, 'a chapter counts its 8-digit fractions');
  });
});

for (const kind of kinds) {
  describe(`/api/v1/nomenclatura (${kind})`, () => {
    let fixture: Running;
    serveFixture(kind, { MAX_EVENT_LOOP_DELAY_MS: '0' }, (running) => (fixture = running));

    test("the fixture's chapters, each with its distinct 8-digit fractions, the same on every store", async () => {
      const { status, body } = await fixture.json<{ secciones: { capitulos: { capitulo: string; fracciones: number }[] }[] }>('/api/v1/nomenclatura');
      assert.equal(status, 200);
      const chapters = body.secciones.flatMap((s) => s.capitulos).sort((a, b) => a.capitulo.localeCompare(b.capitulo));
      // 0101.21.01 and 0101.29.99 in chapter 01 (0101.21.01 under several NICO), 0201.10.01, 8471.30.01.
      assert.deepEqual(
        chapters.map((c) => [c.capitulo, c.fracciones]),
        [
          ['01', 2],
          ['02', 1],
          ['84', 1],
        ],
      );
    });

    test("a chapter's headings and a heading's subheadings with their fractions and NICO; 422 for a malformed code, 404 for an empty one", async () => {
      const chapter = await fixture.json<{ capitulo: string; partidas: { partida: string; fracciones: number }[] }>('/api/v1/nomenclatura/capitulos/01');
      assert.equal(chapter.status, 200);
      assert.deepEqual(
        chapter.body.partidas.map((p) => [p.partida, p.fracciones]),
        [['0101', 2]],
      );
      const heading = await fixture.json<{ subpartidas: { subpartida: string; fracciones: { fraccion: string; nico: string | null }[] }[] }>(
        '/api/v1/nomenclatura/partidas/01.01',
      );
      assert.equal(heading.status, 200);
      assert.deepEqual(
        heading.body.subpartidas.map((s) => [s.subpartida, s.fracciones.map((f) => `${f.fraccion}${f.nico ?? ''}`)]),
        [
          ['010121', ['0101210100', '0101210101', '0101210102']],
          ['010129', ['0101299900']],
        ],
      );
      const bad = await fixture.json<{ detail: { loc: string[] }[] }>('/api/v1/nomenclatura/capitulos/1x');
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body.detail[0]?.loc, ['path', 'capitulo']);
      assert.equal((await fixture.json('/api/v1/nomenclatura/partidas/12345')).status, 422);
      assert.deepEqual((await fixture.json('/api/v1/nomenclatura/capitulos/99')).body, { detail: 'Chapter not found' });
      assert.equal((await fixture.get('/api/v1/nomenclatura/partidas/0101')).status, 401);
    });
  });
}
