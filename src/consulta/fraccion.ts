/**
 * A fraction's page, `/consulta/fraccion/{code}`: its dotted code and description, where it sits in
 * the nomenclature, one section per subject (src/consulta/sections.ts), the notes the data holds, and the
 * contributions form. A fraction that no longer exists still has a page, linking the fractions that
 * replaced it (`fracciones-anteriores`); one that never existed says so.
 */
import type { RecordPage } from '../http/schemas.js';
import type { VersionDetail } from '../http/versiones.js';
import type { RecordOf } from '../record-sets/define.js';
import type { fracciones } from '../record-sets/fracciones.js';
import type { fraccionesAnteriores } from '../record-sets/fracciones-anteriores.js';
import { answeringVersion, explain, get } from './api.js';
import { showContributions } from './contribuciones.js';
import { showReglasOrigen } from './reglas-origen.js';
import { alertBox, date8, dotted, field, fractionDigits, fractionUrl, h, link, show } from './dom.js';
import { englishTexts, levelText } from './english.js';
import type { Coverage, Ficha, Row } from './sections.js';
import { SUBJECTS, subjectSection } from './sections.js';
import { newVigilanciaUrl } from './vigilancias.js';

/** A page of the tariff lines' search, as the service sends it. */
type Page = RecordPage<typeof fracciones>;

/**
 * Section › chapter › heading › subheading, each a link to its level of "Explorar la tarifa"; a text
 * the data holds only in English is marked as English.
 */
function nomenclaturePath(info: Row | undefined, digits: string, english: Record<string, string>): HTMLElement {
  const levels: Node[] = [];
  const add = (node: Node): void => {
    if (levels.length > 0) levels.push(document.createTextNode(' › '));
    levels.push(node);
  };
  const text = (code: string, name: string): Node[] =>
    info && field(info, name) !== '' ? [document.createTextNode(' '), levelText(code, field(info, name), english)] : [];
  const section = info ? field(info, 'SECCION') : '';
  if (section !== '') add(link(`/consulta/explorar/seccion/${section}`, `Sección ${section}`));
  add(link(`/consulta/explorar/capitulo/${digits.slice(0, 2)}`, `Capítulo ${digits.slice(0, 2)}`, text(digits.slice(0, 2), 'DESCRIPCIONCAPITULO')));
  add(link(`/consulta/explorar/partida/${digits.slice(0, 4)}`, `Partida ${digits.slice(0, 4)}`, text(digits.slice(0, 4), 'DESCRIPCIONPARTIDA')));
  if (info && field(info, 'DESCRIPCIONSUBPARTIDA') !== '')
    add(h('span', {}, `Subpartida ${dotted(digits.slice(0, 6))}`, text(digits.slice(0, 6), 'DESCRIPCIONSUBPARTIDA')));
  return h('nav', { class: 'ruta', 'aria-label': 'Ubicación en la tarifa' }, h('p', {}, levels));
}

/**
 * The code's history once for the fraction: the SAT catalog writes it per NICO, each naming its own
 * 10-digit code after the fraction's common lines, so the lines are joined without repeating any.
 */
