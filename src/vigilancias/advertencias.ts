/**
 * What in a watch list looks like a mistake without being one the API can refuse. A spreadsheet that
 * holds fractions as numbers drops their leading zero: `0101.21.01` becomes `101.21.01`, seven digits,
 * which is a valid prefix and so watches every code that begins with 1012101 (other goods) instead of
 * the horse fraction. Codes come in 2, 4, 6, 8 or 10 digits (chapter, heading, subheading, fraction,
 * fraction with NICO); an odd length is what a dropped zero leaves, so it is flagged (never refused:
 * a 3-, 5-, 7- or 9-digit prefix is legitimate).
 */

export interface Advertencia {
  /** What kind of warning: the page words it by this. */
  readonly tipo: 'cero_inicial';
  /** The code as the watch list keeps it (digits). */
  readonly fraccion: string;
  /** The code with the zero put back. */
  readonly sugerencia: string;
  readonly msg: string;
}

/** A warning for each code (digits, as normalised) whose length suggests a dropped leading zero. */
export function droppedZeros(codes: readonly string[]): Advertencia[] {
  return codes
    .filter((code) => code.length % 2 === 1)
    .map((code) => ({
      tipo: 'cero_inicial' as const,
      fraccion: code,
      sugerencia: `0${code}`,
      msg:
        `${code} has ${code.length} digits: it watches every code that begins with ${code}; ` +
        `if it is 0${code} whose leading zero a spreadsheet dropped, write it with the zero`,
    }));
}
