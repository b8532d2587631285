/**
 * Evidence gathered at heading level (issue 44): for every term, the headings (4 digits) whose texts
 * name goods with it, and how strongly: a search reference pointing into the heading, the head of the
 * heading's, a subheading's or a line's text, or any goods word of those texts (not a word of a
 * "para …" or "partes de …" clause, which says what the goods serve). Spanish and English are kept
 * apart, so that a phrase is read against the texts of its language. And the ranges each line's texts
 * state for a quantity ("de cilindrada superior a 50 cm³ pero inferior o igual a 250 cm³").
 */
import { headTerms, isSpecialTreatment, isStopWord, splitTerms, stem, words } from './analysis.js';
import type { LineRow } from './documents.js';
import type { Range } from './quantities.js';
import type { Reference } from './references.js';
import { formatRanges, rangesOf } from './quantities.js';

/** Words after which a search reference qualifies the goods it names ("aceite de motor", "papel para impresora", "oil for engines"). */
const REFERENCE_CONNECTORS = new Set(['de', 'del', 'para', 'con', 'sin', 'en', 'for', 'of', 'with', 'in']);

/** How strongly a heading's texts name goods with a term (the field weights of ranking.ts, in spirit). */
export const EVIDENCE = { reference: 13, head: 12, goods: 8, qualifier: 4 } as const;

/** The IDIOMA of a row holding a search reference of several words whole (its stems, space-separated) and the codes it names. */
export const PHRASE = 'frase';

export interface EvidenceRow {
  TERMINO: string;
  /** `8421:13 8409:8`: the headings of the Spanish texts and the references, each with its strength. */
  ES: string;
  /** The same from the English texts (the US tariff's lines) and the references. */
  EN: string;
  /** 'es' when the Spanish line texts hold the term, 'en' when the English texts do, far more than the other language's (LANGUAGE_RATIO); 'es en' for both alike, '' for neither. */
  IDIOMA: string;
}

export interface RangeRow {
  CODIGO: string;
  RANGOS: string;
}

type Strengths = Map<string, Map<string, number>>;

/**
 * A term held by many more texts of one language than of the other is of that language: "wine" is in
 * hundreds of the US tariff's lines and in one Spanish line ("wine coolers"), "red" is the Spanish net
 * and the English colour alike. A handful of borrowings must not make an English word Spanish (nor the
 * reverse), or an English phrase of such words is read as Spanish, its head first instead of last.
 */
const LANGUAGE_RATIO = 4;

function languageOf(spanish: number, english: number): string {
  if (english === 0 || spanish >= LANGUAGE_RATIO * english) return spanish === 0 ? '' : 'es';
  if (spanish === 0 || english >= LANGUAGE_RATIO * spanish) return 'en';
  return 'es en';
}

/** One more text holding each of its terms (its words' stems, once each) and each of its words. */
function count(terms: Map<string, number>, byWord: Map<string, number>, text: string): void {
  const all = new Set(words(text));
  for (const w of all) byWord.set(w, (byWord.get(w) ?? 0) + 1);
  for (const t of new Set([...all].flatMap((w) => splitTerms(w).main))) terms.set(t, (terms.get(t) ?? 0) + 1);
}

function note(map: Strengths, term: string, heading: string, strength: number): void {
  let byHeading = map.get(term);
  if (!byHeading) map.set(term, (byHeading = new Map<string, number>()));
  if ((byHeading.get(heading) ?? 0) < strength) byHeading.set(heading, strength);
}

const format = (byHeading: ReadonlyMap<string, number> | undefined): string =>
  [...(byHeading ?? [])]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([h, s]) => `${h}:${s}`)
    .join(' ');

