/**
 * "Reglas de origen" on a fraction's page: each rule as published (English marked as such), the
 * project's Spanish reading marked as the project's, and a bill of materials pasted from a spreadsheet
 * held against it (`POST /api/v1/reglas-origen/evaluar`), answered per requirement in Spanish.
 */
import { ApiError, explain, post } from './api.js';
import { absent, chosenDate, h } from './dom.js';
import type { Ficha } from './sections.js';
// Types only: the answers and the body are the server's schemas (no server code enters the page).
import type { EvaluarBody, EvaluarOrigen, ReglasOrigen } from '../reglas-origen/schema.js';

type Regla = ReglasOrigen['reglas'][number];
const list = (items: readonly (string | Node)[], attrs: Record<string, string> = {}): HTMLElement =>
  h(
    'ul',
    attrs,
    items.map((i) => h('li', {}, i)),
  );
/** A refusal or a problem, as an alert with its list. */
const alertList = (title: string, items: readonly string[]): HTMLElement => h('div', { role: 'alert', class: 'aviso' }, h('p', {}, title), list(items));
type Material = EvaluarBody['materiales'][number];

const RESULTADOS: Record<EvaluarOrigen['resultado'], string> = {
  cumple: 'Cumple',
  no_cumple: 'No cumple',
  no_determinable: 'No se puede determinar',
};

/** One rule: the agreement and set, the text as published, the project's reading. */
function ruleView(regla: Regla, index: number): HTMLElement {
  const id = `regla-${index}`;
  const heading = `${regla.acuerdo}: ${regla.encabezado}`;
  const english = regla.idioma === 'en';
  return h(
    'article',
    { class: 'regla', 'aria-labelledby': id },
    h('h3', { id }, heading, regla.parcial ? h('span', { class: 'parcial' }, ' (solo parte de las mercancías)') : null),
    regla.descripcion
      ? h('p', { class: 'descripcion-regla' }, h('span', { lang: 'en' }, regla.descripcion), ' ', h('span', { class: 'marca-idioma' }, '(en inglés)'))
      : null,
    regla.mercancias ? h('p', {}, 'Para: ', h('span', { lang: english ? 'en' : 'es' }, regla.mercancias)) : null,
    h(
      'div',
      { class: 'texto-acuerdo' },
      h('p', { class: 'etiqueta' }, english ? 'Texto del acuerdo (en inglés, como se publicó):' : 'Texto del acuerdo, como se publicó:'),
      h(
        'blockquote',
        { lang: english ? 'en' : 'es' },
        regla.texto.map((t) => h('p', {}, t)),
      ),
    ),
    h('div', { class: 'lectura-proyecto' }, h('p', { class: 'etiqueta' }, 'Lectura del proyecto (no es el texto oficial):'), h('p', {}, regla.texto_es)),
  );
}

/** A pasted line's "originario": sí or no in the usual spellings; null when it is neither. */
function yesNo(text: string): boolean | null {
  const t = text.trim().toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  if (['si', 's', 'x', 'yes', 'y', 'true', '1', 'originario'].includes(t)) return true;
  if (['no', 'n', 'false', '0', 'no originario'].includes(t)) return false;
  return null;
}

/**
 * Materials pasted from a spreadsheet: one per line, columns fracción, originario (sí/no), valor,
 * separated by tabs (or by semicolons); a header line is skipped. Problems are named by line.
 */
export function readMaterials(text: string): { materiales: Material[]; problems: string[] } {
  const materiales: Material[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const cells = (line.includes('\t') ? line.split('\t') : line.split(';')).map((c) => c.trim());
    const [fraccion = '', originario = '', valor = ''] = cells;
    const amount = valor.replace(/[$\s]/g, '').replace(/,/g, '');
    const yes = yesNo(originario);
    // A header line (its first cell is no code) is skipped.
    if (materiales.length === 0 && problems.length === 0 && !/^\d/.test(fraccion)) return;
    if (yes === null) problems.push(`Línea ${i + 1}: la segunda columna debe decir sí o no (originario).`);
    else if (!/^\d{1,13}(\.\d{1,2})?$/.test(amount)) problems.push(`Línea ${i + 1}: el valor debe ser un importe con hasta 2 decimales.`);
    else materiales.push({ fraccion, originario: yes, valor: amount, ...(cells[3] ? { descripcion: cells[3] } : {}) });
  });
  return { materiales, problems };
}

