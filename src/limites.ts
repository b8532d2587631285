/**
 * The bounds a person meets on both sides: the API refuses past them and the page says so before it
 * sends (the search box, a batch's file and name, a watch list's name and codes, the contributions'
 * lines). One value each, here; it imports nothing, so the server and the page share it
 * (/consulta/limites.js). Bounds only the server checks (an XLSX part's expansion, a line's
 * characters) stay beside their check (src/lotes/limits.ts).
 */

/** Characters of a search (`q` of `/api/v1/buscar`). */
export const MAX_QUERY_LENGTH = 200;
/** Characters of what has been typed for suggestions (`q` of `/api/v1/buscar/sugerencias`). */
export const MAX_SUGGEST_LENGTH = 100;
/** Lines of one batch file (blank lines aside): `../shared/spec/lotes.md`. */
export const MAX_BATCH_LINES = 100_000;
/** Bytes of one batch file as sent: `../shared/spec/lotes.md`. */
export const MAX_BATCH_BYTES = 20 * 1024 * 1024;
/** Characters of a batch's name. */
export const MAX_BATCH_NAME = 100;
/** Characters of a watch list's name. */
export const MAX_WATCH_NAME = 200;
/** Codes one watch list follows. */
export const MAX_WATCH_FRACTIONS = 5000;
/** Lines (`partidas`) of one contributions estimate. */
export const MAX_CONTRIBUTION_LINES = 500;
