/**
 * The eight MCP tools (../shared/spec/mcp.md), each one REST call: its name, its Spanish description, the
 * REST operation whose parameters (or body) are its fields, the request its arguments make, and the
 * short Spanish text an assistant that reads only text gets. Input schemas are not written here: they
 * are taken from the OpenAPI document of the REST operation (src/http/mcp.ts), so a tool's fields are
 * the route's parameters with the route's own types, bounds and descriptions (docs/adr/0009-mcp.md).
 */
import { dotted as dottedCode, typedDigits } from '../fraccion.js';

/** A REST request, as the service's own app answers it (app.inject). */
export interface RestCall {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly payload?: unknown;
}

/** The arguments of a tool call, as its input schema admitted them. */
export type Args = Readonly<Record<string, unknown>>;

/**
 * Where a tool's fields come from, and so the REST call its arguments make (restCall): parameters of a
 * GET (by name), the JSON body of a POST, or a schema of its own with the request it makes.
 */
export type ToolFields =
  | { readonly from: 'parameters'; readonly path: string; readonly names: readonly string[] }
  | { readonly from: 'body'; readonly path: string }
  | { readonly from: 'own'; readonly schema: Readonly<Record<string, unknown>>; readonly request: (args: Args) => RestCall };

export interface ToolSpec {
  readonly name: string;
  readonly title: string;
  /** What the tool answers, in Spanish; the data's note (version, demo warning) is added when listed. */
  readonly description: string;
  readonly fields: ToolFields;
  /** A short Spanish text about the REST answer (already known to be a 2xx). */
  readonly summary: (answer: unknown, args: Args) => string;
}

/** A value as a parameter's text: what the input schemas admit for a GET are strings, numbers and booleans. */
const scalar = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);

/** A POST of the arguments, as they are, to `path`. */
export const postWith = (path: string, args: Args): RestCall => ({ method: 'POST', url: path, payload: args });

/** A GET of `path` (its `{name}` parts filled from the arguments) with the other arguments as its query. */
export function getWith(path: string, args: Args): RestCall {
  const query = new URLSearchParams();
  let url = path;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    const text = scalar(value);
    if (url.includes(`{${name}}`)) url = url.replace(`{${name}}`, encodeURIComponent(text));
    else query.append(name, text);
  }
  const search = query.toString();
  return { method: 'GET', url: search === '' ? url : `${url}?${search}` };
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string => (value === null || value === undefined ? '' : scalar(value));

/** Lines listed in a text at most; the rest is in the structured answer. */
const SHOWN = 5;

/** `0101.21.01` (and its NICO) as people write a fraction, from the digits of a value; fewer than 8 digits as they are. */
export function dotted(code: string): string {
  const digits = code.replace(/\D/g, '');
  return digits.length < 8 ? digits : dottedCode(digits);
}

function buscarSummary(answer: unknown, args: Args): string {
  const page = asObject(answer);
  const items = asArray(page['items']).map(asObject);
  if (items.length === 0) return `Sin resultados para «${str(args['q'])}».`;
  const lines = items.slice(0, SHOWN).map((hit) => `- ${dotted(str(hit['FRACCION']) + str(hit['NICO']))}: ${str(hit['DESCRIPCION'])}`);
  return [`${str(page['total'])} resultados para «${str(args['q'])}»; los primeros:`, ...lines].join('\n');
}

function fichaSummary(answer: unknown): string {
  const ficha = asObject(answer);
  const line = asObject(asArray(ficha['fracciones'])[0]);
  const counts = Object.entries(ficha)
    .filter(([, value]) => Array.isArray(value) && value.length > 0)
    .map(([name, value]) => `${name} ${(value as unknown[]).length}`);
  const nico = ficha['nico'] === null || ficha['nico'] === undefined ? '' : ` (NICO ${str(ficha['nico'])})`;
  const description = str(line['DESCRIPCION']);
  return `Fracción ${dotted(str(ficha['fraccion']))}${nico}${description === '' ? '' : `: ${description}`}. Registros: ${counts.join(', ') || 'ninguno'}.`;
}

function contribucionesSummary(answer: unknown): string {
  const result = asObject(answer);
  const totals = asObject(result['totales']);
  const lines = asArray(result['partidas'])
    .map(asObject)
    .slice(0, SHOWN)
    .map((line) => `- ${dotted(str(line['fraccion']) + str(line['nico']))}: mejor opción ${str(line['mejor_opcion'])}`);
  const warnings = asArray(result['advertencias']).map(str);
  return [
    `Contribuciones al ${str(result['fecha'])}, origen ${str(result['pais_origen'])}: total con tratamiento general ${str(totals['general'])} pesos, con la mejor opción ${str(totals['mejor'])} pesos.`,
    ...lines,
    ...warnings,
  ].join('\n');
}

