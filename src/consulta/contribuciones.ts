/**
 * "Calcular contribuciones" on a fraction's page: the facts of one shipment line, sent to
 * `POST /api/v1/contribuciones`, and its answer as one table per option (IGI, DTA, CC, IEPS, IVA,
 * Total), the best option said in words, the requirements listed. Amounts travel and show as the
 * decimal strings the service computes; the page does no arithmetic of its own.
 */
import { ApiError, explain, post } from './api.js';
import { absent, alertBox, chosenDate, field, h } from './dom.js';
import type { Ficha, Row } from './sections.js';
// Types only: the page's answer and body are the server's schema (no server code enters the page).
import type { Contribucion, ContribucionesAnswer, ContribucionesBody, Opcion, PartidaBody } from '../contribuciones/schema.js';

const TREATMENTS: Record<Opcion['tratamiento'], string> = {
  general: 'Tasa general',
  tlc: 'Tratado de libre comercio',
  aladi: 'ALADI',
  prosec: 'PROSEC',
  cupo: 'Cupo',
};
const SECTORS = [
  'I',
  'II',
  'III',
  'IV',
  'V',
  'VI',
  'VII',
  'VIII',
  'IX',
  'X',
  'XI',
  'XII',
  'XIII',
  'XIV',
  'XV',
  'XVI',
  'XVII',
  'XVIII',
  'XIX',
  'XX',
  'XXI',
  'XXII',
  'XXIII',
  'XXIV',
];
const REQUIREMENT_SETS: Record<string, string> = { 'requisito-previo': 'Permiso previo', regulaciones: 'Regulación', noms: 'NOM', cupos: 'Cupo' };

/** The line's notes, each once: a note such as "the data holds no preference record for this country" is never lost. */
const noteTexts = (notes: readonly string[]): string[] => [...new Set(notes.filter((n) => n.trim() !== ''))];

/** What the person typed, as the decimal string the service accepts: thousands separators and spaces dropped. */
const decimal = (typed: string): string => typed.replace(/[,\s]/g, '');

function optionTable(option: Opcion, best: boolean): HTMLElement {
  const name = `${TREATMENTS[option.tratamiento]}${option.acuerdo ? `: ${option.acuerdo}` : ''}`;
  // A mixed duty has both a rate and an amount per unit.
  const rate = (line: Contribucion): string =>
    [line.tasa !== undefined ? `${line.tasa} %` : '', line.cuota !== undefined ? [line.cuota, line.unidad].filter(Boolean).join(' por ') : '']
      .filter((s) => s !== '')
      .join(' + ');
  return h(
    'div',
    { class: best ? 'opcion mejor' : 'opcion' },
    h('h4', {}, name, best ? h('strong', { class: 'marca-mejor' }, ' · Mejor opción') : null),
    h(
      'div',
      { class: 'tabla', role: 'region', 'aria-label': name, tabindex: '0' },
      h(
        'table',
        { class: 'tarjetas' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Contribución', 'Base', 'Tasa o cuota', 'Tipo', 'Importe', 'Fundamento'].map((l) => h('th', { scope: 'col' }, l)),
          ),
        ),
        h(
          'tbody',
          {},
          option.contribuciones.map((line) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, line.clave),
              h('td', { 'data-label': 'Base' }, line.base),
              h('td', { 'data-label': 'Tasa o cuota' }, rate(line)),
              h('td', { 'data-label': 'Tipo' }, line.tipo),
              h('td', { class: 'importe', 'data-label': 'Importe' }, line.importe),
              h('td', { 'data-label': 'Fundamento' }, line.fundamento),
            ),
          ),
          h(
            'tr',
            { class: 'total' },
            h('th', { scope: 'row' }, 'Total'),
            h('td', { class: 'sin-dato' }),
            h('td', { class: 'sin-dato' }),
            h('td', { class: 'sin-dato' }),
            h('td', { class: 'importe', 'data-label': 'Importe' }, option.total),
            h('td', { class: 'sin-dato' }),
          ),
        ),
      ),
    ),
    option.identificadores.length > 0 ? h('p', {}, `Identificadores a declarar: ${option.identificadores.join(', ')}`) : null,
  );
}

function answerView(answer: ContribucionesAnswer): HTMLElement {
  const line = answer.partidas[0];
  if (line === undefined) return alertBox('El servicio no devolvió ninguna partida.');
  const best = line.mejor_opcion;
  let bestShown = false;
  const tables = line.opciones.map((option) => {
    const isBest = !bestShown && option.tratamiento === best;
    bestShown ||= isBest;
    return optionTable(option, isBest);
  });
  const requisitos = line.requisitos;
  const notes = noteTexts(line.notas);
  return h(
    'div',
    { class: 'calculo', role: 'status' },
    h('h3', {}, 'Resultado'),
    h('p', {}, `Mejor opción: ${TREATMENTS[best]}.`),
    // Beside the best option: a note such as "no preference record for this agreement country" qualifies it.
    notes.length > 0
      ? h(
          'ul',
          { class: 'notas', 'aria-label': 'Notas' },
          notes.map((n) => h('li', {}, n)),
        )
      : null,
    tables,
    h('h3', {}, 'Requisitos'),
    requisitos.length === 0
      ? absent('permisos, regulaciones, NOM ni cupos que presentar', 'esta importación')
      : h(
          'ul',
          {},
          requisitos.map((r) => h('li', {}, `${REQUIREMENT_SETS[r.conjunto] ?? r.conjunto}: ${r.descripcion || `registro ${String(r.id)}`}`)),
        ),
    answer.advertencias.map((a) => h('p', { class: 'advertencia' }, a)),
  );
}

