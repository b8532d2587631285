/**
 * The subjects of a fraction's page, as data: each heading, the record sets it shows and their
 * columns, in the words a broker reads. Fraction pages are built from this list; a subject or part
 * without records says that the loaded data holds none of them (never that none applies), with the
 * version's coverage of that record set when the service reports it.
 */
import type { Ficha } from '../http/ficha.js';
import type { VersionDetail } from '../http/versiones.js';
import { absent, date8, field, fractionUrl, dotted, h, plain, shownDate } from './dom.js';

export type Row = Record<string, unknown>;
export type Cell = string | Node;
export interface Column {
  readonly label: string;
  readonly value: (row: Row) => Cell;
  /** The language of the cell's text when it is not Spanish (the US records are in English). */
  readonly lang?: string;
}
export interface Part {
  /** A subheading inside the subject, when it shows several record sets. */
  readonly title?: string;
  /** The record set it shows, whose coverage is said when it has none for this fraction. */
  readonly conjunto: string;
  /** What the data holds none of, in "Los datos cargados no registran …". */
  readonly absence: string;
  readonly rows: (ficha: Ficha) => Row[];
  readonly columns: readonly Column[];
}
export interface Subject {
  readonly id: string;
  readonly title: string;
  /** What the data holds none of when every part is empty. */
  readonly absence: string;
  readonly parts: readonly Part[];
  /** Rows whose PAIS is another country are hidden by the country selector. */
  readonly byCountry?: boolean;
}
/** The ficha as the service answers it, typed by the server's schema of it (src/http/ficha.ts). */
export type { Ficha };
/** `cobertura` of `/api/v1/versiones/{version}`: per record set, how many of the version's fractions have a record. */
export type Coverage = VersionDetail['cobertura'];

/** The ficha's fields that hold a record set's records of the fraction. */
type RecordsOf = { [K in keyof Ficha]: Ficha[K] extends readonly Row[] ? K : never }[keyof Ficha];

const rowsOf =
  (path: RecordsOf) =>
  (ficha: Ficha): Row[] => {
    const value: unknown = ficha[path];
    return Array.isArray(value) ? (value as Row[]) : [];
  };
const anteriores =
  (side: 'reemplaza' | 'reemplazada_por') =>
  (ficha: Ficha): Row[] => {
    const value: unknown = (ficha['fracciones-anteriores'] as Partial<Ficha['fracciones-anteriores']> | undefined)?.[side];
    return Array.isArray(value) ? (value as Row[]) : [];
  };

const col = (label: string, name: string): Column => ({ label, value: (row) => field(row, name) });
const dof = (name = 'DOF'): Column => ({ label: 'DOF', value: (row) => date8(row[name]) });
const both = (label: string, a: string, b: string, joiner = ' '): Column => ({
  label,
  value: (row) => [field(row, a), field(row, b)].filter((s) => s !== '').join(joiner),
});
const period = (label: string, from: string, to: string): Column => ({
  label,
  value: (row) => [date8(row[from]), date8(row[to])].filter((s) => s !== '').join(' – '),
});
const percent =
  (name: string): ((row: Row) => string) =>
  (row) =>
    field(row, name) === '' ? '' : `${field(row, name)} %`;
/** A rate as written (`10%`, `Ex.`, `Prohibida`); a bare number is a percentage and says so. */
const rate =
  (name: string) =>
  (row: Row): string => {
    const written = field(row, name);
    return /^\d+(\.\d+)?$/.test(written) ? `${written} %` : written;
  };
const OPERATIONS: Record<string, string> = { IE: 'Importación y exportación', I: 'Importación', E: 'Exportación' };
/** Import, export or both, from the record's S/N fields. */
const direction = (row: Row): string =>
  OPERATIONS[(row['IMPORTACION'] === 'S' ? 'I' : '') + (row['EXPORTACION'] === 'S' ? 'E' : '')] ?? 'No indicada en los datos';
/** A prior permit has no S/N fields: its text says which operation it governs ("cuando se importe…"), or the data does not say. */
const permitDirection = (row: Row): string => {
  const text = field(row, 'DESCRIPCION').toLowerCase();
  return OPERATIONS[(/import/.test(text) ? 'I' : '') + (/export/.test(text) ? 'E' : '')] ?? 'No indicada en los datos';
};
const operation = (value: (row: Row) => string): Column => ({ label: 'Operación', value });
/** Its VIGENCIA, and "vencido" once that date has passed on the date the page shows. */
const validity: Column = {
  label: 'Vigencia',
  value: (row) => {
    const until = field(row, 'VIGENCIA');
    if (!/^\d{8}$/.test(until)) return '';
    const expired = until < shownDate().replaceAll('-', '');
    return expired ? h('span', {}, `${date8(until)} `, h('strong', { class: 'vencido' }, 'vencido')) : `hasta ${date8(until)}`;
  },
};
const fractionLink =
  (fraction: string, nico: string) =>
  (row: Row): Cell => {
    const code = field(row, fraction) + field(row, nico);
    return code === '' ? '' : h('a', { href: fractionUrl(code) }, dotted(code));
  };
