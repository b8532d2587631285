/**
 * Heading first (issue 44): what the service holds of the heading evidence and the quantity ranges
 * the load wrote (evidence.ts), and how a planned query's head picks its headings and its quantities
 * the lines in range. Split from vocabulary.ts, which plans the words.
 */
import { stem } from './analysis.js';
import type { EvidenceRow, RangeRow } from './evidence.js';
import { EVIDENCE, PHRASE } from './evidence.js';
import type { QueryGroup } from './plan.js';
import { ATTRIBUTE_SHARE, HEAD_HEADING, HEADING_SLOTS, HEADING_SPREAD, lowerBound } from './plan.js';
import type { Range } from './quantities.js';
import { inRange, parseRanges, queryQuantities } from './quantities.js';
import type { Language } from './reading.js';
import { headCandidates, phraseParts } from './reading.js';

/** At most this many codes are marked for a quantity. */
const MAX_QUANTITY_CODES = 400;
/** English heads weighed against each other: this many candidates, the positional one preferred unless another's headings score this many times more. */
const ENGLISH_HEAD_CANDIDATES = 3;
const ENGLISH_POSITION_SHARE = 0.75;
const NO_EVIDENCE = new Int32Array(0);

/** `8421:13 8409:8` packed as numbers (heading × 16 + strength): no map per term, nothing to collect. */
function packEvidence(text: string): Int32Array {
  if (text === '') return NO_EVIDENCE;
  const pairs = text.split(' ');
  const packed = new Int32Array(pairs.length);
  for (const [i, pair] of pairs.entries()) {
    const colon = pair.indexOf(':');
    packed[i] = Number(pair.slice(0, colon)) * 16 + Number(pair.slice(colon + 1));
  }
  return packed;
}
/** How much more the head's evidence counts in a heading's score than a qualifier's. */
const HEAD_FACTOR = 4;

const HEADING_NAMES: string[] = [];

/** A heading's four digits from its number, each written once: planning a phrase reads thousands. */
function headingName(heading: number): string {
  return (HEADING_NAMES[heading] ??= String(heading).padStart(4, '0'));
}

export class HeadingEvidence {
  /** Per term: its heading evidence, Spanish and English (`8421:13 8409:8`), and the language of the texts holding it. */
  private readonly evidence = new Map<string, { es: Int32Array; en: Int32Array; language: string }>();
  /** The search references of several words, by their first stem, longest first: `motor diesel` names 8408. */
  private readonly phrases = new Map<string, { stems: readonly string[]; codes: readonly string[] }[]>();
  /** Per unit, the lines whose texts bound it. */
  private readonly ranges = new Map<string, { code: string; range: Range }[]>();

  /** `stems`: the index's stems, sorted (a start of a word stands for the stems it begins). */
  constructor(
    evidence: Iterable<EvidenceRow>,
    ranges: Iterable<RangeRow>,
    private readonly stems: readonly string[],
  ) {
    for (const e of evidence) {
      if (e.IDIOMA === PHRASE) {
        const stems = e.TERMINO.split(' ');
        const list = this.phrases.get(stems[0]!) ?? [];
        list.push({ stems, codes: e.ES.split(' ') });
        this.phrases.set(
          stems[0]!,
          list.sort((a, b) => b.stems.length - a.stems.length),
        );
      } else this.evidence.set(e.TERMINO, { es: packEvidence(e.ES), en: packEvidence(e.EN), language: e.IDIOMA });
    }
    for (const r of ranges) {
      for (const range of parseRanges(r.RANGOS)) {
        const list = this.ranges.get(range.unit) ?? [];
        list.push({ code: r.CODIGO, range });
        this.ranges.set(range.unit, list);
      }
    }
  }

  /** The headings a term names goods in, packed (heading × 16 + strength), in the phrase's language. */
  packedOf(term: string, language: Language): Int32Array {
    const entry = this.evidence.get(term);
    return (language === 'en' ? entry?.en : entry?.es) ?? NO_EVIDENCE;
  }

  /** The headings a term names goods in, with the strength of the evidence, in the phrase's language. */
  headingsOf(term: string, language: Language): Map<string, number> {
    const found = new Map<string, number>();
    for (const packed of this.packedOf(term, language)) found.set(headingName(packed >> 4), packed & 15);
    return found;
  }

