/**
 * Text analysis for search, done by the service on both sides (the indexed texts and the query) so
 * that SQLite and PostgreSQL hold the same terms and rank the same hits: accents and case folded,
 * Spanish and English stop words dropped, each word reduced by the Snowball Spanish stemmer
 * (`llantas` and `llanta` → `llant`, `automóviles` → `automovil`).
 */
import snowball from 'snowball-stemmers';

const stemmer = snowball.newStemmer('spanish');

/** Words that say nothing about the goods, in the tariff's Spanish and in invoice English. */
const STOP_WORDS = new Set(
  (
    'a al algun alguna con como cual cuando de del demas desde e el ella en entre es esta este estos excepto ' +
    'hasta incluso la las lo los mas mismo mismos ni no o otra otras otro otros para pero por que se segun ser ' +
    'si sin sobre solo su sus tal tales u un una unas uno unos y ya ' +
    'and as at by for from in into not of on or other others the to with without'
  ).split(' '),
);

/**
 * Words after which, until the next punctuation, a text speaks of what the goods are for or part of
 * ("Para desmontar llantas", "Partes de motores"): such words still match, but count less than the
 * words that name the goods themselves.
 */
const CONTEXT_OPENERS = new Set(['para', 'partes', 'parte', 'accesorios', 'piezas', 'excepto', 'for', 'parts']);

const LETTER_COMPOUND = /(?<![\p{L}\p{N}])(\p{L})-(?=\p{L}{2})/gu;

/**
 * Accents and case folded; a single letter joined by a hyphen to a word is one word with it
 * ("T-shirts" → tshirts, "X-ray" → xray, "V-belts" → vbelts): alone, the letter would be dropped as
 * too short and the word would name other goods (shirts, rays, belts).
 */
export function fold(text: string): string {
  // Most words and many texts are plain ASCII, which decomposition leaves as it is, and most have no
  // hyphen: both steps are skipped then (fold took a tenth of an import's CPU, 1.3 s of the demo's 11).
  const folded = (NOT_ASCII.test(text) ? text.normalize('NFD').replace(/\p{Mn}/gu, '') : text).toLowerCase();
  return folded.includes('-') ? folded.replace(LETTER_COMPOUND, '$1') : folded;
}

const NOT_ASCII = /[\u0080-\uffff]/;

/** Folded words of a text, stop words included (letters and digits only). */
export function words(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

const stems = new Map<string, string>();

/**
 * The stem of one folded word; digits and short words are kept as they are. An English plural (a
 * consonant then s, which a Spanish word hardly ends with: "bearings", "panels", "bolts") loses its s
 * first, as the Spanish stemmer does not take it: the singular of an invoice ("BALL BEARING") then
 * finds the plural of a reference.
 */
export function stem(word: string): string {
  if (/^[\p{L}]+[b-df-hj-np-rtv-z]s$/u.test(word)) word = word.slice(0, -1);
  // The Snowball stemmer reads a plural in -rnos as a verb with the pronoun "nos" ("comernos"):
  // "cuadernos" → cuad, "modernos" → mod. Goods are nouns: the singular's stem ("cuadern").
  if (word.endsWith('rnos')) word = word.slice(0, -1);
  if (word.length < 4 || /\d/.test(word)) return word;
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer.stem(word);
    if (stems.size < 200_000) stems.set(word, s);
  }
  return s;
}

/**
 * Chapters 98 and 99 grant a special treatment (samples, sectoral programmes, the US tariff's temporary
 * provisions), they name no goods: a description of goods never finds them, their codes do.
 */
export const isSpecialTreatment = (code: string): boolean => code.startsWith('98') || code.startsWith('99');

export const isStopWord = (word: string): boolean => STOP_WORDS.has(word);

/** The terms of a text: stems of its words, stop words left out, in order. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP_WORDS.has(w))
    .map(stem);
}

const splitCache = new Map<string, { main: string[]; context: string[] }>();

/**
 * A text's terms split into those naming the goods and those in a "para …"/"partes de …" clause, or
 * after "excepto" or "other than" (what the goods are not: "of textile materials (other than cotton …)").
 */
export function splitTerms(text: string): { main: string[]; context: string[] } {
  let split = splitCache.get(text);
  if (!split) {
    split = splitUncached(text);
    // The same hierarchy texts recur on every line under them; the bound keeps a huge import in check.
    if (splitCache.size < 100_000) splitCache.set(text, split);
  }
  return split;
}

/**
 * What a Spanish text says the goods lack: the word after `sin`, and one after `ni` following it
 * ("Lana sin cardar ni peinar", "Cerraduras sin llave", "Cables de cobre, sin aislar"), is a term of
 * its own (`~llav`), which only a description saying the same ("cerveza sin alcohol") finds: the word
 * itself ("CERRADURA CON 4 LLAVES", "CABLE AISLADO") no longer finds the goods said to lack it.
 */