/** A refused evaluation in words: each field the service named. */
function refusal(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.status !== 422 || !Array.isArray(error.detail)) return [explain(error)];
  return (error.detail as { loc?: unknown[]; msg?: string }[]).map((d) => {
    const loc = d.loc ?? [];
    if (loc[1] === 'materiales' && typeof loc[2] === 'number')
      return `Material ${loc[2] + 1}: ${loc[3] === 'fraccion' ? 'la fracción debe tener de 2 a 10 dígitos' : (d.msg ?? 'valor no válido')}.`;
    if (loc[1] === 'materiales') return 'Se admiten hasta 1,000 materiales.';
    if (loc[1] === 'valores') return 'Los valores son importes con hasta 2 decimales (por ejemplo 1000.00).';
    const last = loc[loc.length - 1];
    return `${typeof last === 'string' || typeof last === 'number' ? String(last) : ''}: ${d.msg ?? 'valor no válido'}`;
  });
}

/** One requirement's answer: its result, why, and the materials that fail it. */
function requirementView(r: EvaluarOrigen['reglas'][number]['alternativas'][number]['requisitos'][number]): HTMLElement {
  const failing = r.materiales_que_fallan.length > 0 ? ` Materiales: ${r.materiales_que_fallan.map((m) => `n.º ${m + 1}`).join(', ')}.` : '';
  return h('li', { class: `requisito ${r.resultado}` }, h('strong', {}, `${RESULTADOS[r.resultado]}. `), r.motivo, failing);
}

function answerView(answer: EvaluarOrigen): HTMLElement {
  const rules = answer.reglas.map((regla) => {
    const options = regla.alternativas.map((alt, i) =>
      h('li', {}, h('p', {}, `Opción ${i + 1}: ${RESULTADOS[alt.resultado]}`), h('ul', {}, alt.requisitos.map(requirementView))),
    );
    const name = `${regla.encabezado}${regla.mercancias ? ` (${regla.mercancias})` : ''}: ${RESULTADOS[regla.resultado]}`;
    return h('div', { class: 'regla-evaluada' }, h('h4', {}, name), h('ol', {}, options));
  });
  const missing =
    answer.faltan.length > 0
      ? list(
          answer.faltan.map((f) => `Falta: ${f}`),
          { class: 'notas', 'aria-label': 'Lo que falta para decidir' },
        )
      : null;
  const verdict = h('p', { class: `veredicto ${answer.resultado}` }, `${RESULTADOS[answer.resultado]} la regla de origen de ${answer.acuerdo}.`);
  return h(
    'div',
    { class: 'calculo', role: 'status' },
    h('h3', {}, 'Resultado'),
    verdict,
    missing,
    rules,
    answer.advertencias.map((a) => h('p', { class: 'advertencia' }, a)),
  );
}

