/** fracciones and informacion-general: one record per LIGIE 2022 code. */
import type { fracciones as fraccionesSet } from '../../record-sets/fracciones.js';
import type { informacionGeneral as informacionGeneralSet } from '../../record-sets/informacion-general.js';
import type { RowOf } from '../../record-sets/define.js';
import type { LigieCode, Sources } from './sources.js';
import { col, dotted8, HIST_IGI, isoToDate8, numbered } from './sources.js';
import { LIGIE_2022_RATES, ligie2022Duties } from './spanish.js';
import { tigie2012Duties } from './values.js';

/** The code's own history in the SAT catalog (10 digits) and its 8-digit predecessor with the same number. */
export function codeHistory(src: Sources, c: LigieCode): string | null {
  const entries = [...(src.history.get(c.fraction) ?? []), ...(src.history.get(c.code10) ?? [])];
  if (entries.length === 0) return null;
  const parts = entries.map((r) => {
    const until = col(r, 'vigencia_hasta');
    return `${col(r, 'fraccion')} vigente desde ${col(r, 'vigencia_desde')}${until ? ` hasta ${until}` : ''}`;
  });
  return `Catálogo SAT de fracciones arancelarias: ${parts.join('; ')}.`;
}

/** The LIGIE 2022 entry into force of the code (SAT history), else the catalog's validity start. */
export function validityStart(src: Sources, c: LigieCode): string | null {
  const current = (src.history.get(c.code10) ?? []).find((r) => col(r, 'vigencia_hasta') === '');
  return isoToDate8(current ? col(current, 'vigencia_desde') : c.validFrom);
}

export function fracciones(src: Sources): RowOf<typeof fraccionesSet>[] {
  return numbered(
    src.ligie.map((c): RowOf<typeof fraccionesSet> => {
      const current = ligie2022Duties(src.spanish, c.fraction);
      const old = current ? undefined : src.igi.get(c.fraction);
      const notes: string[] = [];
      if (current) notes.push(LIGIE_2022_RATES);
      if (old) notes.push(HIST_IGI);
      if (c.validUntil) notes.push(`Código con vigencia hasta ${c.validUntil} en el catálogo SAT.`);
      return {
        FRACCION: c.fraction,
        FRACCIONPUNTO: dotted8(c.fraction),
        DESCRIPCION: c.text,
        UMCLAVE: c.unit,
        UMABREVIACION: c.unitAbbr,
        ...tigie2012Duties(old),
        ...current,
        DOF: validityStart(src, c),
        NOTAS: notes.length > 0 ? notes.join(' ') : null,
        HISTORICO: codeHistory(src, c),
        NIVEL: 5,
        NICO: c.nico,
      };
    }),
    'SYSID',
  );
}

export function isRoman(s: string): boolean {
  return /^[IVXLC]+$/.test(s);
}

/**
 * Every code placed in its section, chapter, heading and subheading, with Spanish texts first (see
 * spanish.ts) and the HS 2022 English where no Spanish text exists; the fraction's own text from the
 * LIGIE 2022 transcription, else the NICO text when the fraction has only one NICO.
 */
export function informacionGeneral(src: Sources): RowOf<typeof informacionGeneralSet>[] {
  const nicosPerFraction = new Map<string, number>();
  for (const c of src.ligie) nicosPerFraction.set(c.fraction, (nicosPerFraction.get(c.fraction) ?? 0) + 1);
  const spanish = src.spanish.texts;
  const english = (code: string): string | null => {
    const row = src.hs.get(code);
    return row ? col(row, 'description') : null;
  };
  const text = (code: string): string | null => spanish.get(code) ?? english(code);
  const fichaSections = new Map<string, string>();
  for (const f of src.fichas) if (!fichaSections.has(col(f, 'capitulo_codigo'))) fichaSections.set(col(f, 'capitulo_codigo'), col(f, 'seccion_codigo'));

  return numbered(
    src.ligie.map((c): RowOf<typeof informacionGeneralSet> => {
      const chapter = src.hs.get(c.chapter);
      const hsSection = chapter ? col(chapter, 'section') : '';
      // LIGIE chapter 98 (special operations) is not in the HS: its section comes from the fichas.
      const section = isRoman(hsSection) ? hsSection : (fichaSections.get(c.chapter) ?? null);
      const current = ligie2022Duties(src.spanish, c.fraction);
      const old = current ? undefined : src.igi.get(c.fraction);
      return {
        FRACCION: c.fraction,
        SECCION: section,
        DESCRIPCIONSECCION: section ? (src.spanish.sections.get(section) ?? src.sections.get(section) ?? null) : null,
        CAPITULO: c.chapter,
        DESCRIPCIONCAPITULO: text(c.chapter),
        PARTIDA: c.hs6.slice(0, 4),
        DESCRIPCIONPARTIDA: text(c.hs6.slice(0, 4)),
        SUBPARTIDA: c.hs6,
        DESCRIPCIONSUBPARTIDA: text(c.hs6),
        DESCRIPCION: spanish.get(c.fraction) ?? (nicosPerFraction.get(c.fraction) === 1 ? c.text : null),
        DESCRIPCIONNICO: c.text,
        UMCLAVE: c.unit,
        UMABREVIACION: c.unitAbbr,
        ADVIMPOTXT: (current?.['ADVIMPOTXT']) ?? (old?.igi || null),
        ADVEXPOTXT: (current?.['ADVEXPOTXT']) ?? (old?.ige || null),
        DOF: validityStart(src, c),
        NOTAS: current ? LIGIE_2022_RATES : old ? HIST_IGI : null,
        NICO: c.nico,
      };
    }),
    'SYSID',
  );
}
