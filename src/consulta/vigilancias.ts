/**
 * The watch lists page (../shared/spec/vigilancias.md, "Elsewhere"): `/consulta/vigilancias` lists the
 * person's watch lists and makes one from a pasted column of fractions; `/consulta/vigilancias/{id}`
 * shows one, its last deliveries (a test event, "send again"), and edits, re-keys or deletes it. Every
 * call is an ordinary client's call to `/api/v1/vigilancias`: the API decides what is valid, and the
 * page says each refusal in Spanish next to its field (a fraction by its line number). A fraction
 * page's "Vigilar esta fracción" opens the list page with `?fraccion=`: that fraction in the new watch
 * list's form, and a way to add it to an existing one.
 */
import type { EntregaJson, VigilanciaJson } from '../http/vigilancias-schemas.js';
import { ApiError, explain, send } from './api.js';
import { alertBox, dotted, h, link, pageUrl, show } from './dom.js';
import type { Body } from './vigilancia-form.js';
import { CONJUNTOS, codeDigits, isSessionEnd, refusals, watchForm } from './vigilancia-form.js';
export type { Body, Line } from './vigilancia-form.js';
export { CONJUNTOS, codeDigits, missing, pastedLines, refusals } from './vigilancia-form.js';

/** A watch list and a delivery as the service sends them (src/http/vigilancias.ts). */
type Vigilancia = VigilanciaJson;
type Entrega = EntregaJson;

interface Paged<T> {
  items: T[];
  total: number;
}

const API = '/api/v1/vigilancias';
const LIST_PAGE = '/consulta/vigilancias';
/** How many of a watch list's deliveries its page shows, newest first. */
const LAST_DELIVERIES = 20;

const conjuntoLabel = (path: string): string => CONJUNTOS.find(([p]) => p === path)?.[1] ?? path;

const EVENTS: Record<string, string> = { 'tarifa.cambios': 'Cambios en la tarifa', 'tarifa.prueba': 'Aviso de prueba' };
const STATES: Record<Entrega['estado'], string> = { pendiente: 'Pendiente', entregada: 'Entregada', fallida: 'Fallida' };

/** A moment as people in Mexico read it: `25/11/2026, 12:03:11`, in Mexico City time. */
function moment(iso: string | null): string {
  if (iso === null) return '';
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  return when.toLocaleString('es-MX', { timeZone: 'America/Mexico_City', dateStyle: 'short', timeStyle: 'medium' });
}

/** "19 (todos)", or the record sets' names when a watch list keeps to some. */
function conjuntosText(conjuntos: readonly string[]): string {
  if (conjuntos.length === CONJUNTOS.length) return `Todos (${conjuntos.length})`;
  return conjuntos.map(conjuntoLabel).join(', ');
}

const stateText = (v: Vigilancia): string => (v.activa ? 'Activa' : 'Desactivada');

/** The secret of a watch list just made (or re-keyed), which the API shows this once. */
function secretBox(v: Vigilancia, heading: string, linkToIt: boolean): HTMLElement {
  const code = h('code', { id: 'secreto' }, v.secreto ?? '');
  const copy = h('button', { type: 'button', class: 'secundario' }, 'Copiar');
  copy.addEventListener('click', () => {
    const selectIt = (): void => void window.getSelection()?.selectAllChildren(code);
    if (navigator.clipboard === undefined) return selectIt();
    void navigator.clipboard.writeText(v.secreto ?? '').then(() => (copy.textContent = 'Copiado'), selectIt);
  });
  return h(
    'div',
    { class: 'secreto', tabindex: '-1' },
    h('p', {}, h('strong', {}, heading)),
    h('p', {}, 'Secreto de firma: ', code, ' ', copy),
    h(
      'p',
      {},
      h('strong', {}, 'Cópielo ahora: no se volverá a mostrar. '),
      'Su sistema lo usa para comprobar la firma de cada aviso (encabezado webhook-signature). Si lo pierde, genere uno nuevo en la página de la vigilancia.',
    ),
    linkToIt ? h('p', {}, link(`${LIST_PAGE}/${encodeURIComponent(v.id)}`, `Ver la vigilancia «${v.nombre}» y sus entregas`)) : null,
  );
}

