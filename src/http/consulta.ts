/**
 * The page for people under `/consulta/`: one small HTML shell for every page, and the page's own
 * scripts and stylesheet as static files. The shell holds no data, so it answers at once; the page
 * reads everything from the API with the person's token (docs/adr/0007-consulta-session.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import { projectRoot } from '../config.js';
import type { OpenRoute } from './route-kinds.js';

/**
 * Everything from this origin, nothing inline, nothing from elsewhere: a script injected into the
 * page could not run, and the token could not be sent to another site.
 */
export const CONSULTA_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'; object-src 'none'";

/** The page's compiled modules (tsc builds src/web into dist/src/web) and its stylesheet. */
const SCRIPTS_DIR = join(projectRoot, 'dist', 'src', 'web');
const STYLESHEET = join(projectRoot, 'src', 'web', 'consulta.css');

/** The pages the shell serves; any other path under /consulta/ is a 404 that still shows the page's frame. */
const PAGES = [
  /^\/consulta\/?$/,
  /^\/consulta\/entrar\/?$/,
  /^\/consulta\/fraccion\/[^/]+\/?$/,
  /^\/consulta\/explorar(\/(seccion|capitulo|partida)\/[^/]+)?\/?$/,
];

const SHELL = `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Consulta de la tarifa</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/consulta/static/consulta.css">
<script type="module" src="/consulta/static/main.js"></script>
</head>
<body>
<a class="saltar" href="#contenido">Saltar al contenido</a>
<header id="cabecera"></header>
<main id="contenido" tabindex="-1"><p>Cargando…</p></main>
<noscript><p>Esta consulta necesita JavaScript.</p></noscript>
</body>
</html>
`;

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** The files the page may load, read once: the shell never names a file that is not here. */
function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (existsSync(SCRIPTS_DIR)) {
    for (const name of readdirSync(SCRIPTS_DIR)) {
      if (name.endsWith('.js')) assets.set(name, { type: 'text/javascript; charset=utf-8', body: readFileSync(join(SCRIPTS_DIR, name)) });
    }
  }
  if (existsSync(STYLESHEET)) assets.set('consulta.css', { type: 'text/css; charset=utf-8', body: readFileSync(STYLESHEET) });
  return assets;
}

const pageHeaders = (reply: FastifyReply): FastifyReply => reply.header('content-security-policy', CONSULTA_CSP).header('cache-control', 'no-cache');

const shell = (status: number) => (_request: unknown, reply: FastifyReply) => pageHeaders(reply).code(status).type('text/html; charset=utf-8').send(SHELL);

/** `/consulta/`: the search page. */
export function consultaHome(): OpenRoute {
  return { schema: { hide: true }, handler: shell(200) };
}

/** `/consulta/*`: every other page; an address that is not one is a 404 that still shows the frame. */
export function consultaPages(): OpenRoute {
  return {
    schema: { hide: true },
    handler: (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      return shell(PAGES.some((p) => p.test(path)) ? 200 : 404)(request, reply);
    },
  };
}

/** `/consulta/static/:file`: the page's modules and stylesheet, read once. */
export function consultaFiles(): OpenRoute {
  const assets = loadAssets();
  return {
    schema: { hide: true },
    handler: (request, reply) => {
      const asset = assets.get((request.params as { file: string }).file);
      if (asset === undefined) return reply.code(404).send({ detail: 'Not Found' });
      return pageHeaders(reply).type(asset.type).send(asset.body);
    },
  };
}
