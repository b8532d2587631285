/**
 * Every refusal the service words itself, in one table (as fastify core's `lib/errors.js`): its code,
 * its HTTP status and its English message, `{name}` standing for a value the refusal names. A 422's
 * entry carries the code and those values in `ctx` (`{"code": "LOTE_SIN_ENCABEZADO", "linea": 1}`), so
 * a client (the page, src/consulta/codigos.ts) says it in its own words by code, never by reading the
 * English. A refusal in a string `detail` (404, 409, 413, 415, 429…) keeps the contract's shape, so its
 * code goes no further than the server; the page tells those apart by status.
 *
 * Refusals Pydantic has a type for (`string_too_short`, `missing`, `greater_than_equal`…) keep that
 * type as their code and their `ctx` as Pydantic writes it (../shared/spec/contract.md): the seed's
 * interface answers byte for byte as it did. This table holds the rest.
 *
 * Data only, no imports: the server's layers import it, and the page imports its type.
 */
export const ERROR_CODES = {
  // The contract's generic refusals (src/http/errors.ts, src/http/auth.ts).
  NOT_AUTHENTICATED: { status: 401, message: 'Not authenticated' },
  INVALID_CREDENTIALS: { status: 401, message: 'Could not validate credentials' },
  LOGIN_FAILED: { status: 401, message: 'Incorrect username or password' },
  LOGIN_THROTTLED: { status: 429, message: 'Too many failed login attempts; try again later' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too Many Requests' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service Unavailable' },
  NOT_FOUND: { status: 404, message: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method Not Allowed' },
  INTERNAL: { status: 500, message: 'Internal Server Error' },

  // What a client asked for is not there.
  RECORD_NOT_FOUND: { status: 404, message: '{label} record not found' },
  FRACTION_NOT_FOUND: { status: 404, message: 'Fraction not found' },
  FRACTION_NOT_FOUND_NAMED: { status: 404, message: 'Fraction not found: {fraccion}' },
  CHAPTER_NOT_FOUND: { status: 404, message: 'Chapter not found' },
  HEADING_NOT_FOUND: { status: 404, message: 'Heading not found' },
  NO_DATASET_ON: { status: 404, message: 'No dataset in force on {fecha}' },
  NO_VERSION: { status: 404, message: 'No dataset version {version}' },
  NO_EXCHANGE_RATE: { status: 404, message: '{motivo}' },
  NO_DOWNLOAD_FILE: { status: 404, message: 'No file {archivo} in a version' },

  // Contributions, changes and rules of origin: values a schema cannot refuse alone.
  NICO_MISMATCH: { status: 422, message: 'the NICO disagrees with the one in fraccion ({nico})' },
  CAMBIOS_HASTA_BEFORE_DESDE: { status: 422, message: 'hasta must not be before desde' },
  CAMBIOS_DESDE_AFTER_TODAY: { status: 422, message: 'desde must not be after hasta, which is today ({hasta}) when not given' },
  ORIGEN_UNKNOWN_COUNTRY: { status: 422, message: 'Unknown country: an ISO 3166 alpha-3 key of Anexo 22 apéndice 4' },
  ORIGEN_NICO_MISMATCH: { status: 422, message: 'The NICO disagrees with the one inside fraccion' },
  ORIGEN_NO_RULE_AT_ENTRY: { status: 422, message: 'No rule of a set with rules for different goods begins at this entry' },

  // Batches (../shared/spec/lotes.md): a file refused whole (422, `ctx.linea` where a line shows it).
  LOTE_NOT_UTF8: { status: 422, message: 'the file is not UTF-8 text' },
  LOTE_UNREADABLE: { status: 422, message: 'the file cannot be read as {format} ({reason})' },
  LOTE_CSV_QUOTE_OPEN: { status: 422, message: 'the file cannot be read as CSV: a quoted value is never closed' },
  LOTE_XLSX_EMPTY: { status: 422, message: 'the file is empty: an XLSX file is a ZIP archive' },
  LOTE_XLSX_SHARED_STRING: { status: 422, message: 'a cell names shared string {index}, which the file does not have' },
  LOTE_XLSX_ROW_NUMBER: { status: 422, message: "a row's number ({row}) is not a row number" },
  LOTE_XLSX_ROW_ORDER: { status: 422, message: 'row {row} comes after row {previous}: a row number is given twice or out of order' },
  LOTE_NO_HEADER: { status: 422, message: 'the file has no header' },
  LOTE_XLSX_NO_HEADER: { status: 422, message: 'the file has no header (its first sheet is empty)' },
  LOTE_XLSX_FIRST_ROW_EMPTY: { status: 422, message: 'the file has no header: its first row, which names the columns, is empty' },
  LOTE_HEADER_EMPTY: { status: 422, message: 'the header is empty' },
  LOTE_HEADER_TOO_LONG: { status: 422, message: 'the header holds {characters} characters; it may hold at most {max}' },
  LOTE_HEADER_NO_KEY: { status: 422, message: 'the header has neither a descripcion nor a fraccion column' },
  LOTE_NO_LINES: { status: 422, message: 'the file has no lines under its header: a batch needs at least one' },
  LOTE_PAST_HEADER: { status: 422, message: "a value in column {column}, past the header's {columns} columns" },
  LOTE_TOO_MANY_COLUMNS: { status: 422, message: 'more than {max} columns; a batch file takes at most {max}' },
  LOTE_VALUE_TOO_LONG: { status: 422, message: 'a value longer than {max} characters' },
  LOTE_ROW_TOO_LONG: { status: 422, message: 'a line longer than {max} characters' },
  LOTE_LINE_TOO_LONG: { status: 422, message: 'the line holds {characters} characters; a line may hold at most {max}' },
  LOTE_NDJSON_NOT_JSON: { status: 422, message: 'the line is not JSON' },
  LOTE_NDJSON_NOT_OBJECT: { status: 422, message: 'the line is not a JSON object' },
  LOTE_NDJSON_TOO_DEEP: { status: 422, message: 'the line nests arrays and objects more than {max} deep' },
  LOTE_NDJSON_TOO_MANY_FIELDS: { status: 422, message: 'the line has {fields} fields; a line may have at most {max}' },
  LOTE_NDJSON_TOO_MANY_NAMES: { status: 422, message: "the file's lines use more than {max} field names; a batch has at most {max} columns" },
  LOTE_NDJSON_LINE_TOO_LONG: { status: 422, message: 'the line is longer than {max} characters' },
  LOTE_NDJSON_NO_LINES: { status: 422, message: 'the file has no lines' },
  LOTE_NDJSON_NO_KEY: { status: 422, message: 'no line has a descripcion or a fraccion field' },
  // Batches: too large (413), another type (415), too many at once (429), gone (400, 404).
  LOTE_TOO_MANY_BYTES: { status: 413, message: 'A batch takes at most {mib} MiB' },
  LOTE_TOO_MANY_LINES: { status: 413, message: 'A batch takes at most {max} lines' },
  LOTE_TOO_MANY_ROWS: { status: 413, message: 'A batch file takes at most {max} rows, blank ones included' },
  LOTE_TOO_MUCH_TEXT: { status: 413, message: "A batch's lines may hold at most {max} characters of text together; this file's hold more" },
  LOTE_XLSX_ELEMENT_TOO_LONG: { status: 413, message: 'A {what} of the XLSX file is longer than {max} characters' },
  LOTE_XLSX_TOO_MANY_PARTS: { status: 413, message: 'The XLSX file has {count} parts; a batch file takes at most {max}' },
  LOTE_XLSX_PART_TOO_LARGE: { status: 413, message: "The XLSX file's {what} ({part}) expands to {size} bytes; a batch file's may take at most {max}" },
  LOTE_XLSX_PART_RATIO: { status: 413, message: "The XLSX file's {part} expands {ratio} times; a batch file's parts may expand at most {max} times" },
  LOTE_XLSX_EXPANDS_TOO_MUCH: {
    status: 413,
    message: "The XLSX file's sheet and shared strings expand to {size} bytes; a batch file's may take at most {max}",
  },
  LOTE_UNSUPPORTED_TYPE: { status: 415, message: 'Unsupported Media Type: send {types}' },
  LOTE_TOO_MANY_BATCHES: { status: 429, message: 'Too many batches: at most {max} of yours queued or running at once' },
  LOTE_NOT_FOUND: { status: 404, message: 'Lote not found' },
  LOTE_CLIENT_LEFT: { status: 400, message: 'The client left before the batch was stored' },
  LOTE_FILE_CUT: { status: 400, message: 'The file was not received whole' },

  // Watch lists (../shared/spec/vigilancias.md).
  VIGILANCIA_LIMIT: { status: 422, message: 'at most {limit} watch lists per user (VIGILANCIAS_POR_USUARIO)' },
  WEBHOOK_NOT_URL: { status: 422, message: 'not a valid URL' },
  WEBHOOK_SCHEME: { status: 422, message: 'the URL must be https' },
  WEBHOOK_PLAIN_HTTP: { status: 422, message: 'the URL must be https (plain http only to a host listed in VIGILANCIAS_HOSTS_PERMITIDOS)' },
  WEBHOOK_PORT: { status: 422, message: 'port {port} is not allowed ({ports} only, as VIGILANCIAS_PUERTOS_PERMITIDOS says)' },
  WEBHOOK_LOCAL_HOST: { status: 422, message: '{host} is not a public host' },
  WEBHOOK_PRIVATE_ADDRESS: { status: 422, message: '{host} is not a public address' },
  WEBHOOK_PRIVATE_NAME: { status: 422, message: '{host} does not resolve to public addresses only' },
  VIGILANCIA_NOT_FOUND: { status: 404, message: 'Watch list not found' },
  ENTREGA_NOT_FOUND: { status: 404, message: 'Delivery not found' },
  ENTREGA_PENDING: { status: 409, message: 'The delivery is still pending' },
} as const satisfies Readonly<Record<string, { readonly status: number; readonly message: string }>>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The values a refusal's message names, by the names its template gives them. */
export type ErrorParams = Readonly<Record<string, string | number>>;

/** A code's English message with its values written in (`{name}` → the value; a value not given stays as written). */
export function errorMessage(code: ErrorCode, params: ErrorParams = {}): string {
  return ERROR_CODES[code].message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