const FIELD_HELP: Record<string, string> = {
  valor_aduana: 'Valor en aduana: un importe en pesos, con hasta 2 decimales (por ejemplo 100000.00).',
  cantidad_umt: 'Cantidad (UMT): un número con hasta 3 decimales; esta fracción la necesita para el cálculo.',
  pais_origen: 'País de origen: la clave de 3 letras (por ejemplo USA, CHN, DEU).',
  tipo_cambio: 'Tipo de cambio: pesos por dólar, con hasta 4 decimales.',
  nico: 'NICO: elija el NICO de la mercancía.',
  sector_prosec: 'Sector PROSEC: elija un sector de la lista.',
};

/** A refused calculation in words: each field the service named, else its message. */
function refusal(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.status !== 422 || !Array.isArray(error.detail)) return [explain(error)];
  return (error.detail as { loc?: unknown[]; msg?: string }[]).map((d) => {
    const last = d.loc?.[d.loc.length - 1];
    const name = typeof last === 'string' ? last : '';
    return FIELD_HELP[name] ?? `${name}: ${d.msg ?? 'valor no válido'}`;
  });
}

function input(id: string, label: string, attrs: Record<string, string | boolean> = {}, help?: string): HTMLElement {
  return h(
    'p',
    {},
    h('label', { for: id }, label),
    h('input', { id, name: id, ...attrs, ...(help ? { 'aria-describedby': `${id}-ayuda` } : {}) }),
    help ? h('span', { class: 'ayuda', id: `${id}-ayuda` }, help) : null,
  );
}

export function showContributions(main: HTMLElement, digits: string, ficha: Ficha): void {
  const section = h(
    'section',
    { id: 'contribuciones', 'aria-labelledby': 'titulo-contribuciones' },
    h('h2', { id: 'titulo-contribuciones' }, 'Calcular contribuciones'),
  );
  main.append(section);
  const own = (ficha['fracciones'] as Row[] | undefined) ?? [];
  const unit = field(own[0] ?? {}, 'UMABREVIACION');
  const nicoChoice =
    digits.length === 8 && own.length > 1
      ? h(
          'p',
          {},
          h('label', { for: 'c-nico' }, 'NICO'),
          h(
            'select',
            { id: 'c-nico' },
            own.map((r) => h('option', { value: field(r, 'NICO') }, `${field(r, 'NICO')} ${field(r, 'DESCRIPCION')}`)),
          ),
        )
      : null;
  const result = h('div', { class: 'resultado-calculo' });
  const submit = h('button', { type: 'submit' }, 'Calcular');
  const form = h(
    'form',
    { class: 'calcular', novalidate: true },
    nicoChoice,
    input('c-valor', 'Valor en aduana', { inputmode: 'decimal', required: true, autocomplete: 'off' }, 'En pesos, por ejemplo 100000.00'),
    input(
      'c-pais',
      'País de origen',
      { maxlength: '3', required: true, autocomplete: 'off', autocapitalize: 'characters' },
      'Clave de 3 letras: USA, CHN, DEU…',
    ),
    input(
      'c-cantidad',
      'Cantidad (UMT)',
      { inputmode: 'decimal', autocomplete: 'off' },
      unit ? `En ${unit}; necesaria para cuotas específicas` : 'Necesaria para cuotas específicas',
    ),
    h('p', { class: 'casilla' }, h('input', { id: 'c-certificado', type: 'checkbox' }), h('label', { for: 'c-certificado' }, 'Certificado de origen')),
    h(
      'p',
      {},
      h('label', { for: 'c-sector' }, 'Sector PROSEC'),
      h(
        'select',
        { id: 'c-sector' },
        h('option', { value: '' }, 'Ninguno'),
        SECTORS.map((s) => h('option', { value: s }, s)),
      ),
    ),
    input('c-cambio', 'Tipo de cambio', { inputmode: 'decimal', autocomplete: 'off' }, 'Pesos por dólar; solo para cuotas en dólares'),
    submit,
  );
  section.append(form, result);
  const value = (id: string): string => (form.querySelector<HTMLInputElement | HTMLSelectElement>(`#${id}`)?.value ?? '').trim();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const partida: PartidaBody = { fraccion: digits, valor_aduana: decimal(value('c-valor')) };
    if (nicoChoice !== null) partida.nico = value('c-nico');
    if (value('c-cantidad') !== '') partida.cantidad_umt = decimal(value('c-cantidad'));
    partida.certificado_origen = form.querySelector<HTMLInputElement>('#c-certificado')!.checked;
    if (value('c-sector') !== '') partida.sector_prosec = value('c-sector');
    const body: ContribucionesBody = { pais_origen: value('c-pais').toUpperCase(), partidas: [partida] };
    if (value('c-cambio') !== '') body.tipo_cambio = decimal(value('c-cambio'));
    const date = chosenDate();
    if (date !== null) body.fecha = date;
    submit.disabled = true;
    result.replaceChildren(h('p', { role: 'status' }, 'Calculando…'));
    post<ContribucionesAnswer>('/api/v1/contribuciones', body)
      .then((answer) => result.replaceChildren(answerView(answer)))
      .catch((error: unknown) => {
        if (error instanceof Error && error.name === 'SessionEnded') return;
        result.replaceChildren(
          h(
            'div',
            { role: 'alert', class: 'aviso' },
            h('p', {}, 'No se pudo calcular:'),
            h(
              'ul',
              {},
              refusal(error).map((m) => h('li', {}, m)),
            ),
          ),
        );
      })
      .finally(() => (submit.disabled = false));
  });
}