export function evidenceOf(lines: readonly LineRow[], english: ReadonlyMap<string, readonly string[]>, references: readonly Reference[]): EvidenceRow[] {
  const spanish: Strengths = new Map();
  const englishStrengths: Strengths = new Map();
  // How many distinct texts of each language hold each term: what tells a term's language.
  const lineTexts = new Map<string, number>();
  const englishTexts = new Map<string, number>();
  const lineWords = new Map<string, number>();
  const englishWords = new Map<string, number>();
  const seen = new Set<string>();
  // Chapters 98 and 99 name no goods: they are no heading a description of goods can be in.
  const goodsLines = lines.filter((l) => !isSpecialTreatment(l.FRACCION));
  const headings = new Set(goodsLines.map((l) => l.FRACCION.slice(0, 4)));
  for (const row of goodsLines) {
    const code = row.FRACCION + (row.NICO ?? '');
    const heading = code.slice(0, 4);
    for (const text of [row.DESCRIPCION, row.DESCRIPCIONFRACCION, row.DESCRIPCIONNICO]) {
      if (!text || seen.has(`line|${text}`)) continue;
      seen.add(`line|${text}`);
      count(lineTexts, lineWords, text);
    }
    const texts = [row.DESCRIPCIONPARTIDA, row.DESCRIPCIONSUBPARTIDA, row.DESCRIPCIONFRACCION, row.DESCRIPCION, row.DESCRIPCIONNICO];
    for (const text of texts) {
      if (!text || seen.has(`${heading}|${text}`)) continue;
      seen.add(`${heading}|${text}`);
      for (const t of splitTerms(text).main) note(spanish, t, heading, EVIDENCE.goods);
      for (const t of headTerms(text)) note(spanish, t, heading, EVIDENCE.head);
    }
  }
  for (const [code, texts] of english) {
    const heading = code.slice(0, 4);
    // The US tariff's own headings (chapters 98 and 99) name nothing in the dataset's nomenclature.
    if (!headings.has(heading)) continue;
    for (const text of texts) {
      if (seen.has(`en|${heading}|${text}`)) continue;
      seen.add(`en|${heading}|${text}`);
      count(englishTexts, englishWords, text);
      for (const t of splitTerms(text).main) note(englishStrengths, t, heading, EVIDENCE.goods);
      for (const t of headTerms(text)) note(englishStrengths, t, heading, EVIDENCE.head);
    }
  }
  // A reference is a phrase too ("aceite de motor" names oil, not engines): the words naming its goods
  // are evidence at the reference's strength, its qualifiers at a qualifier's.
  const byPrefix = new Map<string, Set<string>>();
  const phrases = new Map<string, string[]>();
  for (const h of headings) for (const n of [2, 4]) byPrefix.set(h.slice(0, n), (byPrefix.get(h.slice(0, n)) ?? new Set()).add(h));
  // A Spanish word of a reference ("ropa", "tapa") is no evidence for an English word that only shares its
  // stem ("rope", "tape"): the English texts hold the stem, never the Spanish word.
  const borrowedStem = (w: string): boolean =>
    !isStopWord(w) && (englishWords.get(w) ?? 0) === 0 && (lineWords.get(w) ?? 0) > 0 && (englishTexts.get(stem(w)) ?? 0) > 0;
  for (const r of references) {
    const spanishOnly = new Set(r.words.filter(borrowedStem).map(stem));
    // The words after its first connecting word qualify the goods the words before it name.
    const cut = r.words.findIndex((w, i) => i > 0 && REFERENCE_CONNECTORS.has(w));
    const qualifiers = new Set(
      cut < 0
        ? []
        : r.words
            .slice(cut)
            .filter((w) => !isStopWord(w))
            .map(stem),
    );
    const goods = new Set((cut < 0 ? r.words : r.words.slice(0, cut)).filter((w) => !isStopWord(w)).map(stem));
    if (r.terms.length > 1 && r.codes.length > 0) {
      const key = r.terms.join(' ');
      phrases.set(key, [...new Set([...(phrases.get(key) ?? []), ...r.codes])]);
    }
    for (const code of r.codes) {
      for (const h of byPrefix.get(code.slice(0, Math.min(4, code.length))) ?? []) {
        for (const t of r.terms) {
          const strength = goods.has(t) || !qualifiers.has(t) ? EVIDENCE.reference : EVIDENCE.qualifier;
          // A Spanish reference of several words names its codes as a whole (the phrase rows below): a
          // word of it alone is no more than a goods word of a text ("silla" of "silla de ruedas").
          note(spanish, t, h, r.terms.length > 1 ? Math.min(strength, EVIDENCE.goods) : strength);
          if (!spanishOnly.has(t)) note(englishStrengths, t, h, strength);
        }
      }
    }
  }
  const languageOfTerm = new Map<string, string>();
  for (const t of new Set([...lineTexts.keys(), ...englishTexts.keys()])) languageOfTerm.set(t, languageOf(lineTexts.get(t) ?? 0, englishTexts.get(t) ?? 0));
  const terms = new Set([...spanish.keys(), ...englishStrengths.keys()]);
  return [
    ...[...terms]
      .filter((t) => t !== '' && !/^\d+$/.test(t))
      .map((t) => ({ TERMINO: t, ES: format(spanish.get(t)), EN: format(englishStrengths.get(t)), IDIOMA: languageOfTerm.get(t) ?? '' })),
    // A reference of several words is also kept whole, with the codes it names: typed as a phrase, it names them.
    ...[...phrases].map(([t, codes]) => ({ TERMINO: t, ES: codes.join(' '), EN: codes.join(' '), IDIOMA: PHRASE })),
  ];
}

/** The narrowest range per unit that all of a line's texts state (the subheading's and the line's own). */
function intersect(all: readonly Range[]): Range[] {
  const byUnit = new Map<string, Range>();
  for (const r of all) {
    const prior = byUnit.get(r.unit);
    if (!prior) {
      byUnit.set(r.unit, r);
      continue;
    }
    const useMin = r.min !== null && (prior.min === null || r.min > prior.min);
    const useMax = r.max !== null && (prior.max === null || r.max < prior.max);
    byUnit.set(r.unit, {
      unit: r.unit,
      min: useMin ? r.min : prior.min,
      minIncluded: useMin ? r.minIncluded : prior.minIncluded,
      max: useMax ? r.max : prior.max,
      maxIncluded: useMax ? r.maxIncluded : prior.maxIncluded,
    });
  }
  return [...byUnit.values()];
}

export function rangeRowsOf(lines: readonly LineRow[]): RangeRow[] {
  const cache = new Map<string, Range[]>();
  const ranges = (text: string | null): Range[] => {
    if (!text) return [];
    let found = cache.get(text);
    if (!found) cache.set(text, (found = rangesOf(text)));
    return found;
  };
  const out: RangeRow[] = [];
  for (const row of lines) {
    const all = [row.DESCRIPCIONSUBPARTIDA, row.DESCRIPCIONFRACCION, row.DESCRIPCION, row.DESCRIPCIONNICO].flatMap(ranges);
    if (all.length > 0) out.push({ CODIGO: row.FRACCION + (row.NICO ?? ''), RANGOS: formatRanges(intersect(all)) });
  }
  return out;
}
