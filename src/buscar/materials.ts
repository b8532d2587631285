/**
 * Materials read against the texts (issue 44), as quantities are: a material a description states
 * ("CAJA DE ACERO INOXIDABLE", "100% ALGODON", "LEATHER BELT") counts against a line whose texts
 * state only materials of other kinds (a watch "con caja de metal precioso", towels "de papel",
 * footwear "de caucho o plástico") and, less, for a line whose texts state it (bags "de polímeros de
 * etileno" for "bolsa de polietileno"). Lines that state no material are left as they are: the texts
 * of most lines do not say what the goods are made of.
 */
import { fold, stem } from './analysis.js';
import { OWN_TEXTS, fieldTag } from './documents.js';

/**
 * The kinds of material, each with the words a description uses (Spanish and invoice English, matched
 * as typed, singular or plural) and the words of the tariff's texts that state it (matched by stem in
 * the documents; the demo's hierarchy is partly in English). A kind is one bit of a mask.
 */
const KINDS: readonly { typed: string; texts: string }[] = [
  { typed: 'algodon cotton', texts: 'algodon cotton' },
  {
    typed: 'poliester polyester nailon nylon acrilico acrilica acrylic sintetico sintetica synthetic viscosa rayon elastano spandex lycra',
    texts: 'poliester nailon acrilico sintetico viscosa elastano synthetic',
  },
  { typed: 'lana wool', texts: 'lana wool' },
  { typed: 'seda silk', texts: 'seda silk' },
  // Not the English "paper" among the texts: its stem is the Spanish "papa"'s.
  { typed: 'papel carton paper paperboard cardboard', texts: 'papel carton paperboard' },
  {
    typed: 'plastico plastica plastic polietileno polyethylene polipropileno polypropylene pvc poliestireno polystyrene',
    texts: 'plastico polietileno polipropileno polimeros plastics',
  },
  { typed: 'caucho hule latex rubber', texts: 'caucho hule latex rubber' },
  { typed: 'cuero piel leather', texts: 'cuero piel leather' },
  { typed: 'madera wood wooden', texts: 'madera wood' },
  { typed: 'vidrio glass', texts: 'vidrio glass' },
  { typed: 'ceramica ceramico porcelana loza ceramic porcelain stoneware', texts: 'ceramica porcelana loza ceramic porcelain' },
  { typed: 'acero hierro inoxidable steel iron stainless', texts: 'acero hierro fundicion inoxidable steel iron' },
  { typed: 'aluminio aluminum aluminium', texts: 'aluminio aluminum' },
  { typed: 'cobre laton bronce copper brass bronze', texts: 'cobre laton bronce copper brass bronze' },
  { typed: 'oro plata platino gold silver platinum', texts: 'precioso oro platino plaque precious gold silver platinum' },
];

/**
 * The states goods are traded in, read the same way as a second, separate mask: fish "en lata" are
 * preserved (1604), not the fresh or frozen fillets of 0304; "FROZEN SHRIMP" are 0306.1x, not the live,
 * fresh or chilled ones of 0306.3x.
 */
const STATES: readonly { typed: string; texts: string }[] = [
  { typed: 'fresco fresca frescos frescas fresh chilled', texts: 'fresco' },
  { typed: 'congelado congelada congelados congeladas frozen', texts: 'congelado' },
  { typed: 'lata latas enlatado enlatada enlatados enlatadas conserva conservas canned tinned preserved almibar', texts: 'conserva' },
];
/** The bits of the materials' mask, the states' and the constructions'. */
export const MATERIAL_BITS = 0xffff;
export const STATE_BITS = 0x00ff0000;
export const CONSTRUCTION_BITS = 0xff000000;
/**
 * A garment or fabric is knitted ("de punto", chapters 60 and 61, whose chapter texts say so) or not
 * (chapter 62's say "excepto los de punto", a clause the documents keep apart): a third dimension,
 * typed "de punto", "knit", "tejido plano", "woven".
 */
