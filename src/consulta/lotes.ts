/**
 * "Lotes": a whole catalogue checked at once (../shared/spec/lotes.md). `/consulta/lotes` sends a CSV
 * or XLSX file and lists the person's batches; `/consulta/lotes/{id}` follows one batch with a progress
 * bar (polling the batch, as any client of the API does), then shows the lines to review first and
 * saves the results as XLSX or CSV. Every call is one of the public batch API's.
 */
import { ApiError, SessionEnded, explain, own, remove, sendFile } from './api.js';
import { alertBox, chosenDate, h, link, pageUrl, show } from './dom.js';
import { enEspanol } from './codigos.js';
import { downloads, number, reviewSection } from './lote-resultados.js';
import type { LoteJson } from '../http/lotes.js';
import { MAX_BATCH_BYTES, MAX_BATCH_LINES, MAX_BATCH_NAME } from '../limites.js';

type Estado = LoteJson['estado'];

/** A batch as `GET /api/v1/lotes/{id}` answers it (src/http/lotes.ts). */
type Lote = LoteJson;

interface Page<T> {
  items: T[];
  total: number;
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** What a batch admits, as the page says it. */
const BOUNDS = `${MAX_BATCH_LINES.toLocaleString('en-US')} líneas y ${MAX_BATCH_BYTES / 1024 / 1024} MiB`;
/** Batches listed per page, and lines to review shown at a time. */
const LIST_PAGE = 20;
/** How often a running batch is asked for its progress; it works 100 lines per slice. */
const POLL_MS = 1000;

const ESTADOS: Record<Estado, string> = {
  en_cola: 'En cola',
  procesando: 'En proceso',
  terminado: 'Terminado',
  cancelado: 'Cancelado',
  fallido: 'Falló',
};

const running = (lote: Lote): boolean => lote.estado === 'en_cola' || lote.estado === 'procesando';
const when = (iso: string | null): string => (iso === null ? '—' : new Date(iso).toLocaleString('es-MX', { dateStyle: 'short', timeStyle: 'short' }));
const progressText = (lote: Lote): string => `${lote.progreso} % · ${number(lote.procesadas)} de ${number(lote.lineas)} líneas`;
/** A batch's name; one sent without a name is named by the API with its upload time, shown as people read it. */
const nameOf = (lote: Lote): string => (lote.nombre === lote.creado ? `del ${when(lote.creado)}` : lote.nombre);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A batch's progress bar; `label` names it where no `<label>` does (a row of the list). */
function progressBar(lote: Lote, id: string, label?: string): HTMLProgressElement {
  return h('progress', { id, max: '100', value: String(lote.progreso), 'aria-label': label }, `${lote.progreso} %`);
}

/** What the API's refusal of a file says, in Spanish; the service words its reasons in English. */
interface Detail {
  loc?: unknown[];
  ctx?: { code?: string; linea?: number };
}

/** A sentence for each refused query value. */
const QUERY_PROBLEMS: Record<string, string> = {
  nombre: 'El nombre admite hasta 100 caracteres.',
  fecha: 'La fecha no es válida.',
  pais_origen: 'El país de origen es una clave de 3 letras (por ejemplo USA o CHN).',
};

/**
 * Why the service did not take the file, said so that the person can fix it, by the code each
 * refusal carries (src/consulta/codigos.ts). `activos`: the person's batches queued or running, the
 * number a 429 says they have reached.
 */
export function refusal(error: unknown, activos?: number): string {
  if (!(error instanceof ApiError)) return explain(error);
  if (error.status === 422 && Array.isArray(error.detail)) {
    const sentences = (error.detail as Detail[]).map((d) => {
      const where = d.loc?.[0];
      if (where === 'query') return QUERY_PROBLEMS[String(d.loc?.[1])] ?? 'Un dato del formulario no es válido.';
      const line = d.ctx?.linea;
      const problem = enEspanol(d.ctx) ?? 'el archivo no se puede leer';
      return `El archivo no se aceptó${line === undefined ? '' : ` (línea ${line})`}: ${problem}. No se guardó nada.`;
    });
    return [...new Set(sentences)].join(' ');
  }
  if (error.status === 413) return `El archivo es demasiado grande: un lote admite hasta ${BOUNDS}, y un XLSX no puede descomprimirse en mucho más.`;
  if (error.status === 415) return 'Solo se aceptan archivos CSV o XLSX.';
  if (error.status === 429) {
    return `Ya tiene en cola o en proceso el máximo de lotes a la vez${activos === undefined ? '' : ` (${activos})`}. Espere a que termine alguno, o cancele uno, y envíe de nuevo.`;
  }
  return explain(error);
}

/** After a 429, how many of the person's batches are queued or running (the most they may have at once), when the list says. */
async function activeCount(error: unknown): Promise<number | undefined> {
  if (!(error instanceof ApiError) || error.status !== 429) return undefined;
  const page = await own<Page<Lote>>(`/api/v1/lotes?limit=${LIST_PAGE}`).catch(() => null);
  return page === null ? undefined : page.items.filter(running).length;
}

/** The file's type by its name (a browser does not always know a CSV's), or null when it is neither CSV nor XLSX. */
function fileType(file: File): string | null {
  const name = file.name.toLowerCase();
  if (name.endsWith('.csv') || file.type === 'text/csv') return 'text/csv';
  if (name.endsWith('.xlsx') || file.type === XLSX_TYPE) return XLSX_TYPE;
  return null;
}

function labelled(id: string, label: string, input: HTMLElement, help?: string): HTMLElement {
  if (help !== undefined) input.setAttribute('aria-describedby', `${id}-ayuda`);
  return h('p', {}, h('label', { for: id }, label), input, help === undefined ? null : h('span', { class: 'ayuda', id: `${id}-ayuda` }, help));
}

function sendForm(): HTMLElement {
  const file = h('input', { id: 'archivo', name: 'archivo', type: 'file', accept: `.csv,.xlsx,text/csv,${XLSX_TYPE}`, required: true });
  const name = h('input', { id: 'nombre-lote', name: 'nombre', maxlength: String(MAX_BATCH_NAME), autocomplete: 'off' });
  const date = h('input', { id: 'fecha-lote', name: 'fecha', type: 'date', value: chosenDate() ?? undefined });
  const country = h('input', {
    id: 'pais-lote',
    name: 'pais_origen',
    maxlength: '3',
    pattern: '[A-Za-z]{3}',
    autocomplete: 'off',
    autocapitalize: 'characters',
    spellcheck: 'false',
  });
  const message = h('div', { class: 'mensaje' });
  const submit = h('button', { type: 'submit' }, 'Enviar lote');
  const form = h(
    'form',
    { class: 'enviar-lote', 'aria-labelledby': 'titulo-enviar', novalidate: true },
    h('h2', { id: 'titulo-enviar' }, 'Enviar un archivo'),
    labelled(
      'archivo',
      'Archivo CSV o XLSX',
      file,
      `Una línea por mercancía; la primera fila nombra las columnas: descripcion o fraccion (al menos una) y, si las tiene, referencia, nico, pais_origen, valor_aduana, cantidad_umt y certificado_origen. Hasta ${BOUNDS}.`,
    ),
    labelled('nombre-lote', 'Nombre del lote (opcional)', name, 'Sin nombre, el lote lleva la hora de envío.'),
    labelled('fecha-lote', 'Vigente al (opcional)', date, 'La tarifa vigente ese día responde todas las líneas; sin fecha, la de hoy.'),
    labelled('pais-lote', 'País de origen (opcional)', country, 'Clave de 3 letras del Anexo 22 (USA, CHN…) para las líneas que no lo indiquen.'),
    message,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    const say = (text: string, focus: HTMLElement): void => {
      message.replaceChildren(alertBox(text));
      focus.focus();
    };
    if (chosen === undefined) return say('Elija el archivo que quiere revisar.', file);
    const type = fileType(chosen);
    if (type === null) return say('Elija un archivo CSV o XLSX.', file);
    if (chosen.size > MAX_BATCH_BYTES) return say(`El archivo es demasiado grande: un lote admite hasta ${BOUNDS}.`, file);
    const pais = country.value.trim();
    if (pais !== '' && !/^[A-Za-z]{3}$/.test(pais)) return say(QUERY_PROBLEMS['pais_origen']!, country);
    const query = new URLSearchParams();
    if (name.value.trim() !== '') query.set('nombre', name.value.trim());
    if (date.value !== '') query.set('fecha', date.value);
    if (pais !== '') query.set('pais_origen', pais.toUpperCase());
    const q = query.toString();
    submit.disabled = true;
    message.replaceChildren(h('p', { role: 'status' }, 'Enviando el archivo…'));
    sendFile<Lote>(q === '' ? '/api/v1/lotes' : `/api/v1/lotes?${q}`, chosen, type)
      .then((lote) => location.assign(pageUrl(`/consulta/lotes/${lote.id}`)))
      .catch((error: unknown) => {
        submit.disabled = false;
        if (error instanceof SessionEnded) return;
        void activeCount(error).then((activos) => say(refusal(error, activos), submit));
      });
  });
  return form;
}