/** Asks in the page, before something that cannot be undone: the question, a button to go ahead and one to cancel. */
function confirmation(spot: HTMLElement, question: string, yes: string, act: () => Promise<void>, restore: () => void): void {
  const go = h('button', { type: 'button', class: 'peligro' }, yes);
  const cancel = h('button', { type: 'button', class: 'secundario' }, 'Cancelar');
  const message = h('div', { class: 'mensaje' });
  cancel.addEventListener('click', () => {
    restore();
    spot.querySelector('button')?.focus();
  });
  go.addEventListener('click', () => {
    go.disabled = true;
    act().catch((error: unknown) => {
      if (isSessionEnd(error)) return;
      go.disabled = false;
      message.replaceChildren(alertBox(explain(error)));
    });
  });
  spot.replaceChildren(
    h('div', { class: 'confirmar', role: 'group', 'aria-label': question }, h('p', {}, question), h('p', { class: 'acciones' }, go, cancel), message),
  );
  cancel.focus();
}

// ————— /consulta/vigilancias —————

function listTable(items: readonly Vigilancia[]): HTMLElement {
  return h(
    'div',
    { class: 'tabla', role: 'region', 'aria-label': 'Sus vigilancias', tabindex: '0' },
    h(
      'table',
      { class: 'tarjetas vigilancias' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Nombre', 'Webhook', 'Fracciones', 'Conjuntos de datos', 'Estado'].map((l) => h('th', { scope: 'col' }, l)),
        ),
      ),
      h(
        'tbody',
        {},
        items.map((v) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, link(`${LIST_PAGE}/${encodeURIComponent(v.id)}`, v.nombre)),
            h('td', { 'data-label': 'Webhook', class: 'url' }, v.webhook.url),
            h('td', { 'data-label': 'Fracciones' }, String(v.fracciones.length)),
            h('td', { 'data-label': 'Conjuntos de datos' }, conjuntosText(v.conjuntos)),
            h('td', { 'data-label': 'Estado', class: v.activa ? 'activa' : 'desactivada' }, stateText(v)),
          ),
        ),
      ),
    ),
  );
}

const listOf = (): Promise<Paged<Vigilancia>> => send<Paged<Vigilancia>>('GET', `${API}?limit=1000`);

function listBody(list: Paged<Vigilancia>): (HTMLElement | null)[] {
  if (list.items.length === 0) return [h('p', { class: 'vacio' }, 'Todavía no tiene vigilancias. Cree la primera con el formulario «Nueva vigilancia».')];
  return [
    listTable(list.items),
    list.total > list.items.length ? h('p', { class: 'cuenta' }, `Se muestran ${list.items.length} de ${list.total} vigilancias.`) : null,
  ];
}

/** "Vigilar esta fracción" from a fraction page: add it to a watch list the person already has. */
function addToExisting(code: string, list: Paged<Vigilancia>, changed: () => Promise<void>): HTMLElement | null {
  if (list.items.length === 0) return null;
  const select = h(
    'select',
    { id: 'v-existente' },
    list.items.map((v) => h('option', { value: v.id }, v.nombre)),
  );
  const message = h('div', { class: 'mensaje' });
  const submit = h('button', { type: 'submit' }, 'Añadir');
  const form = h(
    'form',
    { class: 'anadir', novalidate: true },
    h('p', {}, h('label', { for: 'v-existente' }, `O añada ${dotted(code)} a una vigilancia que ya tiene`), h('span', { class: 'fila' }, select, submit)),
    message,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    message.replaceChildren(h('p', { role: 'status' }, 'Añadiendo…'));
    void (async () => {
      const v = await send<Vigilancia>('GET', `${API}/${encodeURIComponent(select.value)}`);
      const page = link(`${LIST_PAGE}/${encodeURIComponent(v.id)}`, `Ver «${v.nombre}»`);
      const by = v.fracciones.find((f) => code.startsWith(f));
      if (by !== undefined) {
        message.replaceChildren(
          h('p', { role: 'status' }, `«${v.nombre}» ya vigila ${dotted(code)}${by === code ? '' : ` (por el código ${dotted(by)})`}. `, page),
        );
        return;
      }
      const body: Body = { nombre: v.nombre, fracciones: [...v.fracciones, code], conjuntos: v.conjuntos, webhook: v.webhook };
      await send<Vigilancia>('PUT', `${API}/${encodeURIComponent(v.id)}`, body);
      message.replaceChildren(h('p', { role: 'status' }, `Se añadió ${dotted(code)} a «${v.nombre}». `, page));
      await changed();
    })()
      .catch((error: unknown) => {
        if (isSessionEnd(error)) return;
        const { fields, general } = refusals(error, []);
        message.replaceChildren(alertBox(['No se pudo añadir la fracción.', ...[...fields.values()].flat(), ...general].join(' ')));
      })
      .finally(() => (submit.disabled = false));
  });
  return form;
}