  /** The headings a query group names goods in: the best evidence of its alternatives (what it stands for counts half). */
  groupHeadings(group: QueryGroup, language: Language): Map<string, number> {
    const out = new Map<string, number>();
    const add = (term: string, share: number): void => {
      for (const [h, s] of this.headingsOf(term, language)) out.set(h, Math.max(out.get(h) ?? 0, s * share));
    };
    const each = (alternatives: readonly string[], share: number): void => {
      for (const a of alternatives) {
        if (a.endsWith(' ')) add(a.trimEnd(), share);
        else {
          // A start of a word: the terms it begins, a few at most.
          let n = 0;
          for (let i = lowerBound(this.stems, a, (x) => x); i < this.stems.length && this.stems[i]!.startsWith(a) && n < 30; i++, n++)
            add(this.stems[i]!, share);
        }
      }
    };
    each(group.primary, 1);
    each(group.secondary, 0.5);
    return out;
  }

  /**
   * Whether a search reference names goods with `form` in a heading whose texts or references hold
   * `contents` too ("bolsa de mano" in 4202, "bolsa de aire" in 8708): the pair is then a name of goods,
   * not a packaging and its contents ("caja de galletas").
   */
  namedTogether(form: string, contents: string, language: Language): boolean {
    const pair = [stem(form), stem(contents)];
    if ((this.phrases.get(pair[0]!) ?? []).some((p) => p.stems[1] === pair[1])) return true;
    const held = this.headingsOf(stem(contents), language);
    for (const [h, s] of this.headingsOf(stem(form), language)) if (s >= EVIDENCE.reference && (held.get(h) ?? 0) > 0) return true;
    return false;
  }

  languageOfWord(word: string): string {
    return this.evidence.get(stem(word))?.language ?? '';
  }

  /**
   * Heading first (issue 44): the head of the phrase is the first of its candidates that names goods
   * in some heading; those headings are scored by the evidence of every word of the phrase (the
   * head's counting most, an attribute's least) and the best of them get a bonus that no number of
   * qualifier words found elsewhere can match.
   */
  headingsNamed(
    q: string,
    language: Language,
    groups: readonly QueryGroup[],
    groupOfWord: ReadonlyMap<string, number>,
    form?: string,
    typed: readonly string[] = [],
  ): { headings: { heading: string; bonus: number }[]; phrase: readonly string[]; head?: number } {
    const none = { headings: [], phrase: [] };
    if (this.evidence.size === 0) return none;
    // Known: not an attribute (in a long line a word the index does not know is a brand; in a short one, a typo of the goods).
    // Each group's headings worked out once for the whole phrase: the candidates and every scoring read them.
    const named: (Map<string, number> | undefined)[] = [];
    const headingsOfGroup = (g: number): Map<string, number> => (named[g] ??= this.groupHeadings(groups[g]!, language));
    const candidates = headCandidates(q, language, form).flatMap((word) => {
      const g = groupOfWord.get(word);
      return g === undefined ? [] : [{ word, g, found: headingsOfGroup(g), known: groups[g]!.matched !== 0 }];
    });
    // A typo's corrections count half (groupHeadings): their evidence heads at half the strength.
    const heads = (c: { g: number; found: Map<string, number> }): boolean =>
      [...c.found.values()].some((s) => s >= (groups[c.g]!.primary.length > 0 ? EVIDENCE.head : EVIDENCE.head / 2));
    // The head is the first candidate the index knows that heads some tariff text (names goods there);
    // failing that, the first it knows at all, then the first it has a correction for.
    // English invoices name goods with words the US tariff's texts do not use ("KETTLE", "STROLLER"): an
    // unknown English word is read as such, not as a typo, and its corrections ("cattle") head the phrase
    // only when no word the index knows as typed does.
    const exact = (c: { g: number }): boolean => groups[c.g]!.primary.length > 0;
    const heading = candidates.filter((c) => c.known && heads(c)).sort((a, b) => (language === 'en' ? Number(exact(b)) - Number(exact(a)) : 0));
    const chosen = heading[0] ?? candidates.find((c) => c.known && c.found.size > 0) ?? candidates.find((c) => c.found.size > 0);
    if (!chosen) return none;
    // A search reference of several words typed whole from the head on ("motores diesel", "parrilla
    // eléctrica de 2 quemadores") names the goods: its headings come first.
    const phrase = language === 'es' ? this.phraseAt(typed, typed.indexOf(chosen.word), groups, groupOfWord) : [];
    const first = new Set(phrase.filter((c) => c.length >= 4).map((c) => c.slice(0, 4)));
    const found = new Map(chosen.found);
    for (const h of first) found.set(h, Math.max(found.get(h) ?? 0, EVIDENCE.reference));
    let best = this.scoreHeadings(chosen.g, found, groups, headingsOfGroup, first);
    // English puts adjectives after the noun too ("CHICKEN BREAST BONELESS", "CAUSTIC SODA FLAKES"): of
    // the first candidates that head tariff texts, the one whose headings hold the whole phrase best
    // heads it, the positional head winning unless another does clearly better.
    if (language === 'en') {
      // Only a word of the first run: one after a figure or a connecting word qualifies the goods ("CORDLESS DRILL 20V LITHIUM").
      const run = new Set(phraseParts(q, language, form).run.map((w) => groupOfWord.get(w)));
      for (const c of heading.slice(1, ENGLISH_HEAD_CANDIDATES).filter((c) => run.has(c.g))) {
        const other = this.scoreHeadings(c.g, c.found, groups, headingsOfGroup);
        if ((other[0]?.[1] ?? 0) * ENGLISH_POSITION_SHARE > (best[0]?.[1] ?? 0)) best = other;
      }
    }
    const top = Math.max(1, best[0]?.[1] ?? 1);
    return {
      headings: best.map(([h, score]) => ({ heading: h, bonus: HEAD_HEADING + Math.round((HEADING_SPREAD * score) / top) })),
      phrase,
      head: chosen.g,
    };
  }

