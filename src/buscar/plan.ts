/**
 * What a query becomes before it is ranked (`Vocabulary.plan`) and the weights the ranking gives
 * each part of it: shared by the planner (vocabulary.ts), the heading evidence (headings.ts) and the
 * ranking (ranking.ts).
 */

/**
 * One word of the query: the index terms that count for it (a trailing space: the whole term only),
 * the word itself first, then what it may stand for (a typo's corrections, a search reference's
 * tariff words), which count half as much.
 */
export interface QueryGroup {
  readonly primary: readonly string[];
  readonly secondary: readonly string[];
  readonly weight: number;
  /** What finding the word at all adds (MATCHED_WORD for a word naming goods, nothing for an attribute). */
  readonly matched: number;
}

export interface QueryPlan {
  readonly groups: readonly QueryGroup[];
  /**
   * The headings the head of the phrase names goods in, best first, each with what it adds to its
   * lines (at most HEADING_SLOTS; none when the head is unknown or the dataset has no evidence).
   */
  readonly headings: readonly { readonly heading: string; readonly bonus: number }[];
  /**
   * The codes a search reference of several words names when the description holds it whole from its
   * head on ("motores diesel": 8408): their lines gain PHRASE_MATCH (absent or empty: none).
   */
  readonly phraseCodes?: readonly string[];
  /** Codes whose texts state a range holding a quantity of the query, as ` code code ` (empty: none). */
  readonly quantityCodes: string;
  /**
   * The kinds of material the description states (materials.ts, a mask; 0 or absent: none): a line whose
   * texts state only other kinds loses MATERIAL_CONTRADICTION, one stating one of them gains MATERIAL_AGREEMENT; with none
   * stated, a line whose texts state one loses MATERIAL_UNSTATED.
   */
  readonly materials?: number;
  /** The language the description is read in (reading.ts; absent: Spanish): English also reads the US tariff's subheading texts. */
  readonly language?: 'es' | 'en';
  /** Codes typed among the words (4 to 10 digits): their lines rank first. */
  readonly codes: readonly string[];
  /** Stems to mark in the hits' texts. */
  readonly marks: readonly string[];
}

export const MAX_PRIMARY = 1;
export const MAX_SECONDARY = 3;
export const MAX_GROUPS = 10;
export const MAX_CODES = 3;
export const MAX_SUGGESTIONS = 10;
/**
 * What one matched word adds besides its weighted field: more than any sum of weights, so that
 * lines with all the words that name goods come first, then those with most of them ("how many"),
 * and the rarity of the words and where they were found order lines with as many ("how rare").
 */
export const MATCHED_WORD = 1_000_000;
/** An attribute of an invoice line weighs this many times less than a word naming goods. */
export const ATTRIBUTE_SHARE = 3;
/** From this many words on, a query is an invoice line: unknown words are brands or models. */
export const LONG_QUERY = 4;
/** A typed code outranks any words. */
export const CODE_WEIGHT = 100_000_000;
/**
 * What a heading the head of the phrase names goods in adds to each of its lines: more than all the
 * words of a query can, so that qualifiers never pull in a heading the goods are not in.
 */
export const HEAD_HEADING = 20_000_000;
/** On top of HEAD_HEADING, up to this much by how much of the whole phrase the heading's texts hold (the best heading gets all). */
export const HEADING_SPREAD = 3_000_000;
/** How many headings the head may name (the SQL has this many slots). */
export const HEADING_SLOTS = 8;
/** A line whose texts state a range holding a quantity of the query gains as much as one more word. */
export const QUANTITY_MATCH = MATCHED_WORD;
/**
 * What the head of a Spanish phrase adds on top of MATCHED_WORD to the lines holding it: within a
 * heading, a line naming the goods ("AMORTIGUADOR TRASERO": 8708.80's shock absorbers) outranks one
 * matching a qualifier ("Compuerta trasera", 8708.29), and half a word still lets two qualifiers outweigh it.
 */
export const HEAD_WORD = MATCHED_WORD / 2;
/** A line under the codes a typed reference phrase names gains as much as one more word. */
export const PHRASE_MATCH = MATCHED_WORD;
/** What a line loses when its texts state only materials other than those the description states: one matched word. */
export const MATERIAL_CONTRADICTION = MATCHED_WORD;
/** What a line gains when its texts state a material the description states: it orders siblings, less than a word. */
export const MATERIAL_AGREEMENT = MATCHED_WORD / 4;
/**
 * What a line loses when its texts require a material and the description states none: a tie-breaker
 * only (the generic sibling first: 9102 before 9101's precious-metal watches for "relojes de pulsera").
 */
export const MATERIAL_UNSTATED = MATCHED_WORD / 10;
/**
 * What a line gains for each word of the query its own texts (head, line, hierarchy) hold when some
 * of its siblings' do not, within a heading the head names: a discriminating qualifier ("laminado",
 * "PVC", "lubricante") decides between sibling subheadings and lines that the words all siblings
 * share (or a reference naming the whole heading) leave tied. A tie-breaker (a fiftieth of a word,
 * about what a better field adds): measured on the development half, half a word pulled lines of
 * other headings above the best one's (−3.4 points hit@1), a fiftieth and a twentieth did best.
 */
export const DISCRIMINATING_WORD = MATCHED_WORD / 50;
/** The first position in a sorted list whose key is not below `key`. */
export function lowerBound<T>(sorted: readonly T[], key: string, of: (t: T) => string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (of(sorted[mid]!) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