/** What the API warned of in a watch list just saved, in Spanish by the warning's type; null when nothing. */
function warningsOf(v: Vigilancia): HTMLElement | null {
  const items = (v.advertencias ?? []).map((a) =>
    h(
      'li',
      {},
      `«${a.fraccion}» tiene ${a.fraccion.length} dígitos: vigila todo lo que empieza por ${a.fraccion}. ` +
        `Si es ${dotted(a.sugerencia)} y la hoja de cálculo le quitó el cero inicial, escríbala con el cero.`,
    ),
  );
  return items.length === 0 ? null : h('div', { class: 'advertencias', role: 'note' }, h('p', {}, 'Revise estos códigos:'), h('ul', {}, ...items));
}

export async function showVigilancias(): Promise<void> {
  const wanted = codeDigits(new URLSearchParams(location.search).get('fraccion') ?? '');
  const list = await listOf();
  const listArea = h('div', { id: 'lista-vigilancias' }, listBody(list));
  const refreshList = async (): Promise<void> => listArea.replaceChildren(...listBody(await listOf()).filter((n): n is HTMLElement => n !== null));
  const created = h('div', { class: 'creada' });
  const empty: Body = { nombre: '', fracciones: wanted === null ? [] : [wanted], conjuntos: CONJUNTOS.map(([p]) => p), webhook: { url: '' } };
  const { form } = watchForm(empty, 'Crear vigilancia', async (body) => {
    const made = await send<Vigilancia>('POST', API, body);
    for (const input of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('#v-nombre, #v-fracciones, #v-url')) input.value = '';
    for (const box of form.querySelectorAll<HTMLInputElement>('input[name="conjuntos"]')) box.checked = true;
    const box = secretBox(made, `Vigilancia «${made.nombre}» creada.`, true);
    const warnings = warningsOf(made);
    created.replaceChildren(box, ...(warnings === null ? [] : [warnings]));
    box.focus();
    await refreshList();
  });
  const watching =
    wanted === null
      ? null
      : h(
          'section',
          { class: 'vigilar-fraccion', 'aria-labelledby': 'titulo-vigilar' },
          h('h2', { id: 'titulo-vigilar' }, `Vigilar la fracción ${dotted(wanted)}`),
          h('p', {}, `La fracción ${dotted(wanted)} ya está en el formulario «Nueva vigilancia»: póngale un nombre y la dirección de su webhook para crearla.`),
          addToExisting(wanted, list, refreshList),
        );
  show(
    'Vigilancias',
    h('h1', {}, 'Vigilancias'),
    h(
      'p',
      {},
      'Una vigilancia avisa a su sistema, con un webhook firmado, cuando se carga una versión de la tarifa que cambia algo de las fracciones que vigila, y otra vez cuando esa versión entra en vigor.',
    ),
    watching,
    h('section', { 'aria-labelledby': 'titulo-lista' }, h('h2', { id: 'titulo-lista' }, 'Sus vigilancias'), listArea),
    h('section', { 'aria-labelledby': 'titulo-nueva' }, h('h2', { id: 'titulo-nueva' }, 'Nueva vigilancia'), created, form),
  );
  if (wanted !== null) form.querySelector<HTMLInputElement>('#v-nombre')!.focus();
}

// ————— /consulta/vigilancias/{id} —————

function deliveriesTable(items: readonly Entrega[], resend: (e: Entrega, button: HTMLButtonElement) => void): HTMLElement {
  return h(
    'div',
    { class: 'tabla', role: 'region', 'aria-label': 'Últimas entregas', tabindex: '0' },
    h(
      'table',
      { class: 'tarjetas entregas' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Evento', 'Momento', 'Estado', 'Intentos', 'Respuesta', 'Siguiente intento o entrega', 'Acción'].map((l) => h('th', { scope: 'col' }, l)),
        ),
      ),
      h(
        'tbody',
        {},
        items.map((e) => {
          let action: HTMLElement | null = null;
          if (e.estado !== 'pendiente') {
            const button = h(
              'button',
              { type: 'button', class: 'secundario', 'aria-label': `Enviar de nuevo: ${EVENTS[e.tipo] ?? e.tipo} del ${moment(e.creada)}` },
              'Enviar de nuevo',
            );
            button.addEventListener('click', () => resend(e, button));
            action = button;
          }
          const answer = e.ultimo_codigo !== null ? `HTTP ${e.ultimo_codigo}` : (e.ultimo_error ?? '');
          const next =
            e.estado === 'entregada' ? `Entregada ${moment(e.entregada)}` : e.estado === 'pendiente' && e.siguiente_intento ? moment(e.siguiente_intento) : '';
          return h(
            'tr',
            { 'data-estado': e.estado },
            h('th', { scope: 'row' }, EVENTS[e.tipo] ?? e.tipo, h('span', { class: 'evento' }, e.evento)),
            h('td', { 'data-label': 'Momento' }, moment(e.creada)),
            h('td', { 'data-label': 'Estado', class: `estado-${e.estado}` }, STATES[e.estado] ?? e.estado),
            h('td', { 'data-label': 'Intentos' }, String(e.intentos)),
            h('td', { 'data-label': 'Respuesta', class: 'respuesta' }, answer),
            h('td', { 'data-label': 'Siguiente intento o entrega' }, next),
            h('td', { 'data-label': 'Acción' }, action),
          );
        }),
      ),
    ),
  );
}