function listRow(lote: Lote): HTMLTableRowElement {
  const progress = h('td', { 'data-label': 'Avance' }, progressBar(lote, `avance-${lote.id}`, `Avance del lote ${nameOf(lote)}`), ` ${lote.progreso} %`);
  return h(
    'tr',
    { 'data-lote': lote.id },
    h('th', { scope: 'row' }, link(`/consulta/lotes/${lote.id}`, nameOf(lote))),
    h('td', { 'data-label': 'Estado' }, ESTADOS[lote.estado]),
    h('td', { 'data-label': 'Líneas' }, number(lote.lineas)),
    progress,
    h('td', { 'data-label': 'Por revisar' }, number(lote.revisar)),
    h('td', { 'data-label': 'Enviado' }, when(lote.creado)),
    h('td', { 'data-label': 'Terminado' }, when(lote.terminado)),
  );
}

async function batchList(pageNumber: number): Promise<HTMLElement> {
  const skip = (pageNumber - 1) * LIST_PAGE;
  const page = await own<Page<Lote>>(`/api/v1/lotes?skip=${skip}&limit=${LIST_PAGE}`);
  const section = h('section', { 'aria-labelledby': 'titulo-lotes' }, h('h2', { id: 'titulo-lotes' }, 'Sus lotes'));
  if (page.total === 0) {
    section.append(h('p', { class: 'vacio' }, 'Aún no ha enviado ningún lote.'));
    return section;
  }
  const body = h('tbody', {}, page.items.map(listRow));
  section.append(
    h(
      'div',
      { class: 'tabla', role: 'region', 'aria-label': 'Tabla de sus lotes', tabindex: '0' },
      h(
        'table',
        { class: 'tarjetas lotes' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Nombre', 'Estado', 'Líneas', 'Avance', 'Por revisar', 'Enviado', 'Terminado'].map((label) => h('th', { scope: 'col' }, label)),
          ),
        ),
        body,
      ),
    ),
  );
  const pages = h('nav', { 'aria-label': 'Páginas de lotes', class: 'paginas' });
  if (pageNumber > 1) pages.append(h('a', { href: pageUrl('/consulta/lotes/', { pagina: String(pageNumber - 1) }) }, 'Más recientes'));
  if (skip + page.items.length < page.total) pages.append(h('a', { href: pageUrl('/consulta/lotes/', { pagina: String(pageNumber + 1) }) }, 'Anteriores'));
  if (pages.childElementCount > 0) section.append(pages);
  // Batches still running are followed in the list too, row by row.
  if (page.items.some(running)) void followList(body, page.items.filter(running));
  return section;
}

