/**
 * A watch list's form on the watch lists page (src/consulta/vigilancias.ts): its fields, the pasted
 * column of fractions read a line at a time, and what the API refuses said in Spanish next to each
 * field (a fraction by its line number), by the code each refusal carries (src/consulta/codigos.ts).
 */
import { typedDigits } from '../fraccion.js';
import { MAX_WATCH_FRACTIONS, MAX_WATCH_NAME } from '../limites.js';
import { ApiError, explain } from './api.js';
import { dotted, h } from './dom.js';
import { enEspanol } from './codigos.js';

export interface Body {
  nombre: string;
  fracciones: string[];
  conjuntos: string[];
  webhook: { url: string };
}

/**
 * The record sets a watch list can watch, in the words of the fraction page, tariffs first. Their
 * paths are the contract's (`conjuntos`); the test of this page holds them against the service's list.
 */
export const CONJUNTOS: readonly (readonly [path: string, label: string])[] = [
  ['fracciones', 'Fracciones y aranceles'],
  ['informacion-general', 'Información general (textos y notas)'],
  ['tlcs', 'Tratados de libre comercio (TLC)'],
  ['aladi2', 'ALADI'],
  ['fundamentos-tlc', 'Fundamentos de los tratados'],
  ['prosec', 'PROSEC'],
  ['cupos', 'Cupos'],
  ['cuotas2', 'Cuotas compensatorias'],
  ['requisito-previo', 'Permisos previos'],
  ['regulaciones', 'Regulaciones no arancelarias'],
  ['reit', 'Importación temporal (REIT)'],
  ['rcg2', 'Anexos de las Reglas Generales de Comercio Exterior'],
  ['noms', 'Normas oficiales (NOM)'],
  ['ieps', 'IEPS'],
  ['precios-estimados2', 'Precios estimados'],
  ['fracciones-anteriores', 'Fracciones anteriores (correlación)'],
  ['fracciones-usa', 'Fracciones de EE. UU.'],
  ['vehiculos-marcas', 'Vehículos: marcas'],
  ['vehiculos-modelos', 'Vehículos: modelos'],
];

/** A failed call said in words, unless it sent the person to the login. */
export const isSessionEnd = (error: unknown): boolean => error instanceof Error && error.name === 'SessionEnded';

/** The digits of a code as the API reads `fraccion` (dots and spaces dropped), or null unless 2 to 8 digits, or 10. */
export function codeDigits(typed: string): string | null {
  const digits = typedDigits(typed);
  return /^(\d{2,8}|\d{10})$/.test(digits) ? digits : null;
}

// ————— the form, and the API's refusals in its fields —————

export interface Line {
  /** 1 for the first line of the pasted text, blank lines counted. */
  readonly number: number;
  readonly text: string;
}

/** The codes of a pasted column: one a line, the spaces around each and the blank lines dropped; each keeps its line number. */
export function pastedLines(text: string): Line[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line, i) => ({ number: i + 1, text: line.trim() }))
    .filter((line) => line.text !== '');
}

export type FieldName = 'nombre' | 'fracciones' | 'conjuntos' | 'url';

interface Detail {
  type?: string;
  loc?: unknown[];
  msg?: string;
  ctx?: unknown;
}

const FRACTION_HELP = 'Escriba de 2 a 8 dígitos, o 10 con el NICO (por ejemplo 0101, 8471.30.01 o 4011.10.10.01).';