function summaryList(v: Vigilancia): HTMLElement {
  const row = (label: string, value: Node | string): HTMLElement => h('div', {}, h('dt', {}, label), h('dd', {}, value));
  return h(
    'dl',
    { class: 'ficha-vigilancia' },
    row('Estado', v.activa ? 'Activa' : 'Desactivada: su sistema respondió 410 (Gone). Guarde la vigilancia para activarla de nuevo.'),
    row('Webhook', h('span', { class: 'url' }, v.webhook.url)),
    row('Fracciones', `${v.fracciones.length}: ${v.fracciones.slice(0, 12).map(dotted).join(', ')}${v.fracciones.length > 12 ? '…' : ''}`),
    row('Conjuntos de datos', conjuntosText(v.conjuntos)),
    row('Creada', moment(v.creada)),
    row('Modificada', moment(v.actualizada)),
  );
}

function showDeleted(v: Vigilancia): void {
  show(
    'Vigilancia borrada',
    h('h1', {}, 'Vigilancia borrada'),
    h('p', { role: 'status' }, `La vigilancia «${v.nombre}» se borró, con sus entregas pendientes. Su sistema no recibirá más avisos de ella.`),
    h('p', {}, link(LIST_PAGE, 'Volver a sus vigilancias')),
  );
}

function showMissingVigilancia(): void {
  show(
    'Vigilancia no encontrada',
    h('h1', {}, 'Vigilancia no encontrada'),
    alertBox('Esta vigilancia no existe o no es suya.'),
    h('p', {}, link(LIST_PAGE, 'Ver sus vigilancias')),
  );
}

