/**
 * The errors domain code throws for what a client asked wrongly: a value that fails its rule (422, in
 * Pydantic's shapes) or a thing that is not there (404). They carry what the client may see; the HTTP
 * edge (src/http/errors.ts) writes them in the contract's FastAPI shapes, so nothing below src/http
 * imports from it.
 */

import type { ErrorCode, ErrorParams } from './error-codes.js';
import { ERROR_CODES, errorMessage } from './error-codes.js';

/** One entry of FastAPI's HTTPValidationError, as Pydantic v2 writes it. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(readonly detail: ValidationDetail[]) {
    super('Request validation failed');
  }
}

/** An error whose `detail` string is safe to show the client; `code` names it in src/error-codes.ts. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly code?: ErrorCode,
  ) {
    super(detail);
  }
}

/** A refusal from the table of codes: its status and its message, `params` written in. */
export const refusal = (code: ErrorCode, params: ErrorParams = {}, headers: Readonly<Record<string, string>> = {}): HttpError =>
  new HttpError(ERROR_CODES[code].status, errorMessage(code, params), headers, code);

export const notFound = (detail: string): HttpError => new HttpError(404, detail);

/**
 * A 422 entry for a refusal of the table (Pydantic's `value_error`): the code and the values its
 * message names in `ctx`, with `extra` (a batch file's `linea`) beside them.
 */
export function valueError(code: ErrorCode, loc: (string | number)[], input: unknown, params: ErrorParams = {}, extra: ErrorParams = {}): ValidationDetail {
  return { type: 'value_error', loc, msg: `Value error, ${errorMessage(code, params)}`, input, ctx: { code, ...extra, ...params } };
}
