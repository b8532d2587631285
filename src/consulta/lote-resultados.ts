/**
 * A finished batch's results on its page (src/consulta/lotes.ts): the lines to review first, a page at
 * a time, each with its fraction's state, why to review it and what the description suggests, and the
 * whole table to save as XLSX or CSV.
 */
import { SessionEnded, download, explain, own } from './api.js';
import { dotted, fractionUrl, h } from './dom.js';
import type { LoteJson } from '../http/lotes.js';
import type { FraccionBreve, Resultado } from '../lotes/answer.js';
import { ETIQUETAS } from './lote-columnas.js';

type Lote = LoteJson;

interface Page<T> {
  items: T[];
  total: number;
}

/** A count as a person in Mexico writes it. */
export const number = (n: number): string => n.toLocaleString('es-MX');

const REVIEW_PAGE = 100;

/**
 * The review table's headings: the result's fields as the page names them (src/consulta/lote-columnas.ts), then the
 * page's own two (why to review the line, what could take its place); reviewRow fills them in this order.
 */
const REVIEW_COLUMNS = [
  ...(['linea', 'referencia', 'descripcion', 'fraccion', 'estado_fraccion'] as const).map((name) => ETIQUETAS[name]),
  'Motivo',
  'Sugerencias',
];

const ESTADOS_FRACCION: Record<Resultado['estado_fraccion'], string> = {
  vigente: 'Vigente',
  nico_requerido: 'Falta el NICO',
  nico_inexistente: 'NICO inexistente',
  reemplazada: 'Reemplazada',
  inexistente: 'Inexistente',
  sin_fraccion: 'Sin fracción',
};

/** Why a line is to be reviewed, for each state of its fraction that is not "vigente". */
const MOTIVOS: Record<Resultado['estado_fraccion'], string | null> = {
  vigente: null,
  nico_requerido: 'La fracción tiene varios NICO: falta indicar cuál.',
  nico_inexistente: 'La fracción no tiene ese NICO.',
  reemplazada: 'La fracción ya no existe: fue reemplazada.',
  inexistente: 'La fracción no existe en la tarifa.',
  sin_fraccion: 'La línea no indica fracción.',
};

/** The fraction as understood, linked to its page when it has one. */
function fractionCell(r: Resultado): Node | string {
  if (r.fraccion === null) return '—';
  const code = dotted(r.fraccion + (r.nico ?? ''));
  return r.estado_fraccion === 'inexistente' ? code : h('a', { href: fractionUrl(r.fraccion + (r.nico ?? '')) }, code);
}

const briefLink = (f: FraccionBreve): HTMLElement =>
  h(
    'li',
    {},
    h('a', { href: fractionUrl(f.fraccion + (f.nico ?? '')) }, h('span', { class: 'codigo' }, dotted(f.fraccion + (f.nico ?? '')))),
    ` ${f.descripcion ?? ''}`,
  );

function reasons(r: Resultado): HTMLElement {
  const list = [MOTIVOS[r.estado_fraccion], r.coincide === false ? 'La descripción no corresponde a la fracción declarada.' : null, r.error];
  return h(
    'ul',
    { class: 'motivos' },
    list.filter((m): m is string => m !== null).map((m) => h('li', {}, m)),
  );
}

/** What could take the line's place: the fractions that replaced it, else those its description suggests. */
function suggestions(r: Resultado): (HTMLElement | string)[] {
  if (r.reemplazada_por.length > 0)
    return [h('p', { class: 'sugerencia' }, 'Reemplazada por:'), h('ul', { class: 'fracciones' }, r.reemplazada_por.map(briefLink))];
  if (r.candidatas.length > 0 && (r.estado_fraccion !== 'vigente' || r.coincide === false)) {
    return [h('p', { class: 'sugerencia' }, 'Según la descripción:'), h('ul', { class: 'fracciones' }, r.candidatas.map(briefLink))];
  }
  return ['—'];
}

function reviewRow(r: Resultado): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('th', { scope: 'row' }, String(r.linea)),
    h('td', {}, r.referencia ?? ''),
    h('td', {}, r.descripcion ?? ''),
    h('td', { class: 'codigo' }, fractionCell(r)),
    h('td', {}, ESTADOS_FRACCION[r.estado_fraccion]),
    h('td', {}, reasons(r)),
    h('td', {}, suggestions(r)),
  );
}