const nico = col('NICO', 'NICO');
/** A field of a US record: English, and its markup (`<il>`, `<i>`) shown as the text it marks. */
const usText = (label: string, name: string): Column => ({ label, lang: 'en', value: (row) => plain(field(row, name)) });

export const SUBJECTS: readonly Subject[] = [
  {
    id: 'aranceles',
    title: 'Aranceles',
    absence: 'aranceles',
    parts: [
      {
        conjunto: 'fracciones',
        absence: 'aranceles',
        rows: rowsOf('fracciones'),
        columns: [
          nico,
          col('Descripción', 'DESCRIPCION'),
          col('Unidad (UMT)', 'UMABREVIACION'),
          { label: 'IGI (importación)', value: rate('ADVIMPOTXT') },
          { label: 'IGE (exportación)', value: rate('ADVEXPOTXT') },
          { label: 'IVA', value: percent('TASAIVAINTERIOR') },
          { label: 'Tasa mixta', value: (row) => (row['ARANCELMIXTO'] === 'S' ? field(row, 'TASAMIXTA') : '') },
          dof(),
        ],
      },
    ],
  },
  {
    id: 'preferencias',
    title: 'Preferencias arancelarias',
    absence: 'preferencias arancelarias (TLC ni ALADI)',
    byCountry: true,
    parts: [
      {
        title: 'Tratados de libre comercio (TLC)',
        conjunto: 'tlcs',
        absence: 'tasas de tratados de libre comercio',
        rows: rowsOf('tlcs'),
        columns: [
          col('País', 'PAIS'),
          col('Tasa', 'TASATXT'),
          { label: 'Tasa (%)', value: (row) => field(row, 'TASA1NUM') },
          nico,
          dof(),
          col('Notas', 'NOTAS'),
        ],
      },
      {
        title: 'ALADI',
        conjunto: 'aladi2',
        absence: 'preferencias ALADI',
        rows: rowsOf('aladi2'),
        columns: [
          col('Acuerdo', 'ACUERDO'),
          col('País', 'PAIS'),
          col('Preferencia', 'TASATXT'),
          col('Tasa resultante', 'TASACALCULADA'),
          nico,
          dof(),
          col('Notas', 'NOTAS'),
        ],
      },
      {
        title: 'Fundamentos de los tratados',
        conjunto: 'fundamentos-tlc',
        absence: 'fundamentos de tratados',
        rows: rowsOf('fundamentos-tlc'),
        columns: [col('Tratado', 'TLC'), col('País', 'PAIS'), col('Tasa', 'TASATXT'), col('Fundamento', 'FUNDAMENTO'), dof()],
      },
    ],
  },
  {
    id: 'prosec',
    title: 'PROSEC',
    absence: 'tasas PROSEC',
    parts: [
      {
        conjunto: 'prosec',
        absence: 'tasas PROSEC',
        rows: rowsOf('prosec'),
        columns: [col('Sector', 'SECTOR'), col('Artículo', 'ARTICULO'), col('Tasa', 'TASATXT'), nico, dof(), col('Observación', 'OBSERVACION')],
      },
    ],
  },
  {
    id: 'cupos',
    title: 'Cupos',
    absence: 'cupos',
    byCountry: true,
    parts: [
      {
        conjunto: 'cupos',
        absence: 'cupos',
        rows: rowsOf('cupos'),
        columns: [
          col('País', 'PAIS'),
          col('Acuerdo', 'ACUERDO'),
          { label: 'Operación', value: (row) => ({ I: 'Importación', E: 'Exportación' })[field(row, 'TIPOOPERACION')] ?? field(row, 'TIPOOPERACION') },
          both('Cantidad', 'CANTIDADCUPO', 'CLAVEUM'),
          col('Tasa', 'TASATXT'),
          col('Periodo', 'PERIODO'),
          period('Vigencia', 'FECHAINICIO', 'FECHAFIN'),
          col('Notas', 'NOTAS'),
        ],
      },
    ],
  },
  {
    id: 'cuotas',
    title: 'Cuotas compensatorias',
    absence: 'cuotas compensatorias',
    byCountry: true,
    parts: [
      {
        conjunto: 'cuotas2',
        absence: 'cuotas compensatorias',
        rows: rowsOf('cuotas2'),
        columns: [
          col('País', 'PAIS'),
          col('Producto', 'PRODUCTO'),
          col('Empresa', 'EMPRESA'),
          {
            label: 'Cuota',
            value: (row) =>
              field(row, 'PORCENTAJE') !== ''
                ? `${field(row, 'PORCENTAJE')} %`
                : [field(row, 'DOLARES'), field(row, 'CLAVEMONEDA'), field(row, 'CLAVEUM') && `por ${field(row, 'CLAVEUM')}`].filter(Boolean).join(' '),
          },
          col('Estatus', 'ESTATUS'),
          col('Resolución', 'RESOLUCION'),
          dof(),
        ],
      },
    ],
  },
  {
    id: 'permisos',
    title: 'Permisos y regulaciones',
    absence: 'permisos ni regulaciones no arancelarias',
    byCountry: true,
    parts: [
      {
        title: 'Permisos previos',
        conjunto: 'requisito-previo',
        absence: 'permisos previos',
        rows: rowsOf('requisito-previo'),
        columns: [
          operation(permitDirection),
          col('Permiso', 'PERMISO'),
          col('Descripción', 'DESCRIPCION'),
          col('Observación', 'OBSERVACION'),
          validity,
          nico,
          dof(),
        ],
      },
      {
        title: 'Regulaciones no arancelarias',
        conjunto: 'regulaciones',
        absence: 'regulaciones no arancelarias',
        rows: rowsOf('regulaciones'),
        columns: [operation(direction), col('Permiso', 'PERMISO'), col('Acuerdo', 'ACUERDO'), col('País', 'PAIS'), col('Condición', 'CONDICION'), dof()],
      },
      {
        title: 'Importación temporal (REIT)',
        conjunto: 'reit',
        absence: 'restricciones de importación temporal (REIT)',
        rows: rowsOf('reit'),
        columns: [
          col('Artículo', 'ARTICULO'),
          col('Permiso', 'PERMISO'),
          col('Acuerdo', 'ACUERDO'),
          { label: 'Plazo (meses)', value: (row) => field(row, 'TEMPORALIDAD') },
          dof(),
        ],
      },
      {
        title: 'Anexos de las Reglas Generales de Comercio Exterior',
        conjunto: 'rcg2',
        absence: 'anexos de las Reglas Generales de Comercio Exterior',
        rows: rowsOf('rcg2'),
        columns: [col('Anexo', 'ANEXO'), col('Sector', 'SECTOR'), col('Régimen', 'REGIMEN'), col('Condición', 'CONDICION'), dof()],
      },
    ],
  },
  {
    id: 'noms',
    title: 'Normas oficiales (NOM)',
    absence: 'normas oficiales mexicanas (NOM)',
    parts: [
      {
        conjunto: 'noms',
        absence: 'normas oficiales mexicanas (NOM)',
        rows: rowsOf('noms'),
        columns: [operation(direction), col('NOM', 'NOM'), col('Descripción', 'DESCRIPCION'), col('Condición', 'CONDICION'), validity, nico, dof()],
      },
    ],
  },
  {
    id: 'ieps',
    title: 'IEPS',
    absence: 'IEPS',
    parts: [
      {
        conjunto: 'ieps',
        absence: 'IEPS',
        rows: rowsOf('ieps'),
        columns: [
          col('Categoría', 'CATEGORIA'),
          col('Tipo', 'TIPO'),
          {
            label: 'Tasa o cuota',
            value: (row) => (field(row, 'TASA') !== '' ? `${field(row, 'TASA')} %` : [field(row, 'CUOTA'), field(row, 'UNIDAD')].filter(Boolean).join(' por ')),
          },
          col('Fundamento', 'FUNDAMENTO'),
          dof(),
        ],
      },
    ],
  },
  {
    id: 'precios',
    title: 'Precios estimados',
    absence: 'precios estimados',
    parts: [
      {
        conjunto: 'precios-estimados2',
        absence: 'precios estimados',
        rows: rowsOf('precios-estimados2'),
        columns: [
          col('Producto', 'PRODUCTO'),
          col('Detalle', 'DETALLE'),
          {
            label: 'Precio',
            value: (row) =>
              [field(row, 'PRECIO'), field(row, 'CLAVEMONEDA'), field(row, 'DESCRIPCIONUM') && `por ${field(row, 'DESCRIPCIONUM')}`].filter(Boolean).join(' '),
          },
          { label: 'Vigencia', value: (row) => date8(row['VIGENCIA']) },
          dof(),
        ],
      },
    ],
  },
  {
    id: 'anteriores',
    title: 'Fracciones anteriores',
    absence: 'fracciones anteriores ni posteriores correlacionadas',
    parts: [
      {
        title: 'Fracciones que esta reemplazó',
        conjunto: 'fracciones-anteriores',
        absence: 'fracciones que esta reemplazó',
        rows: anteriores('reemplaza'),
        columns: [{ label: 'Fracción anterior', value: fractionLink('FRACCIONANTERIOR', 'NICOANTERIOR') }, dof()],
      },
      {
        title: 'Fracciones que la reemplazan',
        conjunto: 'fracciones-anteriores',
        absence: 'fracciones que la reemplacen',
        rows: anteriores('reemplazada_por'),
        columns: [{ label: 'Fracción actual', value: fractionLink('FRACCIONACTUAL', 'NICOACTUAL') }, dof()],
      },
    ],
  },
  {
    id: 'usa',
    title: 'Fracciones de EE. UU.',
    absence: 'fracciones de EE. UU. de la misma subpartida',
    parts: [
      {
        conjunto: 'fracciones-usa',
        absence: 'fracciones de EE. UU. de la misma subpartida',
        rows: rowsOf('fracciones-usa'),
        columns: [
          col('Fracción', 'FRACCION_MOSTRAR'),
          usText('Descripción (en inglés)', 'DESCRIPCION'),
          usText('Unidad', 'UNIDADCANTIDAD'),
          usText('Arancel general', 'TARIFA1'),
          usText('Tasa especial', 'TLC'),
          usText('Columna 2', 'TARIFA2'),
        ],
      },
    ],
  },
];