export const NEGATED = '~';
const NEGATORS = new Set(['sin']);

/** Where a text's words stand in what it says the goods lack: 'next', the next word is lacked; 'after', the last one was. */
type Negation = 'none' | 'next' | 'after';

/**
 * One word's step through what a text says the goods lack: a negator (`sin`, or `ni` after a lacked
 * word), the word lacked (the first word after it that is no stop word), or any other word; stop
 * words leave the state as it was ("sin cardar ni peinar", "sin el cable").
 */
function negationStep(w: string, state: Negation): { readonly next: Negation; readonly word: 'negator' | 'lacked' | 'other' } {
  if (NEGATORS.has(w) || (w === 'ni' && state === 'after')) return { next: 'next', word: 'negator' };
  if (STOP_WORDS.has(w)) return { next: state, word: 'other' };
  if (state === 'next') return { next: 'after', word: 'lacked' };
  return { next: 'none', word: 'other' };
}

function splitUncached(text: string): { main: string[]; context: string[] } {
  const main: string[] = [];
  const context: string[] = [];
  for (const clause of fold(text).split(/[,;:.()[\]]/)) {
    let inContext = false;
    let previous = '';
    let negation: Negation = 'none';
    for (const w of clause.match(/[\p{L}\p{N}]+/gu) ?? []) {
      const step = negationStep(w, negation);
      negation = step.next;
      if (step.word === 'negator') continue;
      if (step.word === 'lacked') {
        (inContext ? context : main).push(NEGATED + stem(w));
        previous = w;
        continue;
      }
      // "other than cotton" (the US tariff's "excepto"): the goods are not of what follows.
      const otherThan = w === 'than' && previous === 'other';
      previous = w;
      if (otherThan) {
        inContext = true;
        continue;
      }
      if (CONTEXT_OPENERS.has(w)) {
        if (w !== 'para' && w !== 'for') main.push(stem(w));
        inContext = true;
        continue;
      }
      if (STOP_WORDS.has(w)) continue;
      (inContext ? context : main).push(stem(w));
    }
  }
  return { main, context };
}

/** The words a description says the goods lack: after `sin`, and after `ni` following one ("sin cardar ni peinar"). */
export function negatedWords(text: string): Set<string> {
  const found = new Set<string>();
  let negation: Negation = 'none';
  for (const w of words(text)) {
    const step = negationStep(w, negation);
    negation = step.next;
    if (step.word === 'lacked') found.add(w);
  }
  return found;
}

/** Words that end the head of a text: what follows them qualifies the goods rather than names them. */
const HEAD_END = new Set(['de', 'del', 'para', 'con', 'sin', 'en', 'excepto', 'incluso', 'incluidos', 'incluidas', 'of', 'for', 'with']);

/**
 * The terms that head a text, the goods it is about: its words up to the first comma, preposition or
 * parenthesis ("Refrigeradores, congeladores y demás…" → refriger; "Automóviles de turismo" →
 * automovil; "Trozos y despojos, frescos o refrigerados" → troz, despoj). A text that opens with a
 * preposition ("De los tipos…", "Para hombres") or with "Los demás" has no head.
 */
export function headTerms(text: string): string[] {
  const head: string[] = [];
  for (const token of fold(text).split(/(?=[([;:.,])|\s+/)) {
    if (/^[([;:.,]/.test(token)) break;
    const w = token.replace(/[^\p{L}\p{N}]/gu, '');
    if (w === '') continue;
    if (HEAD_END.has(w)) break;
    if (!STOP_WORDS.has(w)) head.push(stem(w));
  }
  return head;
}

/**
 * A folded word as Spanish sounds it, for typo correction: the letters a Mexican writer swaps (b/v,
 * c/s/z, qu/k, ll/y, g/j before e and i) become one, a silent h and doubled letters go ("keso" and
 * "queso", "bacunas" and "vacunas", "uevos" and "huevos" sound the same).
 */
export function phonetic(word: string): string {
  return word
    .replace(/ch/g, 'x')
    .replace(/h/g, '')
    .replace(/qu/g, 'k')
    .replace(/gu(?=[ei])/g, 'g')
    .replace(/g(?=[ei])/g, 'j')
    .replace(/c(?=[ei])/g, 's')
    .replace(/c/g, 'k')
    .replace(/z/g, 's')
    .replace(/v/g, 'b')
    .replace(/ll/g, 'y')
    .replace(/(.)\1+/g, '$1');
}

/** Rows of the edit distance, reused by every call (a typo is compared with thousands of words). */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** Edit distance counting a swap of two neighbouring letters as one edit ("tequlia"), stopping early once it exceeds `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (b.length + 1 > rows[0]!.length) rows = [0, 1, 2].map(() => new Int32Array(2 * (b.length + 1)));
  let [before, previous, current] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