function cambiosSummary(answer: unknown): string {
  const page = asObject(answer);
  return `${str(page['total'])} cambios de la versión ${str(page['desde_version'])} a la ${str(page['hasta_version'])} (se muestran ${asArray(page['items']).length}).`;
}

function versionesSummary(answer: unknown): string {
  const versions = asArray(answer).map(asObject);
  const current = versions.find((v) => v['actual'] === true);
  const now = current ? `; vigente hoy: ${str(current['version'])} (${str(current['fuente'])})` : '';
  return `${versions.length} versiones de los datos${now}.`;
}

function explorarSummary(answer: unknown): string {
  const level = asObject(answer);
  if (Array.isArray(level['secciones'])) {
    const chapters = level['secciones'].map(asObject).reduce((n, s) => n + asArray(s['capitulos']).length, 0);
    return `La tarifa: ${level['secciones'].length} secciones y ${chapters} capítulos.`;
  }
  if (Array.isArray(level['partidas'])) return `Capítulo ${str(level['capitulo'])} (${str(level['descripcion'])}): ${level['partidas'].length} partidas.`;
  const fractions = asArray(level['subpartidas'])
    .map(asObject)
    .reduce((n, s) => n + asArray(s['fracciones']).length, 0);
  return `Partida ${str(level['partida'])} (${str(level['descripcion'])}): ${asArray(level['subpartidas']).length} subpartidas, ${fractions} líneas.`;
}

function reglaOrigenSummary(answer: unknown): string {
  const result = asObject(answer);
  const rules = asArray(result['reglas'])
    .map(asObject)
    .slice(0, SHOWN)
    .map((r) => `- ${str(r['acuerdo'])} (${str(r['encabezado'])}): ${str(r['texto_es'])}`);
  const missing = asArray(result['sin_reglas']).map((s) => str(asObject(s)['acuerdo']));
  const none = missing.length === 0 ? [] : [`Sin reglas de origen cargadas para: ${missing.join(', ')}.`];
  return [
    `Reglas de origen de la fracción ${dotted(str(result['fraccion']) + str(result['nico']))} (lectura en español del proyecto; rige el texto del acuerdo):`,
    ...rules,
    ...none,
  ].join('\n');
}

const RESULTADO_ES: Readonly<Record<string, string>> = { cumple: 'cumple', no_cumple: 'no cumple', no_determinable: 'no se puede determinar' };

function evaluarOrigenSummary(answer: unknown): string {
  const result = asObject(answer);
  const missing = asArray(result['faltan']).map(str);
  return [
    `Regla de origen de ${str(result['acuerdo'])} para la fracción ${dotted(str(result['fraccion']) + str(result['nico']))}: ${RESULTADO_ES[str(result['resultado'])] ?? str(result['resultado'])}.`,
    ...(missing.length === 0 ? [] : [`Falta: ${missing.join('; ')}.`]),
    ...asArray(result['advertencias']).map(str),
  ].join('\n');
}

/** The tariff's tree a `codigo` names: nothing (sections and chapters), a chapter (2 digits) or a heading (4). */
const CODIGO_PATTERN = '^\\s*([0-9]{2}|[0-9]{2}[.\\s]?[0-9]{2})?\\s*$';

function explorarRequest(args: Args): RestCall {
  const code = typedDigits(str(args['codigo']));
  if (code.length === 2) return { method: 'GET', url: `/api/v1/nomenclatura/capitulos/${code}` };
  if (code.length === 4) return { method: 'GET', url: `/api/v1/nomenclatura/partidas/${code}` };
  return { method: 'GET', url: '/api/v1/nomenclatura' };
}

