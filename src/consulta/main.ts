/**
 * The page's entry: the header every page shares (its markup is in the HTML shell, so that it is
 * painted at once and nothing moves when the page is filled; here it is only wired), then the page
 * its address names. Each page is its own address, so that every view is a permalink; moving between
 * them is an ordinary navigation. A page opened without a session asks for the login where it is
 * (no redirect), then shows what its address names.
 */
import type { Version } from '../http/versiones.js';
import { SessionEnded, explain, forget, get, onVersion, session } from './api.js';
import { alertBox, chosenDate, h, link, show } from './dom.js';
import { showExplore } from './explorar.js';
import { showFraction } from './fraccion.js';
import { showLogin } from './entrar.js';
import { showLote, showLotes } from './lotes.js';
import { showSearch } from './buscar.js';
import { showVigilancia, showVigilancias } from './vigilancias.js';

let versions: Promise<Version[]> | undefined;
let answered: string | null = null;
onVersion((version) => {
  if (version !== null) answered = version;
});

/** "Versión de los datos: 2022-12-12.1 (DOF …)", the version that answered this page. */
function versionLine(): HTMLElement {
  const line = h('p', { class: 'version', 'aria-live': 'polite' });
  const version = answered;
  if (version === null) return line;
  line.textContent = `Versión de los datos: ${version}`;
  versions ??= get<Version[]>('/api/v1/versiones').catch(() => []);
  void versions.then((list) => {
    const fuente = list.find((v) => v.version === version)?.fuente;
    if (fuente) line.textContent = `Versión de los datos: ${version} (${fuente})`;
  });
  return line;
}

/** Wires the header of the shell: the links keep the chosen date, "Vigente al" reloads the page for its date. */
function header(): void {
  const top = document.getElementById('cabecera')!;
  for (const a of top.querySelectorAll<HTMLAnchorElement>('a')) a.href = link(new URL(a.href).pathname).href;
  const form = top.querySelector<HTMLFormElement>('form.vigente')!;
  const input = form.querySelector<HTMLInputElement>('input')!;
  input.value = chosenDate() ?? '';
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams(location.search);
    if (input.value === '') query.delete('fecha');
    else query.set('fecha', input.value);
    const q = query.toString();
    location.assign(q === '' ? location.pathname : `${location.pathname}?${q}`);
  });
  top.querySelector('.salir')!.addEventListener('click', () => {
    forget();
    location.assign('/consulta/entrar');
  });
}

/** The controls of a session, hidden without their space taken away, so that the page below does not move once logged in. */
function sessionControls(shown: boolean): void {
  for (const part of document.querySelectorAll<HTMLElement>('#cabecera .sesion')) part.classList.toggle('oculto', !shown);
}

/** The page the address names, for a person with a session. */
async function page(path: string): Promise<void> {
  const fraction = /^\/consulta\/fraccion\/([^/]+)$/.exec(path);
  if (fraction) return showFraction(decodeURIComponent(fraction[1]!));
  const explore = /^\/consulta\/explorar(?:\/(seccion|capitulo|partida)\/([^/]+))?$/.exec(path);
  if (explore) return showExplore(explore[1] ?? null, explore[2] === undefined ? null : decodeURIComponent(explore[2]));
  const lote = /^\/consulta\/lotes\/([^/]+)$/.exec(path);
  if (lote) return showLote(decodeURIComponent(lote[1]!));
  if (path === '/consulta/lotes') return showLotes();
  const watch = /^\/consulta\/vigilancias(?:\/([^/]+))?$/.exec(path);
  if (watch) return watch[1] === undefined ? showVigilancias() : showVigilancia(decodeURIComponent(watch[1]));
  if (path === '/consulta') return showSearch();
  show(
    'Página no encontrada',
    h('h1', {}, 'Página no encontrada'),
    h('p', {}, 'Esta dirección no es una página de la consulta. ', link('/consulta/', 'Ir a la búsqueda'), '.'),
  );
}

/**
 * Every page's permalink: its address with the date it answers for, so that it shows the same data
 * later (today's date when none was chosen; without dataset versions the date changes nothing).
 */
function permalink(): void {
  const query = new URLSearchParams(location.search);
  if (!query.has('fecha')) query.set('fecha', new Date().toLocaleDateString('sv-SE', { timeZone: 'America/Mexico_City' }));
  const url = `${location.origin}${location.pathname}?${query.toString()}`;
  const main = document.getElementById('contenido')!;
  main.append(versionLine(), h('p', { class: 'enlace-permanente' }, 'Enlace permanente: ', h('a', { href: url }, url)));
}

function failed(error: unknown): void {
  if (error instanceof SessionEnded) return;
  show('Error', h('h1', {}, 'No se pudo mostrar la página'), alertBox(explain(error)));
}

function start(): void {
  header();
  const path = location.pathname.replace(/\/+$/, '') || '/consulta';
  const open = (): void => {
    sessionControls(true);
    page(path).then(permalink).catch(failed);
  };
  if (path === '/consulta/entrar') {
    sessionControls(false);
    showLogin(null);
  } else if (session() === null) {
    sessionControls(false);
    showLogin(open);
  } else open();
}

start();
