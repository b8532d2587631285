/** fracciones and informacion-general: one record per LIGIE 2022 code. */
import type { LigieCode, Rec, Row, Sources } from './sources.js';
import { col, dotted8, HIST_IGI, isoToDate8, numbered } from './sources.js';
import { parseDuty } from './values.js';

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

export function fracciones(src: Sources): Rec[] {
  return numbered(
    src.ligie.map((c) => {
      const old = src.igi.get(c.fraction);
      const imp = old ? parseDuty(old.igi) : null;
      const exp = old ? parseDuty(old.ige) : null;
      const notes: string[] = [];
      if (old) notes.push(HIST_IGI);
      if (c.validUntil) notes.push(`Código con vigencia hasta ${c.validUntil} en el catálogo SAT.`);
      return {
        FRACCION: c.fraction,
        FRACCIONPUNTO: dotted8(c.fraction),
        DESCRIPCION: c.text,
        UMCLAVE: c.unit,
        UMABREVIACION: c.unitAbbr,
        ADVIMPOTXT: old?.igi || null,
        ADVIMPONUM: imp?.num ?? null,
        TIPOTASAADVIMPO: imp?.type ?? null,
        ADVEXPOTXT: old?.ige || null,
        ADVEXPONUM: exp?.num ?? null,
        TIPOTASAADVEXPO: exp?.type ?? null,
        ARANCELMIXTO: imp?.mixed ? 'S' : null,
        TASAMIXTA: imp?.mixedSpecific ?? null,
        ARANCELESPECIFICO: imp?.specific ? 'S' : null,
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

export function informacionGeneral(src: Sources): Rec[] {
  // LIGIE chapter 98 (special operations) is not in the HS: its section and chapter names come from
  // the SIICEX fichas, in Spanish.
  const fichaChapters = new Map<string, Row>();
  for (const f of src.fichas) if (!fichaChapters.has(col(f, 'capitulo_codigo'))) fichaChapters.set(col(f, 'capitulo_codigo'), f);
  const nicosPerFraction = new Map<string, number>();
  for (const c of src.ligie) nicosPerFraction.set(c.fraction, (nicosPerFraction.get(c.fraction) ?? 0) + 1);

  return numbered(
    src.ligie.map((c) => {
      const chapter = src.hs.get(c.chapter);
      const heading = src.hs.get(c.hs6.slice(0, 4));
      const subheading = src.hs.get(c.hs6);
      const hsSection = chapter ? col(chapter, 'section') : '';
      const ficha = fichaChapters.get(c.chapter);
      const section = isRoman(hsSection) ? hsSection : ficha && !chapter ? col(ficha, 'seccion_codigo') : null;
      const sectionText = isRoman(hsSection)
        ? (src.sections.get(hsSection) ?? null)
        : ficha && !chapter
          ? col(ficha, 'seccion_descripcion')
          : null;
      const old = src.igi.get(c.fraction);
      return {
        FRACCION: c.fraction,
        SECCION: section,
        DESCRIPCIONSECCION: sectionText,
        CAPITULO: c.chapter,
        DESCRIPCIONCAPITULO: chapter ? col(chapter, 'description') : ficha ? col(ficha, 'capitulo_descripcion') : null,
        PARTIDA: c.hs6.slice(0, 4),
        DESCRIPCIONPARTIDA: heading ? col(heading, 'description') : null,
        SUBPARTIDA: c.hs6,
        DESCRIPCIONSUBPARTIDA: subheading ? col(subheading, 'description') : null,
        // The catalog gives the NICO's text; it is the fraction's own text only when the fraction has one NICO.
        DESCRIPCION: nicosPerFraction.get(c.fraction) === 1 ? c.text : null,
        DESCRIPCIONNICO: c.text,
        UMCLAVE: c.unit,
        UMABREVIACION: c.unitAbbr,
        ADVIMPOTXT: old?.igi || null,
        ADVEXPOTXT: old?.ige || null,
        DOF: validityStart(src, c),
        NOTAS: old ? HIST_IGI : null,
        NICO: c.nico,
      };
    }),
    'SYSID',
  );
}