function input(id: string, label: string, help: string): HTMLElement {
  return h(
    'p',
    {},
    h('label', { for: id }, label),
    h('input', { id, name: id, inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': `${id}-ayuda` }),
    h('span', { class: 'ayuda', id: `${id}-ayuda` }, help),
  );
}

/** The evaluation form, for the agreements whose rules the fraction has. */
function evaluationForm(digits: string, reglas: readonly Regla[]): HTMLElement {
  const acuerdos = [...new Set(reglas.map((r) => r.acuerdo))];
  const sets = reglas.filter((r) => reglas.some((o) => o !== r && o.acuerdo === r.acuerdo && o.fuente.conjunto === r.fuente.conjunto));
  const result = h('div', { class: 'resultado-calculo' });
  const submit = h('button', { type: 'submit' }, 'Evaluar');
  const form = h(
    'form',
    { class: 'evaluar-origen', novalidate: true },
    h(
      'p',
      {},
      h('label', { for: 'o-acuerdo' }, 'Tratado'),
      h(
        'select',
        { id: 'o-acuerdo' },
        acuerdos.map((a) => h('option', { value: a }, a)),
      ),
    ),
    sets.length > 0
      ? h(
          'p',
          {},
          h('label', { for: 'o-entrada' }, 'Mercancía'),
          h(
            'select',
            { id: 'o-entrada', 'aria-describedby': 'o-entrada-ayuda' },
            h('option', { value: '' }, 'Sin indicar'),
            sets.map((r) => h('option', { value: String(r.fuente.entrada) }, `${r.acuerdo}: ${r.mercancias ?? 'todas las demás'}`)),
          ),
          h('span', { class: 'ayuda', id: 'o-entrada-ayuda' }, 'La regla depende de la mercancía: elija la suya.'),
        )
      : null,
    h(
      'p',
      {},
      h('label', { for: 'o-materiales' }, 'Materiales'),
      h('textarea', { id: 'o-materiales', rows: '5', 'aria-describedby': 'o-materiales-ayuda', spellcheck: 'false' }),
      h(
        'span',
        { class: 'ayuda', id: 'o-materiales-ayuda' },
        'Pegue columnas de una hoja de cálculo: fracción, originario (sí o no), valor; una línea por material.',
      ),
    ),
    input('o-vt', 'Valor de transacción', 'De la mercancía; para el contenido regional'),
    input('o-pff', 'Precio franco fábrica', 'Para los límites al valor de los materiales no originarios'),
    input('o-cn', 'Costo neto', 'Solo para el método de costo neto'),
    h('p', { class: 'casilla' }, h('input', { id: 'o-obtenido', type: 'checkbox' }), h('label', { for: 'o-obtenido' }, 'La mercancía es totalmente obtenida')),
    submit,
  );
  const value = (id: string): string => (form.querySelector<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(`#${id}`)?.value ?? '').trim();
  const money = (id: string): string | null => (value(id) === '' ? null : value(id).replace(/[$,\s]/g, ''));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const { materiales, problems } = readMaterials(value('o-materiales'));
    if (problems.length > 0) return result.replaceChildren(alertList('Revise los materiales:', problems));
    const valores = { valor_transaccion: money('o-vt'), precio_franco_fabrica: money('o-pff'), costo_neto: money('o-cn') };
    const body: EvaluarBody = { fraccion: digits, acuerdo: value('o-acuerdo'), valores, materiales };
    if (form.querySelector<HTMLInputElement>('#o-obtenido')!.checked) body.totalmente_obtenido = true;
    if (value('o-entrada') !== '') body.entrada = Number(value('o-entrada'));
    const date = chosenDate();
    if (date !== null) body.fecha = date;
    submit.disabled = true;
    result.replaceChildren(h('p', { role: 'status' }, 'Evaluando…'));
    post<EvaluarOrigen>('/api/v1/reglas-origen/evaluar', body)
      .then((answer) => result.replaceChildren(answerView(answer)))
      .catch((error: unknown) => {
        if (error instanceof Error && error.name === 'SessionEnded') return;
        result.replaceChildren(alertList('No se pudo evaluar:', refusal(error)));
      })
      .finally(() => (submit.disabled = false));
  });
  return h('div', {}, h('h3', {}, 'Evaluar una lista de materiales'), form, result);
}

export function showReglasOrigen(main: HTMLElement, digits: string, ficha: Ficha): void {
  const reglas = ficha.reglas_origen ?? [];
  const section = h('section', { id: 'reglas-origen', 'aria-labelledby': 'titulo-reglas-origen' }, h('h2', { id: 'titulo-reglas-origen' }, 'Reglas de origen'));
  main.append(section);
  if (reglas.length === 0) {
    section.append(absent('reglas de origen cargadas de los tratados vigentes'));
    return;
  }
  section.append(
    h(
      'p',
      { class: 'advertencia' },
      'Para la preferencia de un tratado la mercancía debe ser originaria según su regla. Basta cumplir una de las opciones de cada regla.',
    ),
    ...reglas.map(ruleView),
    evaluationForm(digits, reglas),
  );
}