/** What the API refused, by field, in Spanish; `lines` are the codes sent, in the order sent. */
export function refusals(error: unknown, lines: readonly Line[]): { fields: Map<FieldName, string[]>; general: string[] } {
  const fields = new Map<FieldName, string[]>();
  const general: string[] = [];
  const add = (name: FieldName, message: string): void => void fields.set(name, [...(fields.get(name) ?? []), message]);
  if (!(error instanceof ApiError) || error.status !== 422 || !Array.isArray(error.detail)) {
    general.push(explain(error));
    return { fields, general };
  }
  for (const d of error.detail as Detail[]) {
    const [, where, index] = d.loc ?? [];
    if (where === 'nombre') add('nombre', 'Escriba un nombre para la vigilancia (hasta 200 caracteres).');
    else if (where === 'fracciones' && typeof index === 'number') {
      const line = lines[index];
      add('fracciones', line ? `Línea ${line.number}: «${line.text}» no es una fracción. ${FRACTION_HELP}` : `Una fracción no es válida. ${FRACTION_HELP}`);
    } else if (where === 'fracciones') {
      add(
        'fracciones',
        d.type === 'too_long'
          ? `Una vigilancia admite hasta ${MAX_WATCH_FRACTIONS.toLocaleString('en-US')} fracciones.`
          : 'Pegue al menos una fracción, una por línea.',
      );
    } else if (where === 'conjuntos') add('conjuntos', 'Elija al menos un conjunto de datos.');
    else if (where === 'webhook') {
      if (d.type === 'string_too_short' || d.type === 'missing') add('url', 'Escriba la dirección https donde su sistema recibe los avisos.');
      else if (d.type === 'string_too_long') add('url', 'La dirección es demasiado larga (hasta 2,000 caracteres).');
      else add('url', enEspanol(d.ctx) ?? `Dirección rechazada: ${d.msg ?? ''}`);
    } else general.push(enEspanol(d.ctx) ?? `Dato rechazado: ${d.msg ?? ''}`);
  }
  return { fields, general };
}

/**
 * The fields left empty, as the API would name them: the API checks a body's shape before its
 * fractions, so an empty name or URL sent would hide the lines it refuses until a second try.
 */
export function missing(body: Body): Detail[] {
  const empty: Detail[] = [];
  if (body.nombre === '') empty.push({ type: 'string_too_short', loc: ['body', 'nombre'] });
  if (body.fracciones.length === 0) empty.push({ type: 'too_short', loc: ['body', 'fracciones'] });
  if (body.conjuntos.length === 0) empty.push({ type: 'too_short', loc: ['body', 'conjuntos'] });
  if (body.webhook.url === '') empty.push({ type: 'string_too_short', loc: ['body', 'webhook', 'url'] });
  return empty;
}

export interface WatchForm {
  readonly form: HTMLFormElement;
  /** Shows the API's refusals next to their fields (none: clears them). */
  refuse(error: unknown, lines: readonly Line[]): void;
  clear(): void;
}

/**
 * The form of a watch list, empty or filled with one: name, the fractions pasted as a column, the
 * record sets as checkboxes, the webhook's URL. `save` sends the body; its refusals land next to their fields.
 */