async function followList(body: HTMLTableSectionElement, batches: Lote[]): Promise<void> {
  let pending = batches;
  while (pending.length > 0 && body.isConnected) {
    await pause(POLL_MS);
    const next: Lote[] = [];
    for (const before of pending) {
      const lote = await own<Lote>(`/api/v1/lotes/${before.id}`).catch(() => null);
      const row = body.querySelector<HTMLTableRowElement>(`tr[data-lote="${before.id}"]`);
      if (lote === null || row === null) continue;
      // Every cell but the name's, whose link may hold the focus.
      const cells = Array.from(listRow(lote).cells);
      cells.forEach((cell, i) => {
        if (i > 0) row.cells[i]?.replaceWith(cell);
      });
      if (running(lote)) next.push(lote);
    }
    pending = next;
  }
}

export async function showLotes(): Promise<void> {
  const pageNumber = Math.max(1, Number.parseInt(new URLSearchParams(location.search).get('pagina') ?? '1', 10) || 1);
  const main = show(
    'Lotes',
    h('h1', {}, 'Lotes'),
    h(
      'p',
      {},
      'Revise un catálogo o las partidas de un pedimento de una vez: cada línea recibe el estado de su fracción, lo que la reemplazó, las fracciones que sugiere su descripción, el IGI, la mejor preferencia, los requisitos y las contribuciones.',
    ),
    sendForm(),
  );
  try {
    main.append(await batchList(pageNumber));
  } catch (error) {
    if (error instanceof SessionEnded) throw error;
    main.append(alertBox(explain(error)));
  }
}

