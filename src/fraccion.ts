/**
 * A Mexican tariff fraction as people type it, read one way everywhere: the API's parameters, the
 * contributions body, a batch's `fraccion` column. Dots and whitespace are dropped and nothing else
 * (a hyphen is not a separator the tariff writes, so `0101-21-01` is refused wherever it is typed).
 * Written back in one way too, `dotted`. It imports nothing: the server and the page share it.
 */

/** The digits of a typed code: dots and whitespace dropped; the text is otherwise left as typed. */
export function typedDigits(typed: string): string {
  return typed.replace(/[.\s]/g, '');
}

export interface TypedFraction {
  /** The 8 digits of the fraction. */
  readonly fraccion: string;
  /** The NICO of a 10-digit code, null for 8 digits. */
  readonly nico: string | null;
}

/** A whole fraction (8 digits, or 10 with its NICO) in any typed form; null when it is not one. */
export function readFraction(typed: string): TypedFraction | null {
  const digits = typedDigits(typed);
  if (!/^\d{8}(\d{2})?$/.test(digits)) return null;
  return { fraccion: digits.slice(0, 8), nico: digits.length === 10 ? digits.slice(8) : null };
}

/**
 * A code as the tariff writes it, its digits grouped 4, 2, 2 and 2: `09012101` → `0901.21.01`,
 * `0901210100` → `0901.21.01.00`, `090121` → `0901.21`, `0901` → `0901` (digits past the tenth are not shown).
 */
export function dotted(code: string): string {
  const groups = [code.slice(0, 4), code.slice(4, 6), code.slice(6, 8), code.slice(8, 10)].filter((g) => g !== '');
  return groups.join('.');
}
