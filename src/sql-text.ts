/**
 * The two pieces of SQL text both the store and the search build with (a quoted name, the bound of a
 * prefix range), in a module of their own so that neither folder imports the other for them.
 */

/** A name as both databases read it, quotes doubled. */
export const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

/** The smallest string greater than every string that starts with `prefix`. */
export function prefixUpperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
