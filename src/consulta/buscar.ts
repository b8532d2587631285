/**
 * The search page: one box for goods or a code. A code typed in any form goes straight to its
 * fraction; words list the hits with their dotted code, NICO, the description with the matched words
 * marked, and the path chapter › heading › subheading. Suggestions appear while typing. The results
 * live at an address holding the query (a permalink).
 */
import type { BuscarHit, BuscarResponse } from '../http/buscar.js';
import { explain, get } from './api.js';
import { alertBox, dotted, fractionDigits, fractionUrl, h, link, marked, pageUrl, show } from './dom.js';
import { englishTexts, levelText } from './english.js';
import { MAX_QUERY_LENGTH, MAX_SUGGEST_LENGTH } from '../limites.js';

const PAGE_SIZE = 20;
const SUGGEST_DELAY_MS = 150;

/** A hit as the service sends it (src/http/buscar.ts), read by name where the page looks for other spellings too. */
type Hit = BuscarHit & { readonly [other: string]: unknown };

/** "8714 Vehicles; parts…" as the code, then its text, marked as English when it is the HS English text of that code. */
function level(codeAndText: string, english: Record<string, string>): Node {
  const parts = /^([\d.]+)\s+(.*)$/s.exec(codeAndText.trim());
  if (parts === null) return document.createTextNode(codeAndText);
  return h('span', {}, `${parts[1]} `, levelText(parts[1]!.replaceAll('.', ''), parts[2]!, english));
}

/** The levels above a hit (chapter › heading › subheading): its own path when the service gives one, else built from the hit's texts. */
function pathOf(hit: Hit, english: Record<string, string>): Node[] {
  const given = hit['RUTA'] ?? hit['ruta'] ?? hit['path'];
  if (Array.isArray(given)) {
    return given
      .map((item: unknown) => {
        if (typeof item === 'string') return item;
        const l = item as Record<string, unknown>;
        return [l['codigo'] ?? l['code'], l['descripcion'] ?? l['texto'] ?? l['text']].filter((x) => typeof x === 'string' && x !== '').join(' ');
      })
      .filter((text) => text !== '')
      .slice(0, 3)
      .map((text) => level(text, english));
  }
  if (typeof given === 'string' && given !== '')
    return given
      .split('›')
      .slice(0, 3)
      .map((text) => level(text, english));
  const f = hit.FRACCION;
  const levels: [string, string | null | undefined][] = [
    [f.slice(0, 2), hit.DESCRIPCIONCAPITULO],
    [f.slice(0, 4), hit.DESCRIPCIONPARTIDA],
    [dotted(f.slice(0, 6)), hit.DESCRIPCIONSUBPARTIDA],
  ];
  return levels.flatMap(([code, text]) => (text ? [level(`${code} ${text}`, english)] : []));
}

function result(hit: Hit, english: Record<string, string>): HTMLElement {
  const code = hit.FRACCION + (hit.NICO ?? '');
  const description = hit.DESCRIPCION_MARCADA !== null ? marked(hit.DESCRIPCION_MARCADA) : [hit.DESCRIPCION ?? ''];
  const path = pathOf(hit, english);
  return h(
    'li',
    { class: 'resultado' },
    h(
      'a',
      { href: fractionUrl(code) },
      h('span', { class: 'codigo' }, dotted(hit.FRACCION)),
      hit.NICO !== null ? h('span', { class: 'nico' }, `NICO ${hit.NICO}`) : null,
      h('span', { class: 'descripcion' }, description),
    ),
    path.length > 0
      ? h(
          'p',
          { class: 'ruta' },
          path.flatMap((level, i) => (i === 0 ? [level] : [' › ', level])),
        )
      : null,
  );
}

/** Completions as the service words them: plain strings, or objects with a text and perhaps a fraction. */
function suggestionTexts(answer: unknown): string[] {
  const list = Array.isArray(answer)
    ? answer
    : ((answer as Record<string, unknown> | null)?.['items'] ?? (answer as Record<string, unknown> | null)?.['sugerencias']);
  if (!Array.isArray(list)) return [];
  return list
    .map((item: unknown) => {
      if (typeof item === 'string') return item;
      // The service's shape: {SUGERENCIA, TIPO: 'palabra' | 'fraccion', FRACCION, NICO, DESCRIPCION}.
      const s = item as Record<string, unknown>;
      const code = `${typeof s['FRACCION'] === 'string' ? s['FRACCION'] : ''}${typeof s['NICO'] === 'string' ? s['NICO'] : ''}`;
      const description = typeof s['DESCRIPCION'] === 'string' ? ` ${s['DESCRIPCION']}` : '';
      if (s['TIPO'] !== 'palabra' && /^\d{8}(\d{2})?$/.test(code)) return `${dotted(code)}${description}`;
      const text = s['SUGERENCIA'] ?? s['texto'];
      return typeof text === 'string' ? text : '';
    })
    .filter((t) => t !== '')
    .slice(0, 10);
}

