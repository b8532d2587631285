/**
 * Quantities (issue 44): a size, power, voltage or capacity typed in a query ("150 cc", "600W",
 * "1.5 LTS", "16 PULG") read against the ranges the tariff's texts state for sibling lines ("de
 * cilindrada superior a 50 cm³ pero inferior o igual a 250 cm³", "exceeding 50cc but not exceeding
 * 250cc", "de potencia inferior o igual a 50 W"), so that the line whose range holds it is chosen.
 */
import { fold } from './analysis.js';

/** Units as the texts and brokers write them: the base unit, the factor to it, the spellings. */
const UNIT_TABLE: readonly [base: string, factor: number, spellings: string][] = [
  ['cm3', 1, 'cc cm3 cm³ c.c.'],
  ['W', 1, 'w watt watts vatios watios'],
  ['W', 1000, 'kw'],
  ['W', 1_000_000, 'mw'],
  ['V', 1, 'v volt volts voltios vac vdc vca vcd'],
  ['V', 1000, 'kv'],
  ['A', 1, 'a amp amps amperes amperios amper'],
  ['VA', 1, 'va'],
  ['VA', 1000, 'kva'],
  ['in', 1, 'pulg pulgada pulgadas plg in inch inches " ”'],
  ['kg', 1, 'kg kgs kilo kilos kilogramo kilogramos'],
  ['kg', 1000, 't ton tons tonelada toneladas'],
  ['l', 1, 'l lt lts litro litros liter liters litre litres'],
  ['l', 0.001, 'ml'],
  ['%', 1, '%'],
  ['mm', 1, 'mm'],
  ['mm', 10, 'cm'],
  ['mm', 1000, 'm'],
  ['hp', 1, 'hp cp cv'],
];
const UNITS = new Map<string, readonly [string, number]>(
  UNIT_TABLE.flatMap(([base, factor, spellings]) => spellings.split(' ').map((u) => [u, [base, factor]] as const)),
);

export interface Quantity {
  readonly unit: string;
  readonly value: number;
}

export interface Range {
  readonly unit: string;
  readonly min: number | null;
  readonly minIncluded: boolean;
  readonly max: number | null;
  readonly maxIncluded: boolean;
}

// A number (thousands with commas, decimals with a dot: "1,500", "0.5", "1.5"), then its unit.
const NUMBER = String.raw`(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)`;
const UNIT = String.raw`(cm3|cm³|c\.c\.|cc|kw|kva|mw|kv|va|w|watts?|vatios|watios|volts?|voltios|vac|vdc|vca|vcd|v|amps?|amperes|amperios|amper|a|pulgadas?|pulg|plg|inch(?:es)?|in|"|”|kgs?|kilos?|kilogramos?|toneladas?|tons?|t|litros?|liters?|litres?|lts|lt|ml|l|%|mm|cm|m|hp|cp|cv)`;
const QUANTITY = new RegExp(`(?<![\\p{L}\\d.,])${NUMBER}\\s?${UNIT}(?![\\p{L}\\d²³/])`, 'gu');

function numberOf(text: string): number {
  // "1,500" is fifteen hundred; "1,5" (a decimal comma, as some write it) is one and a half.
  const plain = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(text) ? text.replace(/,/g, '') : text.replace(',', '.');
  return Number(plain);
}

function unitOf(text: string): readonly [string, number] | undefined {
  return UNITS.get(text.replace(/s$/, '')) ?? UNITS.get(text);
}

/** Each quantity of a text with a unit, in the unit's base ("150 cc" → 150 cm3, "1.5 kW" → 1500 W). */
export function quantitiesOf(text: string): { quantity: Quantity; index: number; end: number }[] {
  const found: { quantity: Quantity; index: number; end: number }[] = [];
  for (const m of fold(text).matchAll(QUANTITY)) {
    const unit = unitOf(m[2]!);
    const value = numberOf(m[1]!);
    if (!unit || !Number.isFinite(value)) continue;
    found.push({ quantity: { unit: unit[0], value: value * unit[1] }, index: m.index, end: m.index + m[0].length });
  }
  return found;
}

/** Sizes as invoices write them, two or three numbers crossed and one unit after the last ("70x140 cm", "30 X 60 CM"). */
const DIMENSIONS = new RegExp(
  `(?<![\\p{L}\\d.,])${NUMBER}\\s?[x×*]\\s?${NUMBER}(?:\\s?[x×*]\\s?${NUMBER})?\\s?(mm|cm|m|pulgadas?|pulg|in|inch(?:es)?|"|”)(?![\\p{L}\\d²³/])`,
  'gu',
);

/**
 * The quantities a query states ("MOTOCICLETA 150 CC 12V" → 150 cm3, 12 V). A size written crossed
 * ("70x140 cm") states each of its numbers in the unit written once after them: a towel of 70 by 140
 * cm falls in the line whose width and length both hold them.
 */
