/**
 * The subjects of a fraction's page, as data: each heading, the record sets it shows and their
 * columns, in the words a broker reads. Fraction pages are built from this list; an empty subject
 * says "Sin registros" rather than disappearing.
 */
import { date8, field, fractionUrl, dotted, h, NONE } from './dom.js';

export type Row = Record<string, unknown>;
export type Cell = string | Node;
export interface Column {
  readonly label: string;
  readonly value: (row: Row) => Cell;
}
export interface Part {
  /** A subheading inside the subject, when it shows several record sets. */
  readonly title?: string;
  readonly rows: (ficha: Ficha) => Row[];
  readonly columns: readonly Column[];
}
export interface Subject {
  readonly id: string;
  readonly title: string;
  readonly parts: readonly Part[];
  /** Rows whose PAIS is another country are hidden by the country selector. */
  readonly byCountry?: boolean;
}
export type Ficha = Record<string, unknown>;

const rowsOf =
  (path: string) =>
  (ficha: Ficha): Row[] => {
    const value = ficha[path];
    return Array.isArray(value) ? (value as Row[]) : [];
  };
const anteriores =
  (side: 'reemplaza' | 'reemplazada_por') =>
  (ficha: Ficha): Row[] => {
    const value = (ficha['fracciones-anteriores'] as Record<string, unknown> | undefined)?.[side];
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
const direction = (row: Row): string =>
  [row['IMPORTACION'] === 'S' ? 'Importación' : '', row['EXPORTACION'] === 'S' ? 'Exportación' : ''].filter((s) => s !== '').join(', ');
const fractionLink =
  (fraction: string, nico: string) =>
  (row: Row): Cell => {
    const code = field(row, fraction) + field(row, nico);
    return code === '' ? '' : h('a', { href: fractionUrl(code) }, dotted(code));
  };
const nico = col('NICO', 'NICO');

export const SUBJECTS: readonly Subject[] = [
  {
    id: 'aranceles',
    title: 'Aranceles',
    parts: [
      {
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
    byCountry: true,
    parts: [
      {
        title: 'Tratados de libre comercio (TLC)',
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
        rows: rowsOf('fundamentos-tlc'),
        columns: [col('Tratado', 'TLC'), col('País', 'PAIS'), col('Tasa', 'TASATXT'), col('Fundamento', 'FUNDAMENTO'), dof()],
      },
    ],
  },
  {
    id: 'prosec',
    title: 'PROSEC',
    parts: [
      {
        rows: rowsOf('prosec'),
        columns: [col('Sector', 'SECTOR'), col('Artículo', 'ARTICULO'), col('Tasa', 'TASATXT'), nico, dof(), col('Observación', 'OBSERVACION')],
      },
    ],
  },
  {
    id: 'cupos',
    title: 'Cupos',
    byCountry: true,
    parts: [
      {
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
    byCountry: true,
    parts: [
      {
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
    byCountry: true,
    parts: [
      {
        title: 'Permisos previos',
        rows: rowsOf('requisito-previo'),
        columns: [col('Permiso', 'PERMISO'), col('Descripción', 'DESCRIPCION'), col('Observación', 'OBSERVACION'), nico, dof()],
      },
      {
        title: 'Regulaciones no arancelarias',
        rows: rowsOf('regulaciones'),
        columns: [
          { label: 'Operación', value: direction },
          col('Permiso', 'PERMISO'),
          col('Acuerdo', 'ACUERDO'),
          col('País', 'PAIS'),
          col('Condición', 'CONDICION'),
          dof(),
        ],
      },
      {
        title: 'Importación temporal (REIT)',
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
        rows: rowsOf('rcg2'),
        columns: [col('Anexo', 'ANEXO'), col('Sector', 'SECTOR'), col('Régimen', 'REGIMEN'), col('Condición', 'CONDICION'), dof()],
      },
    ],
  },
  {
    id: 'noms',
    title: 'Normas oficiales (NOM)',
    parts: [
      {
        rows: rowsOf('noms'),
        columns: [col('NOM', 'NOM'), col('Descripción', 'DESCRIPCION'), { label: 'Operación', value: direction }, col('Condición', 'CONDICION'), nico, dof()],
      },
    ],
  },
  {
    id: 'ieps',
    title: 'IEPS',
    parts: [
      {
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
    parts: [
      {
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
    parts: [
      {
        title: 'Fracciones que esta reemplazó',
        rows: anteriores('reemplaza'),
        columns: [{ label: 'Fracción anterior', value: fractionLink('FRACCIONANTERIOR', 'NICOANTERIOR') }, dof()],
      },
      {
        title: 'Fracciones que la reemplazan',
        rows: anteriores('reemplazada_por'),
        columns: [{ label: 'Fracción actual', value: fractionLink('FRACCIONACTUAL', 'NICOACTUAL') }, dof()],
      },
    ],
  },
  {
    id: 'usa',
    title: 'Fracciones de EE. UU.',
    parts: [
      {
        rows: rowsOf('fracciones-usa'),
        columns: [
          col('Fracción', 'FRACCION_MOSTRAR'),
          col('Descripción', 'DESCRIPCION'),
          col('Unidad', 'UNIDADCANTIDAD'),
          col('Arancel general', 'TARIFA1'),
          col('Tasa especial', 'TLC'),
          col('Columna 2', 'TARIFA2'),
        ],
      },
    ],
  },
];

/** A table of records; wide tables scroll inside their own focusable region on a narrow screen. */
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
      {},
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
            used.map((c) => h('td', {}, c.value(row))),
          ),
        ),
      ),
    ),
  );
}

/** One subject: its heading, then each part's table, or "Sin registros". */
export function subjectSection(subject: Subject, ficha: Ficha): HTMLElement {
  const parts = subject.parts.map((part) => ({ part, rows: part.rows(ficha) }));
  const body = parts.every((p) => p.rows.length === 0)
    ? [h('p', { class: 'vacio' }, NONE)]
    : parts.flatMap(({ part, rows }) => [
        part.title === undefined ? null : h('h3', {}, part.title),
        rows.length > 0 ? table(part.title ?? subject.title, rows, part.columns) : h('p', { class: 'vacio' }, NONE),
      ]);
  return h('section', { id: subject.id, 'aria-labelledby': `titulo-${subject.id}` }, h('h2', { id: `titulo-${subject.id}` }, subject.title), body);
}