const KNIT = (1 << 24) >>> 0;
const WOVEN = (1 << 25) >>> 0;

const TYPED = new Map<string, number>();
/** The tagged terms of the documents (field and stem) that state a kind, each with its bit. */
export const LINE_TERMS = new Map<string, number>();
const ownTexts = OWN_TEXTS.map(fieldTag);
/** Each kind (materials from bit 0, states from bit 16) under the words a description types and those the texts state it by. */
for (const [list, first] of [
  [KINDS, 0],
  [STATES, 16],
] as const) {
  for (const [i, kind] of list.entries()) {
    const bit = (1 << (first + i)) >>> 0;
    for (const w of kind.typed.split(' ')) TYPED.set(w, ((TYPED.get(w) ?? 0) | bit) >>> 0);
    for (const w of kind.texts.split(' ')) for (const f of ownTexts) LINE_TERMS.set(f + stem(w), bit);
  }
}
for (const w of ['knit', 'knitted', 'crochet', 'crocheted', 'ganchillo']) TYPED.set(w, KNIT);
TYPED.set('woven', WOVEN);
LINE_TERMS.set(fieldTag('T_CAPITULO') + stem('punto'), KNIT);

/** "de punto" is knitted, "tejido plano" or "tela plana" woven; "punto de venta" neither. */
function construction(word: string, before: string): number {
  if (word === 'punto' && before === 'de') return KNIT;
  if ((word === 'plano' || word === 'plana') && (before === 'tejido' || before === 'tela')) return WOVEN;
  return 0;
}

/** Words after which a material says what the goods are for, not what they are made of ("tornillos para madera"). */
const PURPOSE = new Set(['para', 'p', 'for']);

/** The kinds of material and the states a description states (a mask; 0 for none), leaving out those it names as a purpose. */
export function materialsOf(text: string): number {
  const typed = fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
  let mask = 0;
  for (const [i, w] of typed.entries()) {
    const kind = TYPED.get(w) ?? TYPED.get(w.replace(/e?s$/, '')) ?? construction(w, typed[i - 1] ?? '');
    if (kind === 0) continue;
    const before = typed[i - 1] ?? '';
    const purpose = PURPOSE.has(before) || (['la', 'el', 'uso', 'usar'].includes(before) && PURPOSE.has(typed[i - 2] ?? ''));
    if (!purpose) mask = (mask | kind) >>> 0;
  }
  return mask;
}

/**
 * How a line whose texts state the kinds `line` reads against a description stating `typed`, in the
 * bits of one dimension: it states one of them, only others, one the description does not state at
 * all ("relojes de pulsera": the watches of 9101 have a precious-metal case, those of 9102 any), or
 * nothing to compare.
 */
function reading(typed: number, line: number, bits: number): 'agrees' | 'contradicts' | 'unstated' | 'none' {
  const t = (typed & bits) >>> 0;
  const l = (line & bits) >>> 0;
  if (l === 0) return 'none';
  if (t === 0) return 'unstated';
  return (t & l) === 0 ? 'contradicts' : 'agrees';
}

/** Materials: with none typed, a line requiring one is the less likely sibling. */
export function materialReading(typed: number, line: number): 'agrees' | 'contradicts' | 'unstated' | 'none' {
  return reading(typed, line, MATERIAL_BITS);
}

/** States read alike, except that a state the description does not state says nothing. */
export function stateReading(typed: number, line: number): 'agrees' | 'contradicts' | 'none' {
  const read = reading(typed, line, STATE_BITS);
  return read === 'unstated' ? 'none' : read;
}

/** Knitted or not, read as materials are: with none typed, a knitted line is the less likely sibling (a "camisa" is woven). */
export function constructionReading(typed: number, line: number): 'agrees' | 'contradicts' | 'unstated' | 'none' {
  return reading(typed, line, CONSTRUCTION_BITS);
}