export function queryQuantities(text: string): Quantity[] {
  const found = quantitiesOf(text).map((q) => q.quantity);
  for (const m of fold(text).matchAll(DIMENSIONS)) {
    const unit = unitOf(m[4]!);
    if (!unit) continue;
    for (const n of [m[1], m[2], m[3]]) {
      const value = n === undefined ? NaN : numberOf(n);
      const quantity = { unit: unit[0], value: value * unit[1] };
      // The last number with its unit ("60 CM") was read already.
      if (Number.isFinite(value) && !found.some((f) => f.unit === quantity.unit && f.value === quantity.value)) found.push(quantity);
    }
  }
  return found;
}

type Bound = 'min' | 'minIncluded' | 'max' | 'maxIncluded' | 'between';

/** What the words before a number say it bounds, looking at the nearest words first. */
function boundBefore(words: string): Bound | null {
  const w = words.trim();
  const ends = (re: RegExp): boolean => new RegExp(`(?:${re.source})\\s*(?:de|a|al|que|than|of)?\\s*$`).test(w);
  if (
    ends(
      /(inferior|menor)\s+o\s+igual|igual\s+o\s+(inferior|menor)|sin\s+exceder|que\s+no\s+exceda\w*|no\s+superior|not\s+exceeding|not\s+more|hasta|maximo|up\s+to|or\s+less/,
    )
  )
    return 'maxIncluded';
  if (ends(/(superior|mayor)\s+o\s+igual|igual\s+o\s+(superior|mayor)|not\s+less|minimo|a\s+partir|at\s+least/)) return 'minIncluded';
  if (ends(/inferior|menor|less|under|below/)) return 'max';
  if (ends(/superior|mayor|exceeding|exceed|over|more|mas|above/)) return 'min';
  if (ends(/entre|between/)) return 'between';
  return null;
}

/**
 * The ranges a tariff text states for each unit ("de cilindrada superior a 50 cm³ pero inferior o
 * igual a 250 cm³" → cm3 in (50, 250]; "not exceeding 1000 volts" → V up to 1000; "entre 10 y 20 kg"
 * → kg in [10, 20]). A number with no bounding words before it states no range.
 */
export function rangesOf(text: string): Range[] {
  const folded = fold(text);
  const ranges = new Map<string, { min: number | null; minIncluded: boolean; max: number | null; maxIncluded: boolean }>();
  let previousEnd = 0;
  for (const { quantity, index, end } of quantitiesOf(text)) {
    const before = folded.slice(Math.max(previousEnd, index - 45), index);
    previousEnd = end;
    // "entre 29 y 301 kg/cm²": the first number of a between takes the unit of the second.
    const between = /(?:entre|between)\s+([\d.,]+)\s*(?:y|and)\s*$/.exec(before);
    const range = ranges.get(quantity.unit) ?? { min: null, minIncluded: false, max: null, maxIncluded: false };
    if (between) {
      const unit = quantitiesOf(`1 ${folded.slice(index).match(/^[\d.,]+\s?(\S+)/)?.[1] ?? ''}`)[0];
      const factor = unit ? unit.quantity.value : 1;
      range.min = numberOf(between[1]!) * factor;
      range.minIncluded = true;
      range.max = quantity.value;
      range.maxIncluded = true;
      ranges.set(quantity.unit, range);
      continue;
    }
    const bound = boundBefore(before.replace(/[;:]/g, ' '));
    if (bound === null || bound === 'between') continue;
    if (bound === 'min' || bound === 'minIncluded') {
      range.min = quantity.value;
      range.minIncluded = bound === 'minIncluded';
    } else {
      range.max = quantity.value;
      range.maxIncluded = bound === 'maxIncluded';
    }
    ranges.set(quantity.unit, range);
  }
  return [...ranges].map(([unit, r]) => ({ unit, ...r }));
}

/** Whether a quantity falls in a range of its unit. */
export function inRange(q: Quantity, r: Range): boolean {
  if (q.unit !== r.unit) return false;
  if (r.min !== null && (r.minIncluded ? q.value < r.min : q.value <= r.min)) return false;
  if (r.max !== null && (r.maxIncluded ? q.value > r.max : q.value >= r.max)) return false;
  return true;
}

/** Ranges written compactly for the search tables: `cm3 50 0 250 1` (unit, min, min included, max, max included; `-` for none). */
export function formatRanges(ranges: readonly Range[]): string {
  const n = (v: number | null): string => (v === null ? '-' : String(v));
  return ranges.map((r) => `${r.unit} ${n(r.min)} ${r.minIncluded ? 1 : 0} ${n(r.max)} ${r.maxIncluded ? 1 : 0}`).join(';');
}

export function parseRanges(text: string): Range[] {
  return text
    .split(';')
    .filter((s) => s !== '')
    .map((s) => {
      const [unit, min, minIncluded, max, maxIncluded] = s.split(' ');
      return {
        unit: unit!,
        min: min === '-' ? null : Number(min),
        minIncluded: minIncluded === '1',
        max: max === '-' ? null : Number(max),
        maxIncluded: maxIncluded === '1',
      };
    });
}