function trail(name: string): HTMLElement {
  return h('nav', { class: 'ruta', 'aria-label': 'Niveles' }, h('p', {}, link('/consulta/lotes/', 'Lotes'), ' › ', name));
}

/** The parts of the batch's page that follow its state. */
interface BatchView {
  readonly summary: HTMLElement;
  readonly bar: HTMLProgressElement;
  readonly status: HTMLElement;
  readonly actions: HTMLElement;
  readonly message: HTMLElement;
  /** The results, shown once the batch has ended. */
  readonly results: HTMLElement;
}

function summaryOf(lote: Lote): HTMLElement[] {
  const item = (term: string, value: string): HTMLElement[] => [h('div', {}, h('dt', {}, term), h('dd', {}, value))];
  return [
    ...item('Estado', ESTADOS[lote.estado]),
    ...item('Líneas', number(lote.lineas)),
    ...item('Procesadas', number(lote.procesadas)),
    ...item('Por revisar', number(lote.revisar)),
    ...item('Con errores', number(lote.errores)),
    ...item('Vigente al', lote.fecha),
    ...item('Versión de los datos', lote.version ?? 'se fija al empezar'),
    ...item('Enviado', when(lote.creado)),
    ...item('Terminado', when(lote.terminado)),
  ];
}

/** Shows the batch's state. */
function update(view: BatchView, lote: Lote): void {
  view.summary.replaceChildren(...summaryOf(lote));
  view.bar.value = lote.progreso;
  view.bar.textContent = `${lote.progreso} %`;
  const text = `${ESTADOS[lote.estado]}: ${progressText(lote)}`;
  // Said again to a screen reader only when it changes.
  if (view.status.textContent !== text) view.status.textContent = text;
}

/** Cancels the batch; the page shows it cancelled at its next look at the batch. */
function cancelButton(view: BatchView, lote: Lote): HTMLElement {
  const button = h('button', { type: 'button', class: 'secundario' }, 'Cancelar el lote');
  button.addEventListener('click', () => {
    button.disabled = true;
    remove(`/api/v1/lotes/${lote.id}`)
      .then(() => view.status.replaceChildren('Cancelando el lote…'))
      .catch((error: unknown) => {
        button.disabled = false;
        if (!(error instanceof SessionEnded)) view.message.replaceChildren(alertBox(explain(error)));
      });
  });
  return button;
}