export function watchForm(initial: Body, submitText: string, save: (body: Body, lines: readonly Line[]) => Promise<void>): WatchForm {
  const described = (id: string, help: boolean): string => [help ? `${id}-ayuda` : '', `${id}-error`].filter(Boolean).join(' ');
  const errorSpot = (id: string): HTMLElement => h('div', { class: 'error', id: `${id}-error` });
  const nombre = h('input', {
    id: 'v-nombre',
    name: 'nombre',
    maxlength: String(MAX_WATCH_NAME),
    autocomplete: 'off',
    'aria-describedby': described('v-nombre', false),
  });
  nombre.value = initial.nombre;
  const fracciones = h('textarea', {
    id: 'v-fracciones',
    name: 'fracciones',
    rows: '8',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': described('v-fracciones', true),
  });
  fracciones.value = initial.fracciones.map(dotted).join('\n');
  const url = h('input', {
    id: 'v-url',
    name: 'url',
    type: 'url',
    autocomplete: 'url',
    spellcheck: 'false',
    placeholder: 'https://',
    'aria-describedby': described('v-url', true),
  });
  url.value = initial.webhook.url;
  const boxes = CONJUNTOS.map(([path, label]) => {
    const box = h('input', { type: 'checkbox', id: `v-conjunto-${path}`, name: 'conjuntos', value: path });
    box.checked = initial.conjuntos.includes(path);
    return h('li', {}, box, h('label', { for: `v-conjunto-${path}` }, label));
  });
  const all = (checked: boolean): HTMLButtonElement => {
    const button = h('button', { type: 'button', class: 'secundario' }, checked ? 'Marcar todos' : 'Desmarcar todos');
    button.addEventListener('click', () => {
      for (const box of form.querySelectorAll<HTMLInputElement>('input[name="conjuntos"]')) box.checked = checked;
    });
    return button;
  };
  const summary = h('div', { class: 'mensaje' });
  const submit = h('button', { type: 'submit' }, submitText);
  const form = h(
    'form',
    { class: 'vigilancia', novalidate: true },
    h('div', { class: 'campo' }, h('label', { for: 'v-nombre' }, 'Nombre'), nombre, errorSpot('v-nombre')),
    h(
      'div',
      { class: 'campo' },
      h('label', { for: 'v-fracciones' }, 'Fracciones'),
      h(
        'span',
        { class: 'ayuda', id: 'v-fracciones-ayuda' },
        'Pegue una columna: una fracción por línea, con o sin puntos (0101, 8471.30.01, 4011.10.10.01). Un código corto vigila todo lo que empieza con él; 10 dígitos vigilan un NICO. Las líneas en blanco no cuentan.',
      ),
      fracciones,
      errorSpot('v-fracciones'),
    ),
    h(
      'fieldset',
      { class: 'conjuntos', 'aria-describedby': 'v-conjuntos-error' },
      h('legend', {}, 'Conjuntos de datos vigilados'),
      h('p', { class: 'acciones' }, all(true), all(false)),
      h('ul', {}, boxes),
      errorSpot('v-conjuntos'),
    ),
    h(
      'div',
      { class: 'campo' },
      h('label', { for: 'v-url' }, 'Dirección del webhook'),
      h('span', { class: 'ayuda', id: 'v-url-ayuda' }, 'Su sistema recibe cada aviso como POST firmado (Standard Webhooks) en esta dirección https.'),
      url,
      errorSpot('v-url'),
    ),
    summary,
    submit,
  );
  const inputs: Record<FieldName, HTMLElement> = { nombre, fracciones, conjuntos: form.querySelector('fieldset')!, url };
  const clear = (): void => {
    summary.replaceChildren();
    for (const [name, input] of Object.entries(inputs)) {
      input.removeAttribute('aria-invalid');
      form.querySelector(`#v-${name}-error`)!.replaceChildren();
    }
  };
  const refuse = (error: unknown, lines: readonly Line[]): void => {
    clear();
    const { fields, general } = refusals(error, lines);
    for (const [name, messages] of fields) {
      inputs[name].setAttribute('aria-invalid', 'true');
      form.querySelector(`#v-${name}-error`)!.replaceChildren(...messages.map((m) => h('p', {}, m)));
    }
    const said = fields.size > 0 ? ['No se guardó: revise los campos señalados.', ...general] : general;
    summary.replaceChildren(
      h(
        'div',
        { class: 'aviso', role: 'alert' },
        said.map((m) => h('p', {}, m)),
      ),
    );
    // The first field refused takes the focus, so that its message is the next thing read.
    const first = (['nombre', 'fracciones', 'conjuntos', 'url'] as const).find((n) => fields.has(n));
    if (first === 'conjuntos') form.querySelector<HTMLInputElement>('input[name="conjuntos"]')!.focus();
    else if (first !== undefined) inputs[first].focus();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const lines = pastedLines(fracciones.value);
    const body: Body = {
      nombre: nombre.value.trim(),
      fracciones: lines.map((l) => l.text),
      conjuntos: [...form.querySelectorAll<HTMLInputElement>('input[name="conjuntos"]:checked')].map((b) => b.value),
      webhook: { url: url.value.trim() },
    };
    const empty = missing(body);
    if (empty.length > 0) return refuse(new ApiError(422, empty), lines);
    submit.disabled = true;
    summary.replaceChildren(h('p', { role: 'status' }, 'Guardando…'));
    save(body, lines)
      .then(clear)
      .catch((error: unknown) => {
        if (isSessionEnd(error)) return;
        refuse(error, lines);
      })
      .finally(() => (submit.disabled = false));
  });
  return { form, refuse, clear };
}