export async function showVigilancia(id: string): Promise<void> {
  const path = `${API}/${encodeURIComponent(id)}`;
  let v: Vigilancia;
  let deliveries: Paged<Entrega>;
  try {
    [v, deliveries] = await Promise.all([send<Vigilancia>('GET', path), send<Paged<Entrega>>('GET', `${path}/entregas?limit=${LAST_DELIVERIES}`)]);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return showMissingVigilancia();
    throw error;
  }
  const heading = h('h1', {}, `Vigilancia «${v.nombre}»`);
  const summary = h('div', {}, summaryList(v));
  const log = h('div', { id: 'entregas' });
  const logStatus = h('p', { class: 'cuenta', role: 'status' });

  const refresh = async (said: string): Promise<void> => {
    deliveries = await send<Paged<Entrega>>('GET', `${path}/entregas?limit=${LAST_DELIVERIES}`);
    renderLog();
    logStatus.textContent = said;
  };
  const failed = (error: unknown): void => {
    if (isSessionEnd(error)) return;
    logStatus.replaceChildren(alertBox(explain(error)));
  };
  const resend = (e: Entrega, button: HTMLButtonElement): void => {
    button.disabled = true;
    send<Entrega>('POST', `${path}/entregas/${encodeURIComponent(e.id)}/reenviar`)
      .then(() => refresh(`Se envía de nuevo el aviso ${e.evento}, con el mismo webhook-id.`))
      .catch((error: unknown) => {
        button.disabled = false;
        if (error instanceof ApiError && error.status === 409)
          logStatus.replaceChildren(alertBox('Esa entrega todavía está pendiente: el servicio la sigue intentando.'));
        else failed(error);
      });
  };
  function renderLog(): void {
    log.replaceChildren(
      deliveries.items.length === 0
        ? h('p', { class: 'vacio' }, 'Esta vigilancia todavía no ha enviado ningún aviso. Pruebe su webhook con «Enviar aviso de prueba».')
        : deliveriesTable(deliveries.items, resend),
      deliveries.total > deliveries.items.length
        ? h('p', { class: 'cuenta' }, `Se muestran las ${deliveries.items.length} más recientes de ${deliveries.total} entregas.`)
        : '',
    );
  }
  renderLog();
  const testButton = h('button', { type: 'button' }, 'Enviar aviso de prueba');
  testButton.addEventListener('click', () => {
    testButton.disabled = true;
    send<Entrega>('POST', `${path}/prueba`)
      .then(() => refresh('Aviso de prueba en camino. Pulse «Actualizar» para ver si se entregó.'))
      .catch(failed)
      .finally(() => (testButton.disabled = false));
  });
  const update = h('button', { type: 'button', class: 'secundario' }, 'Actualizar');
  update.addEventListener('click', () => {
    update.disabled = true;
    refresh(`Entregas actualizadas: ${moment(new Date().toISOString())}.`)
      .catch(failed)
      .finally(() => (update.disabled = false));
  });

  const saved = h('div', { class: 'mensaje' });
  const { form } = watchForm(v, 'Guardar cambios', async (body) => {
    saved.replaceChildren();
    v = await send<Vigilancia>('PUT', path, body);
    heading.textContent = `Vigilancia «${v.nombre}»`;
    document.title = `${heading.textContent} · Consulta de la tarifa`;
    summary.replaceChildren(summaryList(v));
    form.querySelector<HTMLTextAreaElement>('#v-fracciones')!.value = v.fracciones.map(dotted).join('\n');
    const warnings = warningsOf(v);
    saved.replaceChildren(
      h('p', { role: 'status', class: 'hecho' }, `Cambios guardados: ${v.fracciones.length} fracciones vigiladas.`),
      ...(warnings === null ? [] : [warnings]),
    );
  });

  const secretSpot = h('div', {});
  const secretStart = (): void => {
    const button = h('button', { type: 'button', class: 'secundario' }, 'Generar un secreto nuevo');
    button.addEventListener('click', () =>
      confirmation(
        secretSpot,
        '¿Generar un secreto nuevo? El actual deja de firmar en este momento: su sistema necesitará el nuevo para comprobar los avisos.',
        'Sí, generar',
        async () => {
          const rotated = await send<Vigilancia>('POST', `${path}/secreto`);
          const box = secretBox(rotated, 'Secreto nuevo generado.', false);
          secretSpot.replaceChildren(box);
          box.focus();
        },
        secretStart,
      ),
    );
    secretSpot.replaceChildren(button);
  };
  secretStart();

  const deleteSpot = h('div', {});
  const deleteStart = (): void => {
    const button = h('button', { type: 'button', class: 'peligro' }, 'Borrar vigilancia');
    button.addEventListener('click', () =>
      confirmation(
        deleteSpot,
        `¿Borrar la vigilancia «${v.nombre}»? Sus entregas pendientes se descartan y no se puede deshacer.`,
        'Sí, borrar',
        async () => {
          await send<null>('DELETE', path);
          showDeleted(v);
        },
        deleteStart,
      ),
    );
    deleteSpot.replaceChildren(button);
  };
  deleteStart();

  show(
    `Vigilancia «${v.nombre}»`,
    h('p', { class: 'volver' }, link(LIST_PAGE, 'Todas sus vigilancias')),
    heading,
    summary,
    h(
      'section',
      { 'aria-labelledby': 'titulo-entregas' },
      h('h2', { id: 'titulo-entregas' }, 'Últimas entregas'),
      h('p', { class: 'acciones' }, testButton, update),
      logStatus,
      log,
    ),
    h('section', { 'aria-labelledby': 'titulo-editar' }, h('h2', { id: 'titulo-editar' }, 'Editar'), form, saved),
    h(
      'section',
      { 'aria-labelledby': 'titulo-firma' },
      h('h2', { id: 'titulo-firma' }, 'Secreto de firma'),
      h('p', {}, 'El secreto firma cada aviso; solo se muestra al crear la vigilancia o al generar uno nuevo.'),
      secretSpot,
    ),
    h('section', { 'aria-labelledby': 'titulo-borrar' }, h('h2', { id: 'titulo-borrar' }, 'Borrar'), deleteSpot),
  );
}

/** The page of a fraction's "Vigilar esta fracción": the watch lists page with the code in its form. */
export const newVigilanciaUrl = (digits: string): string => pageUrl(LIST_PAGE, { fraccion: dotted(digits) });
