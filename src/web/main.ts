/**
 * The page's entry: the header every page shares (name, navigation, "Vigente al", the version that
 * answered, leaving), then the page its address names. Each page is its own address, so that every
 * view is a permalink; moving between them is an ordinary navigation.
 */
import { SessionEnded, explain, features, forget, get, onVersion, session, toLogin } from './api.js';
import { alertBox, chosenDate, h, link, show } from './dom.js';
import { showExplore } from './explore.js';
import { showFraction } from './fraction.js';
import { showLogin } from './login.js';
import { showSearch } from './search.js';

interface Version {
  version: string;
  fuente?: string | null;
  vigente_desde?: string;
}

let versions: Promise<Version[]> | undefined;

/** "Versión de los datos: 2022-12-12.1 (DOF …)", once an answer has named its version. */
function versionLabel(target: HTMLElement): void {
  let shown: string | null = null;
  onVersion((version) => {
    if (version === null || version === shown) return;
    shown = version;
    target.textContent = `Versión de los datos: ${version}`;
    void features().then(async (f) => {
      if (!f.versions) return;
      versions ??= get<Version[]>('/api/v1/versiones').catch(() => []);
      const fuente = (await versions).find((v) => v.version === version)?.fuente;
      if (fuente && shown === version) target.textContent = `Versión de los datos: ${version} (${fuente})`;
    });
  });
}

function dateSelector(): HTMLElement {
  const input = h('input', { type: 'date', id: 'vigente', name: 'fecha', value: chosenDate() ?? '' });
  const form = h(
    'form',
    { class: 'vigente', 'aria-label': 'Fecha de vigencia' },
    h('label', { for: 'vigente' }, 'Vigente al'),
    input,
    h('button', { type: 'submit' }, 'Aplicar'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams(location.search);
    if (input.value === '') query.delete('fecha');
    else query.set('fecha', input.value);
    const q = query.toString();
    location.assign(q === '' ? location.pathname : `${location.pathname}?${q}`);
  });
  return form;
}

function header(loggedIn: boolean): void {
  const top = document.getElementById('cabecera')!;
  const version = h('p', { class: 'version', 'aria-live': 'polite' });
  versionLabel(version);
  const leave = h('button', { type: 'button', class: 'salir' }, 'Salir');
  leave.addEventListener('click', () => {
    forget();
    location.assign('/consulta/entrar');
  });
  const parts = [
    h('p', { class: 'marca' }, link('/consulta/', 'Consulta de la tarifa')),
    loggedIn
      ? h(
          'nav',
          { 'aria-label': 'Principal' },
          h('ul', {}, h('li', {}, link('/consulta/', 'Buscar')), h('li', {}, link('/consulta/explorar/', 'Explorar la tarifa'))),
        )
      : null,
    loggedIn ? dateSelector() : null,
    loggedIn ? leave : null,
    version,
  ];
  top.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
}

async function route(): Promise<void> {
  const path = location.pathname.replace(/\/+$/, '') || '/consulta';
  if (path === '/consulta/entrar') {
    header(false);
    showLogin();
    return;
  }
  if (session() === null) toLogin();
  header(true);
  const fraction = /^\/consulta\/fraccion\/([^/]+)$/.exec(path);
  if (fraction) return showFraction(decodeURIComponent(fraction[1]!));
  const explore = /^\/consulta\/explorar(?:\/(seccion|capitulo|partida)\/([^/]+))?$/.exec(path);
  if (explore) return showExplore(explore[1] ?? null, explore[2] === undefined ? null : decodeURIComponent(explore[2]));
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
  if (location.pathname.startsWith('/consulta/entrar')) return;
  const query = new URLSearchParams(location.search);
  if (!query.has('fecha')) query.set('fecha', new Date().toLocaleDateString('sv-SE', { timeZone: 'America/Mexico_City' }));
  const url = `${location.origin}${location.pathname}?${query.toString()}`;
  const main = document.getElementById('contenido')!;
  main.append(h('p', { class: 'enlace-permanente' }, 'Enlace permanente: ', h('a', { href: url }, url)));
}

route()
  .then(permalink)
  .catch((error: unknown) => {
    if (error instanceof SessionEnded) return;
    show('Error', h('h1', {}, 'No se pudo mostrar la página'), alertBox(explain(error)));
  });