function deleteButton(view: BatchView, lote: Lote): HTMLElement {
  const button = h('button', { type: 'button', class: 'secundario peligro' }, 'Eliminar el lote');
  button.addEventListener('click', () => {
    if (!confirm(`¿Eliminar el lote ${nameOf(lote)} y sus resultados?`)) return;
    button.disabled = true;
    remove(`/api/v1/lotes/${lote.id}`)
      .then(() => location.assign(pageUrl('/consulta/lotes/')))
      .catch((error: unknown) => {
        button.disabled = false;
        if (!(error instanceof SessionEnded)) view.message.replaceChildren(alertBox(explain(error)));
      });
  });
  return button;
}

/** Once the batch has ended: what to do with it, the lines to review first, the files. */
async function ended(view: BatchView, lote: Lote): Promise<void> {
  view.actions.replaceChildren(deleteButton(view, lote));
  if (lote.estado === 'fallido') view.message.replaceChildren(alertBox('El lote no se pudo terminar; se muestran las líneas procesadas.'));
  if (lote.estado === 'cancelado')
    view.message.replaceChildren(h('p', { class: 'nota' }, 'El lote se canceló; se muestran las líneas procesadas hasta entonces.'));
  view.results.replaceChildren(await reviewSection(lote), downloads(lote));
}

/** Asks for the batch until it ends (or the person leaves the page), showing each state, then what it found. */
async function follow(view: BatchView, first: Lote): Promise<void> {
  let lote = first;
  view.actions.replaceChildren(cancelButton(view, lote));
  let failures = 0;
  while (running(lote)) {
    await pause(POLL_MS * Math.min(1 + failures, 10));
    if (!view.bar.isConnected) return;
    try {
      lote = await own<Lote>(`/api/v1/lotes/${lote.id}`);
      failures = 0;
      view.message.replaceChildren();
      update(view, lote);
    } catch (error) {
      if (error instanceof SessionEnded) return;
      if (error instanceof ApiError && error.status === 404) {
        view.message.replaceChildren(alertBox('Este lote ya no existe.'));
        return;
      }
      failures++;
      view.message.replaceChildren(alertBox(`${explain(error)} Se reintenta…`));
    }
  }
  await ended(view, lote);
}

export async function showLote(id: string): Promise<void> {
  const valid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
  let lote: Lote | null = null;
  try {
    if (valid) lote = await own<Lote>(`/api/v1/lotes/${id}`);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
  if (lote === null) {
    show('Lote no encontrado', trail('Lote'), h('h1', {}, 'Lote no encontrado'), alertBox('Este lote no existe, ya se eliminó o es de otro usuario.'));
    return;
  }
  const view: BatchView = {
    summary: h('dl', { class: 'resumen' }),
    bar: progressBar(lote, 'avance'),
    status: h('p', { role: 'status', id: 'avance-texto' }),
    actions: h('p', { class: 'botones' }),
    message: h('div', { class: 'mensaje' }),
    results: h('div', { class: 'resultados-lote' }),
  };
  view.bar.setAttribute('aria-describedby', 'avance-texto');
  show(
    `Lote ${nameOf(lote)}`,
    trail(nameOf(lote)),
    h('h1', {}, `Lote ${nameOf(lote)}`),
    view.summary,
    h('div', { class: 'avance' }, h('label', { for: 'avance' }, 'Avance del lote'), view.bar, view.status),
    view.actions,
    view.message,
    view.results,
  );
  update(view, lote);
  const followed = running(lote) ? follow(view, lote) : ended(view, lote);
  // The page is shown; the batch is followed from here on, and a failure is said on the page.
  void followed.catch((error: unknown) => {
    if (!(error instanceof SessionEnded)) view.message.replaceChildren(alertBox(explain(error)));
  });
}