  /**
   * The codes the longest search reference of several words starting at `at` among the typed words
   * names (none: empty): each of its stems one the typed word at its place stands for (itself, or a
   * typo's correction: "asucar refinada").
   */
  private phraseAt(typed: readonly string[], at: number, groups: readonly QueryGroup[], groupOfWord: ReadonlyMap<string, number>): readonly string[] {
    if (at < 0) return [];
    const places = typed.slice(at).map((w) => {
      const g = groupOfWord.get(w);
      return g === undefined ? [] : [...groups[g]!.primary, ...groups[g]!.secondary];
    });
    const holds = (alternatives: readonly string[], s: string): boolean => alternatives.some((a) => (a.endsWith(' ') ? a.trimEnd() === s : s.startsWith(a)));
    const starts = new Set(places[0]!.map((a) => a.trimEnd()));
    for (const first of starts)
      for (const p of this.phrases.get(first) ?? []) if (p.stems.length <= places.length && p.stems.every((s, i) => holds(places[i]!, s))) return p.codes;
    return [];
  }

  /** The headings a head names, scored by the evidence of every word of the phrase there (the head's counting most), best first. */
  private scoreHeadings(
    head: number,
    named: ReadonlyMap<string, number>,
    groups: readonly QueryGroup[],
    headingsOfGroup: (g: number) => ReadonlyMap<string, number>,
    first: ReadonlySet<string> = new Set(),
  ): [string, number][] {
    const scores = new Map<string, number>();
    for (const [i, group] of groups.entries()) {
      const factor = i === head ? HEAD_FACTOR : group.matched === 0 ? 1 / ATTRIBUTE_SHARE : 1;
      const evidence = i === head ? named : headingsOfGroup(i);
      for (const h of named.keys()) scores.set(h, (scores.get(h) ?? 0) + factor * group.weight * (evidence.get(h) ?? 0));
    }
    // The headings a typed phrase names lead the others by the best of them.
    const lead = Math.max(0, ...scores.values());
    for (const h of first) scores.set(h, (scores.get(h) ?? 0) + lead);
    return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, HEADING_SLOTS);
  }

  /** The lines whose texts state a range holding a quantity of the query, within the headings the head names (when it names any). */
  quantityCodes(q: string, headings: readonly { heading: string }[]): string {
    // With no heading named, a quantity says nothing (a voltage is in every chapter of appliances).
    const within = new Set(headings.map((h) => h.heading));
    if (within.size === 0) return '';
    const found = new Set<string>();
    for (const quantity of queryQuantities(q)) {
      for (const { code, range } of this.ranges.get(quantity.unit) ?? []) {
        if (!within.has(code.slice(0, 4))) continue;
        if (inRange(quantity, range)) found.add(code);
        if (found.size >= MAX_QUANTITY_CODES) break;
      }
    }
    return found.size === 0 ? '' : ` ${[...found].join(' ')} `;
  }
}