/** The lines to review, in file order, a page at a time; the table scrolls in its own box on a narrow screen. */
export async function reviewSection(lote: Lote): Promise<HTMLElement> {
  const section = h('section', { 'aria-labelledby': 'titulo-revisar', class: 'revisar' }, h('h2', { id: 'titulo-revisar' }, 'Líneas por revisar'));
  const first = await own<Page<Resultado>>(`/api/v1/lotes/${lote.id}/resultados?solo_revisar=true&limit=${REVIEW_PAGE}`);
  if (first.total === 0) {
    const none = lote.procesadas === 0 ? 'No se procesó ninguna línea.' : `Ninguna de las ${number(lote.procesadas)} líneas procesadas necesita revisión.`;
    section.append(h('p', {}, none));
    return section;
  }
  section.append(
    h(
      'p',
      {},
      `${number(first.total)} de ${number(lote.procesadas)} líneas necesitan revisión: su fracción no está vigente, su descripción no corresponde a la fracción o algo en la línea no se pudo leer.`,
    ),
  );
  const body = h('tbody', {}, first.items.map(reviewRow));
  section.append(
    h(
      'div',
      { class: 'tabla desplazable', role: 'region', 'aria-label': 'Tabla de las líneas por revisar', tabindex: '0' },
      h(
        'table',
        { class: 'lineas' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            REVIEW_COLUMNS.map((label) => h('th', { scope: 'col' }, label)),
          ),
        ),
        body,
      ),
    ),
  );
  let shown = first.items.length;
  if (shown < first.total) {
    const more = h('button', { type: 'button', class: 'secundario' }, 'Ver más líneas');
    const said = h('p', { role: 'status', class: 'ayuda' }, `Se muestran ${number(shown)} de ${number(first.total)}.`);
    more.addEventListener('click', () => {
      more.disabled = true;
      own<Page<Resultado>>(`/api/v1/lotes/${lote.id}/resultados?solo_revisar=true&skip=${shown}&limit=${REVIEW_PAGE}`)
        .then((next) => {
          body.append(...next.items.map(reviewRow));
          shown += next.items.length;
          said.textContent = `Se muestran ${number(shown)} de ${number(first.total)}.`;
          more.disabled = false;
          if (shown >= first.total || next.items.length === 0) more.remove();
        })
        .catch((error: unknown) => {
          more.disabled = false;
          if (!(error instanceof SessionEnded)) said.textContent = explain(error);
        });
    });
    section.append(said, more);
  }
  return section;
}

/** The results as files: XLSX or CSV, all the lines or those to review. */
export function downloads(lote: Lote): HTMLElement {
  const only = h('input', { type: 'checkbox', id: 'solo-revisar' });
  const said = h('p', { role: 'status', class: 'ayuda' });
  const button = (formato: 'xlsx' | 'csv', label: string): HTMLButtonElement => {
    const b = h('button', { type: 'button' }, label);
    b.addEventListener('click', () => {
      b.disabled = true;
      said.textContent = 'Preparando el archivo…';
      const query = `formato=${formato}${only.checked ? '&solo_revisar=true' : ''}`;
      download(`/api/v1/lotes/${lote.id}/resultados?${query}`, `lote-${lote.id}.${formato}`)
        .then((name) => (said.textContent = `Descargado: ${name}`))
        .catch((error: unknown) => {
          if (!(error instanceof SessionEnded)) said.textContent = explain(error);
        })
        .finally(() => (b.disabled = false));
    });
    return b;
  };
  return h(
    'section',
    { 'aria-labelledby': 'titulo-descargar', class: 'descargas' },
    h('h2', { id: 'titulo-descargar' }, 'Descargar los resultados'),
    h('p', {}, 'Una fila por línea del archivo, en su orden, con todos los datos de cada una.'),
    h('p', { class: 'casilla' }, only, h('label', { for: 'solo-revisar' }, 'Solo las líneas por revisar')),
    h('p', { class: 'botones' }, button('xlsx', 'Descargar XLSX'), button('csv', 'Descargar CSV')),
    said,
  );
}
