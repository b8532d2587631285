/**
 * The service's refusals in Spanish, by the code each carries in `ctx` (src/error-codes.ts holds the
 * codes and their English): the page never reads the English, so rewording it changes nothing here.
 * `{name}` stands for a value of the refusal's `ctx`. A code without a text here fails to compile,
 * and test/consulta/codigos.test.ts holds the same at run time.
 */
import type { ErrorCode } from '../error-codes.js';

export const CODIGOS: Readonly<Record<ErrorCode, string>> = {
  NOT_AUTHENTICATED: 'Hace falta entrar con su usuario.',
  INVALID_CREDENTIALS: 'Su sesión ya no es válida: entre de nuevo.',
  LOGIN_FAILED: 'El usuario o la contraseña no son correctos.',
  LOGIN_THROTTLED: 'Demasiados intentos fallidos: espere un momento y vuelva a intentar.',
  TOO_MANY_REQUESTS: 'Demasiadas consultas seguidas: espere un momento y vuelva a intentar.',
  SERVICE_UNAVAILABLE: 'El servicio no está disponible en este momento: vuelva a intentar en unos segundos.',
  NOT_FOUND: 'No existe.',
  METHOD_NOT_ALLOWED: 'El servicio no admite esta operación aquí.',
  INTERNAL: 'El servicio tuvo un error inesperado.',

  RECORD_NOT_FOUND: 'El registro no existe.',
  FRACTION_NOT_FOUND: 'La fracción no existe.',
  FRACTION_NOT_FOUND_NAMED: 'La fracción {fraccion} no existe.',
  CHAPTER_NOT_FOUND: 'El capítulo no existe.',
  HEADING_NOT_FOUND: 'La partida no existe.',
  NO_DATASET_ON: 'No hay datos vigentes el {fecha}.',
  NO_VERSION: 'No existe la versión {version} de los datos.',
  NO_EXCHANGE_RATE: 'No hay tipo de cambio aplicable en esa fecha.',
  NO_DOWNLOAD_FILE: 'Esa versión no tiene el archivo {archivo}.',

  NICO_MISMATCH: 'El NICO no coincide con el de la fracción ({nico}).',
  CAMBIOS_HASTA_BEFORE_DESDE: 'La fecha final no puede ser anterior a la inicial.',
  CAMBIOS_DESDE_AFTER_TODAY: 'La fecha inicial no puede ser posterior a hoy ({hasta}).',
  ORIGEN_UNKNOWN_COUNTRY: 'El país no es una clave de 3 letras del Anexo 22, apéndice 4.',
  ORIGEN_NICO_MISMATCH: 'El NICO no coincide con el de la fracción.',
  ORIGEN_NO_RULE_AT_ENTRY: 'Ninguna regla del acuerdo empieza en esa entrada.',

  LOTE_NOT_UTF8: 'el archivo no está en UTF-8 (guárdelo como «CSV UTF-8»)',
  LOTE_UNREADABLE: 'el archivo no se puede leer como {format}',
  LOTE_CSV_QUOTE_OPEN: 'el archivo no se puede leer como CSV: un valor entre comillas nunca se cierra',
  LOTE_XLSX_EMPTY: 'el archivo no se puede leer como XLSX (está vacío)',
  LOTE_XLSX_SHARED_STRING: 'el archivo no se puede leer como XLSX: una celda nombra un texto que el archivo no tiene',
  LOTE_XLSX_ROW_NUMBER: 'el archivo no se puede leer como XLSX: una fila no tiene un número de fila válido',
  LOTE_XLSX_ROW_ORDER: 'un número de fila se repite o va hacia atrás',
  LOTE_NO_HEADER: 'el archivo no tiene fila de encabezados',
  LOTE_XLSX_NO_HEADER: 'el archivo no tiene fila de encabezados (su primera hoja está vacía)',
  LOTE_XLSX_FIRST_ROW_EMPTY: 'el archivo no tiene fila de encabezados: su primera fila está vacía',
  LOTE_HEADER_EMPTY: 'la fila de encabezados está vacía',
  LOTE_HEADER_TOO_LONG: 'la fila de encabezados tiene demasiado texto (hasta {max} caracteres)',
  LOTE_HEADER_NO_KEY: 'la fila de encabezados no tiene una columna «descripcion» ni una columna «fraccion» (hace falta al menos una)',
  LOTE_NO_LINES: 'el archivo no tiene líneas debajo de la fila de encabezados',
  LOTE_PAST_HEADER: 'una línea tiene un valor en la columna {column}, fuera de las {columns} columnas con encabezado',
  LOTE_TOO_MANY_COLUMNS: 'el archivo tiene más de {max} columnas',
  LOTE_VALUE_TOO_LONG: 'un valor tiene demasiado texto (hasta {max} caracteres)',
  LOTE_ROW_TOO_LONG: 'una línea tiene demasiado texto (hasta {max} caracteres por línea)',
  LOTE_LINE_TOO_LONG: 'una línea tiene demasiado texto (hasta {max} caracteres por línea)',
  LOTE_NDJSON_NOT_JSON: 'una línea no es JSON',
  LOTE_NDJSON_NOT_OBJECT: 'una línea no es un objeto JSON',
  LOTE_NDJSON_TOO_DEEP: 'una línea anida más de {max} niveles',
  LOTE_NDJSON_TOO_MANY_FIELDS: 'una línea tiene más de {max} campos',
  LOTE_NDJSON_TOO_MANY_NAMES: 'las líneas usan más de {max} nombres de campo',
  LOTE_NDJSON_LINE_TOO_LONG: 'una línea tiene demasiado texto (hasta {max} caracteres)',
  LOTE_NDJSON_NO_LINES: 'el archivo no tiene líneas',
  LOTE_NDJSON_NO_KEY: 'ninguna línea tiene un campo «descripcion» ni un campo «fraccion»',
  LOTE_TOO_MANY_BYTES: 'El archivo es demasiado grande: un lote admite hasta {mib} MiB.',
  LOTE_TOO_MANY_LINES: 'El archivo es demasiado grande: un lote admite hasta {max} líneas.',
  LOTE_TOO_MANY_ROWS: 'El archivo es demasiado grande: admite hasta {max} filas, contando las vacías.',
  LOTE_TOO_MUCH_TEXT: 'El archivo es demasiado grande: sus líneas tienen demasiado texto.',
  LOTE_XLSX_ELEMENT_TOO_LONG: 'El archivo XLSX es demasiado grande: una de sus partes es demasiado larga.',
  LOTE_XLSX_TOO_MANY_PARTS: 'El archivo XLSX tiene demasiadas partes.',
  LOTE_XLSX_PART_TOO_LARGE: 'El archivo XLSX se descomprime en mucho más de lo que un lote admite.',
  LOTE_XLSX_PART_RATIO: 'El archivo XLSX se descomprime en mucho más de lo que un lote admite.',
  LOTE_XLSX_EXPANDS_TOO_MUCH: 'El archivo XLSX se descomprime en mucho más de lo que un lote admite.',
  LOTE_UNSUPPORTED_TYPE: 'Solo se aceptan archivos CSV o XLSX.',
  LOTE_TOO_MANY_BATCHES: 'Ya tiene en cola o en proceso el máximo de lotes a la vez. Espere a que termine alguno, o cancele uno, y envíe de nuevo.',
  LOTE_NOT_FOUND: 'No tiene un lote con ese identificador.',
  LOTE_CLIENT_LEFT: 'El envío se interrumpió antes de guardar el lote.',
  LOTE_FILE_CUT: 'El archivo no llegó completo.',

  VIGILANCIA_LIMIT: 'Ya tiene el máximo de vigilancias que el servicio permite por usuario ({limit}). Borre una para crear otra.',
  WEBHOOK_NOT_URL: 'No es una dirección válida: escríbala completa, por ejemplo https://erp.ejemplo.com/avisos.',
  WEBHOOK_SCHEME: 'La dirección debe empezar con https://.',
  WEBHOOK_PLAIN_HTTP: 'La dirección debe empezar con https:// (http:// solo a los servidores que el operador del servicio permite).',
  WEBHOOK_PORT: 'El puerto {port} no está permitido: use https:// sin puerto (el 443), o uno que el operador del servicio permita.',
  WEBHOOK_LOCAL_HOST: '{host} no es una dirección pública: el servicio no envía avisos a direcciones internas, privadas o locales.',
  WEBHOOK_PRIVATE_ADDRESS: '{host} no es una dirección pública: el servicio no envía avisos a direcciones internas, privadas o locales.',
  WEBHOOK_PRIVATE_NAME: '{host} no es una dirección pública: el servicio no envía avisos a direcciones internas, privadas o locales.',
  VIGILANCIA_NOT_FOUND: 'No tiene una vigilancia con ese identificador.',
  ENTREGA_NOT_FOUND: 'El aviso no existe.',
  ENTREGA_PENDING: 'El aviso todavía está pendiente.',
};

/** The Spanish text of a refusal's `ctx` (`{code, …values}`), or undefined when it carries no code this page knows. */
export function enEspanol(ctx: unknown): string | undefined {
  if (ctx === null || typeof ctx !== 'object') return undefined;
  const values = ctx as Record<string, unknown>;
  const code = values['code'];
  if (typeof code !== 'string' || !Object.hasOwn(CODIGOS, code)) return undefined;
  return CODIGOS[code as ErrorCode].replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : whole;
  });
}