/** The REST call a tool's arguments make: the GET or POST its fields name, or its own request. */
export function restCall(fields: ToolFields, args: Args): RestCall {
  if (fields.from === 'own') return fields.request(args);
  return fields.from === 'body' ? postWith(fields.path, args) : getWith(fields.path, args);
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'buscar_fraccion',
    title: 'Buscar fracción arancelaria',
    description:
      'Busca fracciones arancelarias de la tarifa mexicana (LIGIE) por la descripción de la mercancía, en español o inglés, o por código; ' +
      'responde las líneas más pertinentes primero, cada una con su fracción, NICO, descripción y ruta en la nomenclatura. ' +
      'Es lo mismo que GET /api/v1/buscar.',
    fields: { from: 'parameters', path: '/api/v1/buscar', names: ['q', 'limit', 'as_of'] },
    summary: buscarSummary,
  },
  {
    name: 'ficha_fraccion',
    title: 'Ficha de una fracción',
    description:
      'Todo lo que aplica a una fracción arancelaria en una respuesta: su línea y NICO, aranceles (IGI/IGE), preferencias de tratados y ALADI, ' +
      'cupos, cuotas compensatorias, PROSEC, permisos, regulaciones, NOM, IEPS, precios estimados, fracciones anteriores y las líneas de EUA. ' +
      '`nico` y `pais` dejan solo los registros de ese NICO o país y los que aplican a todos. Es lo mismo que GET /api/v1/ficha/{fraccion}.',
    fields: { from: 'parameters', path: '/api/v1/ficha/{fraccion}', names: ['fraccion', 'nico', 'pais', 'as_of'] },
    summary: fichaSummary,
  },
  {
    name: 'calcular_contribuciones',
    title: 'Calcular contribuciones de una importación',
    description:
      'Calcula lo que paga una importación, partida por partida: IGI, DTA, cuotas compensatorias, IEPS e IVA, con el tratamiento general y con cada ' +
      'preferencia que aplica (tratado, ALADI, PROSEC, cupo), con base, tasa, importe y fundamento legal, y los permisos y NOM que hay que presentar. ' +
      'Importes exactos como cadenas decimales; es una estimación informativa, no sustituye al pedimento. Es lo mismo que POST /api/v1/contribuciones.',
    fields: { from: 'body', path: '/api/v1/contribuciones' },
    summary: contribucionesSummary,
  },
  {
    name: 'regla_origen',
    title: 'Reglas de origen de una fracción',
    description:
      'Las reglas de origen específicas que una mercancía de la fracción debe cumplir para la preferencia de cada tratado vigente cuyas reglas están ' +
      'cargadas (TIPAT, Reino Unido…): el texto publicado, su estructura (alternativas de requisitos: cambio de clasificación, contenido regional, ' +
      'valor máximo de materiales no originarios, totalmente obtenido, otros) y una lectura en español del proyecto; `sin_reglas` nombra los tratados ' +
      'vigentes sin reglas cargadas. `acuerdo`, `pais` y `fecha` lo acotan. Es lo mismo que GET /api/v1/reglas-origen/{fraccion}.',
    fields: { from: 'parameters', path: '/api/v1/reglas-origen/{fraccion}', names: ['fraccion', 'acuerdo', 'pais', 'fecha', 'as_of'] },
    summary: reglaOrigenSummary,
  },
  {
    name: 'evaluar_origen',
    title: 'Evaluar el origen de una mercancía',
    description:
      'Evalúa si una lista de materiales (fracción, originario o no, valor) y los valores de la mercancía cumplen la regla de origen de la fracción ' +
      'en un tratado: por regla, alternativa y requisito, cumple / no_cumple / no_determinable con el motivo, los materiales que fallan y los ' +
      'porcentajes exactos; nombra lo que falta para decidir. Es una estimación: no aplica de minimis, acumulación, tolerancias ni transporte directo, ' +
      'ni sustituye al certificado de origen. Es lo mismo que POST /api/v1/reglas-origen/evaluar.',
    fields: { from: 'body', path: '/api/v1/reglas-origen/evaluar' },
    summary: evaluarOrigenSummary,
  },
  {
    name: 'cambios_tarifa',
    title: 'Cambios entre versiones de la tarifa',
    description:
      'Qué cambió entre la versión de los datos vigente en `desde` y la vigente en `hasta` (hoy si no se da): altas, bajas y modificaciones por ' +
      'conjunto de registros, con los registros de antes y de después; `fraccion` y `conjunto` lo acotan. Es lo mismo que GET /api/v1/cambios.',
    fields: { from: 'parameters', path: '/api/v1/cambios', names: ['desde', 'hasta', 'fraccion', 'conjunto', 'skip', 'limit'] },
    summary: cambiosSummary,
  },
  {
    name: 'versiones_tarifa',
    title: 'Versiones de los datos',
    description:
      'Las versiones de los datos que tiene el servicio, la más reciente vigente primero: desde cuándo rige cada una, su fuente, cuándo se cargó y ' +
      'cuál es la vigente hoy. Es lo mismo que GET /api/v1/versiones (la lista va en `items`).',
    fields: {
      from: 'own',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      request: () => ({ method: 'GET', url: '/api/v1/versiones' }),
    },
    summary: versionesSummary,
  },
  {
    name: 'explorar_tarifa',
    title: 'Explorar la tarifa',
    description:
      'Recorre la nomenclatura de la tarifa un nivel a la vez: sin `codigo`, las secciones y sus capítulos; con un capítulo de 2 dígitos, sus partidas; ' +
      'con una partida de 4 dígitos, sus subpartidas con sus fracciones y NICO. Es lo mismo que GET /api/v1/nomenclatura, ' +
      '/api/v1/nomenclatura/capitulos/{capitulo} y /api/v1/nomenclatura/partidas/{partida}.',
    fields: {
      from: 'own',
      schema: {
        type: 'object',
        properties: {
          codigo: {
            type: 'string',
            pattern: CODIGO_PATTERN,
            description: 'Vacío: secciones y capítulos; 2 dígitos: un capítulo (09); 4 dígitos: una partida (0901, o 09.01)',
            examples: ['', '09', '0901'],
          },
        },
        additionalProperties: false,
      },
      request: explorarRequest,
    },
    summary: explorarSummary,
  },
];
