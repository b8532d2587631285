/**
 * "Explorar la tarifa": sections → chapters → headings → fractions, each level at its own address.
 * Sections and chapters come from `/api/v1/nomenclatura`; a chapter's headings and a heading's
 * fractions from the `informacion-general` records under that code.
 */
import { explain, get } from './api.js';
import { alertBox, dotted, field, fractionUrl, h, link, show } from './dom.js';
import type { Section } from '../http/nomenclatura.js';
import type { Row } from './sections.js';

const PAGE = 1000;

/** Every `informacion-general` record under a code, page after page. */
async function recordsUnder(code: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const page = await get<Row[]>('/api/v1/informacion-general/', { fraccion: code, skip, limit: PAGE });
    rows.push(...page);
    if (page.length < PAGE) return rows;
  }
}

function trail(...levels: (HTMLElement | string)[]): HTMLElement {
  const items = [link('/consulta/explorar/', 'Explorar la tarifa'), ...levels];
  return h('nav', { class: 'ruta', 'aria-label': 'Niveles' }, h('p', {}, items.flatMap((item, i) => (i === 0 ? [item] : [' › ', item]))));
}

const entry = (href: string, code: string, text: string | null, extra = ''): HTMLElement =>
  h('li', {}, link(href, h('span', { class: 'codigo' }, code), ` ${text ?? ''}`), extra ? h('span', { class: 'cuenta' }, ` ${extra}`) : null);

async function sections(): Promise<Section[]> {
  return (await get<{ secciones: Section[] }>('/api/v1/nomenclatura')).secciones;
}

async function showSections(): Promise<void> {
  const all = await sections();
  show(
    'Explorar la tarifa',
    h('h1', {}, 'Explorar la tarifa'),
    h('p', {}, 'Secciones de la tarifa; cada una lleva a sus capítulos.'),
    h('ul', { class: 'niveles' }, all.map((s) => entry(`/consulta/explorar/seccion/${s.seccion ?? ''}`, `Sección ${s.seccion ?? '—'}`, s.descripcion, `(${s.capitulos.length} capítulos)`))),
  );
}

async function showSection(code: string): Promise<void> {
  const section = (await sections()).find((s) => (s.seccion ?? '') === code);
  if (section === undefined) {
    show('Sección no encontrada', trail(), h('h1', {}, `Sección ${code}`), alertBox(`La sección ${code} no está en la tarifa consultada.`));
    return;
  }
  show(
    `Sección ${code}`,
    trail(),
    h('h1', {}, `Sección ${code} `, section.descripcion ?? ''),
    h('ul', { class: 'niveles' }, section.capitulos.map((c) => entry(`/consulta/explorar/capitulo/${c.capitulo}`, `Capítulo ${c.capitulo}`, c.descripcion, `(${c.fracciones} fracciones)`))),
  );
}

async function showChapter(code: string): Promise<void> {
  const rows = await recordsUnder(code);
  const first = rows[0];
  if (!/^\d{2}$/.test(code) || first === undefined) {
    show(`Capítulo ${code}`, trail(), h('h1', {}, `Capítulo ${code}`), alertBox(`El capítulo ${code} no está en la tarifa consultada.`));
    return;
  }
  const headings = new Map<string, string>();
  for (const row of rows) if (!headings.has(field(row, 'PARTIDA'))) headings.set(field(row, 'PARTIDA'), field(row, 'DESCRIPCIONPARTIDA'));
  const section = field(first, 'SECCION');
  show(
    `Capítulo ${code}`,
    trail(...(section ? [link(`/consulta/explorar/seccion/${section}`, `Sección ${section}`)] : [])),
    h('h1', {}, `Capítulo ${code} `, field(first, 'DESCRIPCIONCAPITULO')),
    h('ul', { class: 'niveles' }, [...headings].sort(([a], [b]) => a.localeCompare(b)).map(([partida, text]) => entry(`/consulta/explorar/partida/${partida}`, `Partida ${partida}`, text))),
  );
}

async function showHeading(code: string): Promise<void> {
  const rows = /^\d{4}$/.test(code) ? await recordsUnder(code) : [];
  const first = rows[0];
  if (first === undefined) {
    show(`Partida ${code}`, trail(), h('h1', {}, `Partida ${code}`), alertBox(`La partida ${code} no está en la tarifa consultada.`));
    return;
  }
  const bySubheading = new Map<string, Row[]>();
  for (const row of [...rows].sort((a, b) => (field(a, 'FRACCION') + field(a, 'NICO')).localeCompare(field(b, 'FRACCION') + field(b, 'NICO')))) {
    const key = field(row, 'SUBPARTIDA') || field(row, 'FRACCION').slice(0, 6);
    bySubheading.set(key, [...(bySubheading.get(key) ?? []), row]);
  }
  const section = field(first, 'SECCION');
  const chapter = code.slice(0, 2);
  show(
    `Partida ${code}`,
    trail(...(section ? [link(`/consulta/explorar/seccion/${section}`, `Sección ${section}`)] : []), link(`/consulta/explorar/capitulo/${chapter}`, `Capítulo ${chapter}`)),
    h('h1', {}, `Partida ${code} `, field(first, 'DESCRIPCIONPARTIDA')),
    [...bySubheading].map(([subheading, list]) =>
      h(
        'section',
        { class: 'subpartida', 'aria-label': `Subpartida ${dotted(subheading)}` },
        h('h2', {}, `Subpartida ${dotted(subheading)} `, field(list[0]!, 'DESCRIPCIONSUBPARTIDA')),
        h(
          'ul',
          { class: 'niveles' },
          list.map((row) => {
            const full = field(row, 'FRACCION') + field(row, 'NICO');
            return h('li', {}, h('a', { href: fractionUrl(full) }, h('span', { class: 'codigo' }, dotted(field(row, 'FRACCION'))), field(row, 'NICO') ? h('span', { class: 'nico' }, `NICO ${field(row, 'NICO')}`) : null, ` ${field(row, 'DESCRIPCIONNICO') || field(row, 'DESCRIPCION')}`));
          }),
        ),
      ),
    ),
  );
}

export async function showExplore(level: string | null, code: string | null): Promise<void> {
  try {
    if (level === 'seccion' && code !== null) await showSection(code);
    else if (level === 'capitulo' && code !== null) await showChapter(code);
    else if (level === 'partida' && code !== null) await showHeading(code);
    else await showSections();
  } catch (error) {
    if (error instanceof Error && error.name === 'SessionEnded') throw error;
    show('Explorar la tarifa', trail(), h('h1', {}, 'Explorar la tarifa'), alertBox(explain(error)));
  }
}