function suggestWhileTyping(input: HTMLInputElement, list: HTMLDataListElement): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    const q = input.value.trim();
    // A pasted invoice line is longer than suggestions read: the search itself answers it.
    if (q.length < 2 || q.length > MAX_SUGGEST_LENGTH) return;
    timer = setTimeout(() => {
      const ticket = ++asked;
      get<unknown>('/api/v1/buscar/sugerencias', { q })
        .then((answer) => {
          if (ticket !== asked) return;
          list.replaceChildren(...suggestionTexts(answer).map((text) => h('option', { value: text })));
        })
        .catch(() => list.replaceChildren());
    }, SUGGEST_DELAY_MS);
  });
}

/** A fraction typed at the start of what was chosen (a code alone, or a suggested code and its text). */
function typedFraction(q: string): string | null {
  const code = /^[\d.\s]+/.exec(q)?.[0] ?? '';
  return fractionDigits(code);
}

async function results(q: string, pageNumber: number): Promise<HTMLElement> {
  const page = await get<BuscarResponse>('/api/v1/buscar', { q, skip: (pageNumber - 1) * PAGE_SIZE, limit: PAGE_SIZE });
  const english = await englishTexts(page.items.map((hit) => hit.FRACCION));
  const from = (pageNumber - 1) * PAGE_SIZE;
  const summary =
    page.total === 0
      ? `Sin resultados para «${q}». Pruebe con otras palabras o con parte del código.`
      : `${page.total} resultado${page.total === 1 ? '' : 's'} para «${q}»${page.total > PAGE_SIZE ? `; del ${from + 1} al ${from + page.items.length}` : ''}.`;
  const more = h('nav', { 'aria-label': 'Páginas de resultados', class: 'paginas' });
  if (pageNumber > 1) more.append(h('a', { href: pageUrl('/consulta/', { q, pagina: String(pageNumber - 1) }) }, 'Anteriores'));
  if (from + page.items.length < page.total) more.append(h('a', { href: pageUrl('/consulta/', { q, pagina: String(pageNumber + 1) }) }, 'Siguientes'));
  return h(
    'section',
    { 'aria-labelledby': 'titulo-resultados' },
    h('h2', { id: 'titulo-resultados' }, 'Resultados'),
    h('p', { role: 'status' }, summary),
    h(
      'ol',
      { class: 'resultados', start: String(from + 1) },
      page.items.map((hit) => result(hit, english)),
    ),
    more,
  );
}

export async function showSearch(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const q = (params.get('q') ?? '').trim();
  const pageNumber = Math.max(1, Number.parseInt(params.get('pagina') ?? '1', 10) || 1);
  const input = h('input', {
    id: 'q',
    name: 'q',
    type: 'search',
    value: q,
    list: 'sugerencias',
    autocomplete: 'off',
    required: true,
    maxlength: String(MAX_QUERY_LENGTH),
  });
  const suggestions = h('datalist', { id: 'sugerencias' });
  const form = h(
    'form',
    { role: 'search', class: 'buscador', action: '/consulta/' },
    h('label', { for: 'q' }, 'Buscar mercancía o fracción'),
    h('div', { class: 'fila' }, input, h('button', { type: 'submit' }, 'Buscar')),
    h('p', { class: 'ayuda', id: 'ayuda-q' }, 'Palabras de la mercancía (café tostado) o un código de 8 o 10 dígitos, con o sin puntos.'),
    suggestions,
  );
  input.setAttribute('aria-describedby', 'ayuda-q');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = input.value.trim();
    if (typed === '') return;
    const code = typedFraction(typed);
    location.assign(code !== null ? fractionUrl(code) : pageUrl('/consulta/', { q: typed }));
  });
  const main = show(
    q === '' ? 'Buscar' : `Buscar: ${q}`,
    h('h1', {}, 'Consulta de la tarifa'),
    form,
    link('/consulta/explorar/', 'Explorar la tarifa por secciones y capítulos'),
  );
  if (q === '') input.focus();
  suggestWhileTyping(input, suggestions);
  if (q === '') return;
  main.append(h('p', { role: 'status' }, 'Buscando…'));
  try {
    const section = await results(q, pageNumber);
    main.lastElementChild?.remove();
    main.append(section);
  } catch (error) {
    main.lastElementChild?.remove();
    main.append(alertBox(explain(error)));
  }
}
