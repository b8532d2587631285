/**
 * Errors in the shapes of the original FastAPI implementation, mapped in one place. Handlers throw
 * these (or anything else); the error handler turns them into responses and hides internals.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreUnavailableError } from '../store/store.js';
import { drainRefused } from './linger.js';

import { HttpError, RequestValidationError } from '../errors.js';
import { errorMessage } from '../error-codes.js';

export type { ValidationDetail } from '../errors.js';
export { HttpError, RequestValidationError, notFound, refusal, valueError } from '../errors.js';

export const statusText = (code: number): string => STATUS_CODES[code] ?? 'Error';

export function send(reply: FastifyReply, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): FastifyReply {
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof RequestValidationError) return send(reply, 422, { detail: error.detail });
  // A refused body is read on and dropped (bounded) so that a client still sending can read the 413.
  if (error.statusCode === 413) drainRefused(request.raw);
  if (error instanceof HttpError) return send(reply, error.statusCode, { detail: error.detail }, error.headers);
  if (error instanceof StoreUnavailableError) {
    request.log.error({ err: error }, 'store unavailable');
    return send(reply, 503, { detail: errorMessage('SERVICE_UNAVAILABLE') }, { 'retry-after': '5' });
  }
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError) {
    return send(reply, 422, {
      detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }],
    });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return send(reply, status, { detail: statusText(status) });
  request.log.error({ err: error }, 'unexpected failure');
  return send(reply, 500, { detail: errorMessage('INTERNAL') });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((_request, reply) => send(reply, 404, { detail: errorMessage('NOT_FOUND') }));
}

export function methodNotAllowed(allow: readonly string[]) {
  return (_request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    send(reply, 405, { detail: errorMessage('METHOD_NOT_ALLOWED') }, { allow: allow.join(', ') });
}
