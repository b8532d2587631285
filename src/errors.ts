/**
 * The errors domain code throws for what a client asked wrongly: a value that fails its rule (422, in
 * Pydantic's shapes) or a thing that is not there (404). They carry what the client may see; the HTTP
 * edge (src/http/errors.ts) writes them in the contract's FastAPI shapes, so nothing below src/http
 * imports from it.
 */

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

/** An error whose `detail` string is safe to show the client. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

export const notFound = (detail: string): HttpError => new HttpError(404, detail);
