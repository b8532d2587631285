/**
 * The page for people under `/consulta/`: one small HTML shell for every page, and the page's own
 * scripts and stylesheet as static files. The shell holds no data, so it answers at once; the page
 * reads everything from the API with the person's token (docs/adr/0007-consulta-session.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { FastifyReply } from 'fastify';
import { projectRoot } from '../config-values.js';
import { Type } from '@sinclair/typebox';
import type { Checked } from './contract.js';
import { typed } from './contract.js';
import type { OpenRoute } from './route-kinds.js';

/**
 * Everything from this origin, nothing inline, nothing from elsewhere: a script injected into the
 * page could not run, and the token could not be sent to another site.
 */
export const CONSULTA_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'; object-src 'none'";

/** The page's compiled modules (tsc builds src/consulta into dist/src/consulta) and its stylesheet. */
const SCRIPTS_DIR = join(projectRoot, 'dist', 'src', 'consulta');
/**
 * The modules the server and the page share (src/fraccion.ts, src/limites.ts), compiled into dist/src: each imports
 * nothing. The page imports them as `../fraccion.js`, which from /consulta/static/ is /consulta/fraccion.js.
 */
const SHARED_DIR = join(projectRoot, 'dist', 'src');
const SHARED_MODULES = ['fraccion.js', 'limites.js'];
const STYLESHEET = join(projectRoot, 'src', 'consulta', 'consulta.css');

/** The HS 2022 nomenclature in English (data/sources/hs2022), the last of the texts the hierarchy falls back to. */
const HS_ENGLISH = join(projectRoot, 'data', 'sources', 'hs2022', 'harmonized-system.csv');

/** A file the page may load: its type and its bytes. */
interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The English HS texts of each chapter, its headings and subheadings, as `ingles-NN.json`
 * (`{"0101": "Horses, asses, mules and hinnies; live", …}`): where the data shows one of these texts
 * for its code, it is the English fallback and the page marks it as English (docs/demo-dataset.md).
 * Public nomenclature, so a file like the page's own; a few KB per chapter. Made once per process,
 * when the first of them is asked for, from a file that never changes while it runs: parsing it is a
 * tenth of a second of CPU that a start need not pay.
 */
let englishOnce: Map<string, Asset> | undefined;
const englishTexts = (): Map<string, Asset> => (englishOnce ??= readEnglishTexts());

function readEnglishTexts(): Map<string, Asset> {
  const files = new Map<string, Asset>();
  if (!existsSync(HS_ENGLISH)) return files;
  const rows = parse<{ hscode: string; description: string }>(readFileSync(HS_ENGLISH), { columns: true });
  const byChapter = new Map<string, Record<string, string>>();
  for (const row of rows) {
    if (!/^\d{2}(\d{2}){0,2}$/.test(row.hscode)) continue;
    const chapter = row.hscode.slice(0, 2);
    const texts = byChapter.get(chapter) ?? {};
    texts[row.hscode] = row.description;
    byChapter.set(chapter, texts);
  }
  for (const [chapter, texts] of byChapter) files.set(`ingles-${chapter}.json`, { type: JSON_TYPE, body: Buffer.from(JSON.stringify(texts)) });
  return files;
}

/** The pages the shell serves; any other path under /consulta/ is a 404 that still shows the page's frame. */
const PAGES = [
  /^\/consulta\/?$/,
  /^\/consulta\/entrar\/?$/,
  /^\/consulta\/fraccion\/[^/]+\/?$/,
  /^\/consulta\/explorar(\/(seccion|capitulo|partida)\/[^/]+)?\/?$/,
  /^\/consulta\/lotes(\/[^/]+)?\/?$/,
  /^\/consulta\/vigilancias(\/[^/]+)?\/?$/,
];

/** What search engines and link previews say of the page. */
const DESCRIPTION =
  'Consulta de la tarifa mexicana de importación y exportación: aranceles, preferencias, permisos, NOM y contribuciones de cada fracción arancelaria.';

/**
 * The shell: the header is in the HTML itself, so that the first paint already has it and nothing
 * moves when the script fills the page; every module is preloaded so that none waits for the one
 * importing it.
 */