function history(rows: readonly Row[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    for (const line of field(row, 'HISTORICO').split(/;\s+/)) {
      const clean = line.trim().replace(/\.$/, '');
      if (clean !== '' && !lines.includes(clean)) lines.push(clean);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('; ')}.`;
}

/** Notes the records carry: the chapter's and heading's where the data has them, and the fraction's own. */
function notes(ficha: Ficha): HTMLElement | null {
  const info = (ficha['informacion-general'] as Row[] | undefined) ?? [];
  const own = (ficha['fracciones'] as Row[] | undefined) ?? [];
  const found: [string, string][] = [];
  const seen = new Set<string>();
  const add = (label: string, text: string): void => {
    if (text === '' || seen.has(text)) return;
    seen.add(text);
    found.push([label, text]);
  };
  for (const row of info) {
    add('Notas del capítulo', field(row, 'NOTASCAPITULO'));
    add('Notas de la partida', field(row, 'NOTASPARTIDA'));
  }
  for (const row of [...own, ...info]) add('Notas de la fracción', field(row, 'NOTAS'));
  add('Historia del código', history(own));
  if (found.length === 0) return null;
  return h(
    'section',
    { id: 'notas', 'aria-labelledby': 'titulo-notas' },
    h('h2', { id: 'titulo-notas' }, 'Notas legales'),
    h(
      'dl',
      {},
      found.flatMap(([label, text]) => [h('dt', {}, label), h('dd', {}, text)]),
    ),
  );
}

/** "País": shows the preferences, quotas, duties and regulations of one origin (and those for every country). */
function countrySelector(ficha: Ficha, page: HTMLElement): HTMLElement | null {
  const countries = new Set<string>();
  for (const subject of SUBJECTS.filter((s) => s.byCountry)) {
    for (const part of subject.parts) for (const row of part.rows(ficha)) if (field(row, 'PAIS') !== '') countries.add(field(row, 'PAIS'));
  }
  if (countries.size === 0) return null;
  const select = h(
    'select',
    { id: 'pais' },
    h('option', { value: '' }, 'Todos los países'),
    [...countries].sort().map((c) => h('option', { value: c }, c)),
  );
  select.addEventListener('change', () => {
    for (const row of page.querySelectorAll<HTMLTableRowElement>('tr[data-pais]')) {
      const pais = row.dataset['pais'] ?? '';
      row.hidden = select.value !== '' && pais !== '' && pais !== select.value;
    }
  });
  return h('p', { class: 'pais' }, h('label', { for: 'pais' }, 'País '), select);
}

function title(digits: string, ficha: Ficha): string {
  const own = (ficha['fracciones'] as Row[] | undefined) ?? [];
  const info = ((ficha['informacion-general'] as Row[] | undefined) ?? [])[0];
  const nicoRow = digits.length === 10 ? own.find((r) => field(r, 'NICO') === digits.slice(8)) : undefined;
  // A fraction of several NICO whose own text the data lacks is named by its NICO texts, not by the first one alone.
  return field(nicoRow ?? {}, 'DESCRIPCION') || (info ? field(info, 'DESCRIPCION') : '') || own.map((r) => field(r, 'DESCRIPCION')).join('; ');
}

/** The NICO of this fraction, as a list of links, when there are several. */
function nicoList(digits: string, ficha: Ficha): HTMLElement | null {
  const own = (ficha['fracciones'] as Row[] | undefined) ?? [];
  if (digits.length === 10 || own.length < 2) return null;
  return h(
    'section',
    { class: 'nicos', 'aria-labelledby': 'titulo-nicos' },
    h('h2', { id: 'titulo-nicos' }, 'NICO de esta fracción'),
    h(
      'ul',
      {},
      own.map((row) =>
        h('li', {}, h('a', { href: fractionUrl(digits + field(row, 'NICO')) }, h('span', { class: 'nico' }, field(row, 'NICO')), field(row, 'DESCRIPCION'))),
      ),
    ),
  );
}

/** A rate as people read it: `10` is 10 %, `10%`, `Ex.` and `Prohibida` stay as written. */
const rateText = (written: string): string => (/^\d+(\.\d+)?$/.test(written) ? `${written} %` : written);

/**
 * The fraction's duties at a glance, right under its name: so that on a phone the IGI is on the first
 * screen, whatever follows. Several NICO with different rates show each different rate.
 */
function summary(digits: string, ficha: Ficha): HTMLElement | null {
  const own = ((ficha['fracciones'] as Row[] | undefined) ?? []).filter((r) => digits.length === 8 || field(r, 'NICO') === digits.slice(8));
  if (own.length === 0) return null;
  const distinct = (name: string): string => [...new Set(own.map((r) => rateText(field(r, name))).filter((v) => v !== ''))].join(' / ') || '—';
  const items: [string, string][] = [
    ['IGI (importación)', distinct('ADVIMPOTXT')],
    ['IGE (exportación)', distinct('ADVEXPOTXT')],
    ['Unidad (UMT)', distinct('UMABREVIACION')],
  ];
  return h(
    'dl',
    { class: 'resumen', 'aria-label': 'Aranceles de la fracción' },
    items.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
  );
}

/** The loaded version's coverage per record set, when the service reports it (`cobertura`). */
async function coverage(): Promise<Coverage | null> {
  const version = answeringVersion();
  if (version === null) return null;
  try {
    const answer = await get<VersionDetail>(`/api/v1/versiones/${encodeURIComponent(version)}`);
    return answer.cobertura ?? null;
  } catch {
    return null;
  }
}

/** "Imprimir", and "Vigilar esta fracción": the watch lists page with this code in its form, or to add to a list already made. */
function actions(digits: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'imprimir' }, 'Imprimir');
  button.addEventListener('click', () => window.print());
  return h('p', { class: 'acciones' }, button, h('a', { class: 'boton vigilar', href: newVigilanciaUrl(digits) }, 'Vigilar esta fracción'));
}

async function showFicha(digits: string, english: Promise<Record<string, string>>): Promise<void> {
  const [ficha, covered, texts] = await Promise.all([get<Ficha>(`/api/v1/ficha/${digits}`), coverage(), english]);
  const info = ((ficha['informacion-general'] as Row[] | undefined) ?? [])[0];
  const code = dotted(digits.slice(0, 8));
  const heading = h(
    'h1',
    {},
    h('span', { class: 'codigo' }, code),
    digits.length === 10 ? h('span', { class: 'nico' }, `NICO ${digits.slice(8)}`) : null,
    ' ',
    title(digits, ficha),
  );
  const main = show(
    `${code} ${title(digits, ficha)}`,
    nomenclaturePath(info, digits, texts),
    heading,
    summary(digits, ficha),
    actions(digits),
    nicoList(digits, ficha),
  );
  const selector = countrySelector(ficha, main);
  for (const subject of SUBJECTS) {
    const section = subjectSection(subject, ficha, covered);
    if (subject.id === 'preferencias' && selector !== null) section.firstElementChild?.after(selector);
    main.append(section);
  }
  const notesSection = notes(ficha);
  if (notesSection !== null) main.append(notesSection);
  showReglasOrigen(main, digits, ficha);
  showContributions(main, digits, ficha);
}

/** A NICO the fraction does not have: the fraction's own page is one link away. */
function showMissingNico(digits: string): void {
  const code = dotted(digits.slice(0, 8));
  show(
    `${dotted(digits)} no existe`,
    h('h1', {}, h('span', { class: 'codigo' }, code), h('span', { class: 'nico' }, `NICO ${digits.slice(8)}`)),
    alertBox(`La fracción ${code} no tiene el NICO ${digits.slice(8)} en la tarifa consultada.`),
    h('p', {}, h('a', { href: fractionUrl(digits.slice(0, 8)) }, `Ver la fracción ${code} y sus NICO`)),
  );
}

/** A code the data no longer has: replaced (its page links the fractions that replaced it), or unknown. */
async function showMissing(digits: string): Promise<void> {
  const code = dotted(digits);
  const replaced = await get<RecordOf<typeof fraccionesAnteriores>[]>('/api/v1/fracciones-anteriores/', { fraccion_anterior: digits, limit: 1000 });
  if (replaced.every((row) => field(row, 'FRACCIONACTUAL') === digits)) {
    show(
      `${code} no existe`,
      h('h1', {}, h('span', { class: 'codigo' }, code)),
      alertBox(`La fracción ${code} no existe en la tarifa consultada.`),
      h('p', {}, link('/consulta/', 'Buscar otra mercancía o fracción')),
    );
    return;
  }
  const targets = new Map<string, Row>();
  // A correlation row from a code to itself says the code was kept, not that it was replaced.
  for (const row of replaced) if (field(row, 'FRACCIONACTUAL') !== digits) targets.set(field(row, 'FRACCIONACTUAL') + field(row, 'NICOACTUAL'), row);
  show(
    `${code} (suprimida)`,
    h('h1', {}, h('span', { class: 'codigo' }, code), ' Fracción suprimida'),
    h('p', {}, `La fracción ${code} ya no existe en la tarifa consultada. La reemplaza:`),
    h(
      'ul',
      { class: 'reemplazos' },
      [...targets.entries()].map(([target, row]) =>
        h(
          'li',
          {},
          h('a', { href: fractionUrl(target) }, dotted(target)),
          field(row, 'DOF') ? ` (correlación publicada en el DOF el ${date8(row['DOF'])})` : '',
        ),
      ),
    ),
  );
}

export async function showFraction(typed: string): Promise<void> {
  const digits = fractionDigits(typed);
  if (digits === null) {
    show(
      'Código no válido',
      h('h1', {}, 'Código no válido'),
      alertBox(`«${typed}» no es una fracción: escriba 8 dígitos, o 10 con el NICO (por ejemplo 0901.21.01).`),
      h('p', {}, link('/consulta/', 'Ir a la búsqueda')),
    );
    return;
  }
  show(`Fracción ${dotted(digits)}`, h('h1', {}, h('span', { class: 'codigo' }, dotted(digits))), h('p', { role: 'status' }, 'Cargando…'));
  try {
    // Asked first, so that a missing fraction is an answer and not a refused call.
    const english = englishTexts([digits]);
    const exists = await get<Page>('/api/v1/fracciones/', { fraccion: digits, limit: 1 });
    if (exists.total > 0) await showFicha(digits, english);
    else if (digits.length === 10 && (await get<Page>('/api/v1/fracciones/', { fraccion: digits.slice(0, 8), limit: 1 })).total > 0) showMissingNico(digits);
    else await showMissing(digits.slice(0, 8));
  } catch (error) {
    if (error instanceof Error && error.name === 'SessionEnded') throw error;
    show(`Fracción ${dotted(digits)}`, h('h1', {}, h('span', { class: 'codigo' }, dotted(digits))), alertBox(explain(error)));
  }
}