/**
 * A table of records. On a narrow screen each row becomes a card (the stylesheet shows each cell's
 * column name from `data-label`), so that no table is wider than the screen.
 */
export function table(caption: string, rows: readonly Row[], columns: readonly Column[]): HTMLElement {
  const used = columns.filter((c) =>
    rows.some((row) => {
      const v = c.value(row);
      return typeof v !== 'string' || v !== '';
    }),
  );
  return h(
    'div',
    { class: 'tabla', role: 'region', 'aria-label': caption, tabindex: '0' },
    h(
      'table',
      { class: 'tarjetas' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          used.map((c) => h('th', { scope: 'col' }, c.label)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            { 'data-pais': field(row, 'PAIS') },
            used.map((c) => h('td', { 'data-label': c.label, lang: c.lang }, c.value(row))),
          ),
        ),
      ),
    ),
  );
}

/** "Fracciones de esta versión con algún registro de tlcs: 3,804 de 11,519": how much of the version the record set covers. */
function coverageNote(conjuntos: readonly string[], coverage: Coverage | null): HTMLElement | null {
  if (coverage === null) return null;
  const said = [...new Set(conjuntos)]
    .map((c) => [c, coverage[c]] as const)
    .filter((entry): entry is readonly [string, { fracciones: number; de: number }] => entry[1] !== undefined);
  if (said.length === 0) return null;
  const n = (x: number): string => x.toLocaleString('es-MX');
  const parts = said.map(([c, { fracciones, de }]) => `${c}: ${n(fracciones)} de ${n(de)} fracciones`);
  return h('p', { class: 'cobertura' }, `Fracciones de esta versión con algún registro de ${parts.join('; ')}.`);
}

/** One subject: its heading, then each part's table, or what the loaded data does not hold and how much it covers. */
export function subjectSection(subject: Subject, ficha: Ficha, coverage: Coverage | null = null): HTMLElement {
  const parts = subject.parts.map((part) => ({ part, rows: part.rows(ficha) }));
  const body = parts.every((p) => p.rows.length === 0)
    ? [
        absent(subject.absence),
        coverageNote(
          subject.parts.map((p) => p.conjunto),
          coverage,
        ),
      ]
    : parts.flatMap(({ part, rows }) => [
        part.title === undefined ? null : h('h3', {}, part.title),
        ...(rows.length > 0 ? [table(part.title ?? subject.title, rows, part.columns)] : [absent(part.absence), coverageNote([part.conjunto], coverage)]),
      ]);
  return h('section', { id: subject.id, 'aria-labelledby': `titulo-${subject.id}` }, h('h2', { id: `titulo-${subject.id}` }, subject.title), body);
}
