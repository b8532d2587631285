/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The page's small toolbox: elements built from data (text is always a text node, never HTML, so a
 * record cannot inject markup), codes and dates written the way people read them, and the page's
 * own links, which keep the chosen "Vigente al" date. A fraction is read and written by the server's
 * own src/fraccion.ts, served beside the page (src/http/consulta.ts).
 */
import { dotted, readFraction, typedDigits } from '../fraccion.js';

export { dotted };

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** The text with the words the search matched in `<mark>` elements, built as nodes (the markers split the text). */
export function marked(withMarkers: string): Node[] {
  const parts = withMarkers.split(/<mark>|<\/mark>/);
  return parts.map((part, i) => (i % 2 === 1 ? h('mark', {}, part) : document.createTextNode(part)));
}

/** Digits of a fraction as people type it: dots and spaces dropped; null unless 8 or 10 digits remain. */
export const fractionDigits = (typed: string): string | null => (readFraction(typed) === null ? null : typedDigits(typed));

/** `20221212` → `12/12/2022`, as dates are written in Mexico. */
export function date8(value: unknown): string {
  const s = typeof value === 'string' ? value : '';
  return /^\d{8}$/.test(s) ? `${s.slice(6)}/${s.slice(4, 6)}/${s.slice(0, 4)}` : s;
}

/** Text of a record's field, empty when null. */
export function field(row: Record<string, unknown>, name: string): string {
  const value = row[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The "Vigente al" date of this page (YYYY-MM-DD), from its address; null for today's data. */
export function chosenDate(): string | null {
  const value = new URLSearchParams(location.search).get('fecha');
  return value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}

/** A path of the page, carrying the chosen date so that every link stays on the same version. */
export function pageUrl(path: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(params);
  const date = chosenDate();
  if (date !== null) query.set('fecha', date);
  const q = query.toString();
  return q === '' ? path : `${path}?${q}`;
}

export function link(path: string, ...children: (Child | Child[])[]): HTMLAnchorElement {
  return h('a', { href: pageUrl(path) }, ...children);
}

export function fractionUrl(code: string): string {
  return pageUrl(`/consulta/fraccion/${dotted(code)}`);
}

/** Replaces the page's main content and names it in the title. */
export function show(title: string, ...children: (Child | Child[])[]): HTMLElement {
  const main = document.getElementById('contenido')!;
  main.replaceChildren(...children.flat().filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  document.title = `${title} · Consulta de la tarifa`;
  return main;
}

/** A message the person must notice (read out by screen readers when it appears). */
export function alertBox(message: string): HTMLElement {
  return h('p', { class: 'aviso', role: 'alert' }, message);
}

/**
 * A kind of record the loaded data does not hold for this fraction, said as that: the data holds
 * none, which is not to say that none applies (issue 27).
 */
export function absent(what: string, where = 'esta fracción'): HTMLElement {
  return h('p', { class: 'vacio' }, `Los datos cargados no registran ${what} para ${where}.`);
}

/** The date the page answers for (YYYY-MM-DD): the chosen "Vigente al", else today in Mexico City. */
export function shownDate(): string {
  return chosenDate() ?? new Date().toLocaleDateString('sv-SE', { timeZone: 'America/Mexico_City' });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * A text as the data holds it, with its markup (`<i>…</i>`, `<il>…</il>` in the US records) taken out
 * and its entities read: what a person reads, never a tag. The records keep their markup in the API.
 */
export function plain(text: string): string {
  return text
    .replace(/<\/?[a-zA-Z][^<>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|nbsp);|&#(\d+);/g, (_m, name: string | undefined, code: string | undefined) =>
      name !== undefined ? (ENTITIES[name] ?? '') : String.fromCodePoint(Number(code)),
    )
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** A text in English among Spanish ones: said to be English to the eye and to a screen reader. */
export function inEnglish(text: string): HTMLElement {
  return h('span', { class: 'ingles' }, h('span', { lang: 'en' }, text), ' ', h('span', { class: 'marca-idioma' }, '(en inglés)'));
}
