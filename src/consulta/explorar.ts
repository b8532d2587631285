/**
 * "Explorar la tarifa": sections → chapters → headings → fractions, each level at its own address,
 * each read from its level of `/api/v1/nomenclatura`.
 */
import { ApiError, explain, get } from './api.js';
import { alertBox, dotted, fractionUrl, h, link, show } from './dom.js';
import { englishTexts, levelText } from './english.js';
import type { ChapterLevel, HeadingLevel, Section } from '../http/nomenclatura.js';

function trail(...levels: (HTMLElement | string)[]): HTMLElement {
  const items = [link('/consulta/explorar/', 'Explorar la tarifa'), ...levels];
  return h(
    'nav',
    { class: 'ruta', 'aria-label': 'Niveles' },
    h(
      'p',
      {},
      items.flatMap((item, i) => (i === 0 ? [item] : [' › ', item])),
    ),
  );
}

/** A level's text, marked as English when it is the HS English fallback. */
const described = (code: string, text: string | null, english: Record<string, string>): Node[] =>
  text ? [document.createTextNode(' '), levelText(code, text, english)] : [];

const entry = (href: string, code: string, text: string | null, extra = '', english: Record<string, string> = {}, digits = ''): HTMLElement =>
  h('li', {}, link(href, h('span', { class: 'codigo' }, code), described(digits, text, english)), extra ? h('span', { class: 'cuenta' }, ` ${extra}`) : null);

async function sections(): Promise<Section[]> {
  return (await get<{ secciones: Section[] }>('/api/v1/nomenclatura')).secciones;
}

async function showSections(): Promise<void> {
  const all = await sections();
  show(
    'Explorar la tarifa',
    h('h1', {}, 'Explorar la tarifa'),
    h('p', {}, 'Secciones de la tarifa; cada una lleva a sus capítulos.'),
    h(
      'ul',
      { class: 'niveles' },
      all.map((s) => entry(`/consulta/explorar/seccion/${s.seccion ?? ''}`, `Sección ${s.seccion ?? '—'}`, s.descripcion, `(${s.capitulos.length} capítulos)`)),
    ),
  );
}

async function showSection(code: string): Promise<void> {
  const section = (await sections()).find((s) => (s.seccion ?? '') === code);
  if (section === undefined) {
    show('Sección no encontrada', trail(), h('h1', {}, `Sección ${code}`), alertBox(`La sección ${code} no está en la tarifa consultada.`));
    return;
  }
  const english = await englishTexts(section.capitulos.map((c) => c.capitulo));
  show(
    `Sección ${code}`,
    trail(),
    h('h1', {}, `Sección ${code} `, section.descripcion ?? ''),
    h(
      'ul',
      { class: 'niveles' },
      section.capitulos.map((c) =>
        entry(`/consulta/explorar/capitulo/${c.capitulo}`, `Capítulo ${c.capitulo}`, c.descripcion, `(${c.fracciones} fracciones)`, english, c.capitulo),
      ),
    ),
  );
}

/** A level the data has no fraction under is an answer, not a failure. */
async function level<T>(path: string): Promise<T | null> {
  try {
    return await get<T>(path);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 422)) return null;
    throw error;
  }
}

const sectionLink = (section: string | null): HTMLElement[] => (section ? [link(`/consulta/explorar/seccion/${section}`, `Sección ${section}`)] : []);

async function showChapter(code: string): Promise<void> {
  const chapter = /^\d{2}$/.test(code) ? await level<ChapterLevel>(`/api/v1/nomenclatura/capitulos/${code}`) : null;
  if (chapter === null) {
    show(`Capítulo ${code}`, trail(), h('h1', {}, `Capítulo ${code}`), alertBox(`El capítulo ${code} no está en la tarifa consultada.`));
    return;
  }
  const english = await englishTexts([code]);
  show(
    `Capítulo ${code}`,
    trail(...sectionLink(chapter.seccion)),
    h('h1', {}, `Capítulo ${code}`, described(code, chapter.descripcion, english)),
    h(
      'ul',
      { class: 'niveles' },
      chapter.partidas.map((p) =>
        entry(`/consulta/explorar/partida/${p.partida}`, `Partida ${p.partida}`, p.descripcion, `(${p.fracciones} fracciones)`, english, p.partida),
      ),
    ),
  );
}

async function showHeading(code: string): Promise<void> {
  const heading = /^\d{4}$/.test(code) ? await level<HeadingLevel>(`/api/v1/nomenclatura/partidas/${code}`) : null;
  if (heading === null) {
    show(`Partida ${code}`, trail(), h('h1', {}, `Partida ${code}`), alertBox(`La partida ${code} no está en la tarifa consultada.`));
    return;
  }
  const english = await englishTexts([code]);
  show(
    `Partida ${code}`,
    trail(...sectionLink(heading.seccion), link(`/consulta/explorar/capitulo/${heading.capitulo}`, `Capítulo ${heading.capitulo}`)),
    h('h1', {}, `Partida ${code}`, described(code, heading.descripcion, english)),
    heading.subpartidas.map((sub) =>
      h(
        'section',
        { class: 'subpartida', 'aria-label': `Subpartida ${dotted(sub.subpartida)}` },
        h('h2', {}, `Subpartida ${dotted(sub.subpartida)}`, described(sub.subpartida, sub.descripcion, english)),
        h(
          'ul',
          { class: 'niveles' },
          sub.fracciones.map((f) =>
            h(
              'li',
              {},
              h(
                'a',
                { href: fractionUrl(f.fraccion + (f.nico ?? '')) },
                h('span', { class: 'codigo' }, dotted(f.fraccion)),
                f.nico ? h('span', { class: 'nico' }, `NICO ${f.nico}`) : null,
                ` ${f.descripcion ?? ''}`,
              ),
            ),
          ),
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