function shellHtml(modules: readonly string[]): string {
  const preload = [
    ...modules.filter((name) => name !== 'main.js').map((name) => `/consulta/static/${name}`),
    ...SHARED_MODULES.map((name) => `/consulta/${name}`),
  ]
    .map((href) => `<link rel="modulepreload" href="${href}">\n`)
    .join('');
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Consulta de la tarifa</title>
<meta name="description" content="${DESCRIPTION}">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/consulta/static/consulta.css">
<script type="module" src="/consulta/static/main.js"></script>
${preload}</head>
<body>
<a class="saltar" href="#contenido">Saltar al contenido</a>
<header id="cabecera">
<p class="marca"><a href="/consulta/">Consulta de la tarifa</a></p>
<button type="button" class="salir sesion">Salir</button>
<nav class="sesion" aria-label="Principal"><ul><li><a href="/consulta/">Buscar</a></li><li><a href="/consulta/explorar/">Explorar la tarifa</a></li><li><a href="/consulta/lotes/">Lotes</a></li><li><a href="/consulta/vigilancias">Vigilancias</a></li></ul></nav>
<form class="vigente sesion" aria-label="Fecha de vigencia"><label for="vigente">Vigente al</label><input type="date" id="vigente" name="fecha"><button type="submit">Aplicar</button></form>
</header>
<main id="contenido" tabindex="-1"><p>Cargando…</p></main>
<noscript><p>Esta consulta necesita JavaScript.</p></noscript>
</body>
</html>
`;
}

/** The files the page may load, read once: the shell never names a file that is not here. */
function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (existsSync(SCRIPTS_DIR)) {
    for (const name of readdirSync(SCRIPTS_DIR)) {
      if (name.endsWith('.js')) assets.set(name, { type: 'text/javascript; charset=utf-8', body: readFileSync(join(SCRIPTS_DIR, name)) });
      // The maps the modules name: a browser's tools ask for them, and a missing one is an error in its console.
      if (name.endsWith('.js.map')) assets.set(name, { type: JSON_TYPE, body: readFileSync(join(SCRIPTS_DIR, name)) });
    }
  }
  if (existsSync(STYLESHEET)) assets.set('consulta.css', { type: 'text/css; charset=utf-8', body: readFileSync(STYLESHEET) });
  return assets;
}

/** The shared modules and their maps, by their path under /consulta/. */
function loadShared(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of SHARED_MODULES) {
    const file = join(SHARED_DIR, name);
    if (existsSync(file)) assets.set(`/consulta/${name}`, { type: 'text/javascript; charset=utf-8', body: readFileSync(file) });
    if (existsSync(`${file}.map`)) assets.set(`/consulta/${name}.map`, { type: JSON_TYPE, body: readFileSync(`${file}.map`) });
  }
  return assets;
}

/** An `ingles-NN.json` (englishTexts), or undefined for any other name (which never makes them). */
const englishAsset = (name: string): Asset | undefined => (/^ingles-\d{2}\.json$/.test(name) ? englishTexts().get(name) : undefined);

const pageHeaders = (reply: FastifyReply): FastifyReply => reply.header('content-security-policy', CONSULTA_CSP).header('cache-control', 'no-cache');

let shellOnce: string | undefined;
/** Built on first use, from the modules there are then (the build writes them before the service starts). */
const shellText = (): string =>
  (shellOnce ??= shellHtml(
    existsSync(SCRIPTS_DIR)
      ? readdirSync(SCRIPTS_DIR)
          .filter((name) => name.endsWith('.js'))
          .sort()
      : [],
  ));

const shell = (status: number) => (_request: unknown, reply: FastifyReply) =>
  pageHeaders(reply).code(status).type('text/html; charset=utf-8').send(shellText());

/** `/consulta/`: the search page. */
export function consultaHome(): OpenRoute {
  return { schema: { hide: true }, handler: shell(200) };
}

/** `/consulta/*`: every other page, and the shared modules; an address that is not one is a 404 that still shows the frame. */
export function consultaPages(): OpenRoute {
  const shared = loadShared();
  return {
    schema: { hide: true },
    handler: (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const module = shared.get(path);
      if (module !== undefined) return pageHeaders(reply).type(module.type).send(module.body);
      return shell(PAGES.some((p) => p.test(path)) ? 200 : 404)(request, reply);
    },
  };
}

/** `/consulta/static/:file`: the page's modules and stylesheet, read once, and the English HS texts. */
const FilePath = Type.Object({ file: Type.String() });

export function consultaFiles(): OpenRoute<Checked<{ params: typeof FilePath }>> {
  const assets = loadAssets();
  return typed(
    { params: FilePath },
    {
      schema: { hide: true },
      handler: (request, reply) => {
        const { file } = request.params;
        const asset = assets.get(file) ?? englishAsset(file);
        if (asset === undefined) return reply.code(404).send({ detail: 'Not Found' });
        return pageHeaders(reply).type(asset.type).send(asset.body);
      },
    },
  );
}
