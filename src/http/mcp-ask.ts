/**
 * How an MCP tool asks the service: one REST call of the service's own app (`app.inject`) with the
 * caller's identity, within a budget of answer bytes per MCP request (src/http/mcp.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { RestCall } from './mcp-tools.js';
import { INTERNAL_REQUEST } from './rate-limit.js';

/**
 * The REST answers the tool calls and resource reads of one POST /mcp may bring back, in bytes: a
 * call that would pass it is answered as a tool error (`isError`) asking for less, so that one request
 * never builds an answer of tens of megabytes (each answer is in it twice: text and structured).
 */
export const MCP_MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A REST response: its status, its body as sent, and that body read as JSON. */
export interface RestResponse {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

/** Asks the service's REST API one call, as the tools' caller. */
export type Asker = (call: RestCall) => Promise<RestResponse>;

/**
 * Asks `app` itself with the headers `identity` gives: the MCP caller's own `Authorization` and its
 * request id over HTTP (the REST calls a tool makes are logged under the /mcp request's id); a token
 * of the command's own identity over stdio.
 */
export function askApp(app: FastifyInstance, identity: () => Record<string, string> | Promise<Record<string, string>>): Asker {
  return async (call) => {
    const headers: Record<string, string> = { ...(await identity()), ...INTERNAL_REQUEST };
    if (call.payload !== undefined) headers['content-type'] = 'application/json';
    const response = await app.inject({
      method: call.method,
      url: call.url,
      headers,
      ...(call.payload === undefined ? {} : { payload: JSON.stringify(call.payload) }),
    });
    const text = response.body;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = { detail: text };
    }
    return { status: response.statusCode, text, json };
  };
}

/**
 * `ask` within a budget of answer bytes shared by every call of one MCP request (MCP_MAX_ANSWER_BYTES):
 * an answer that would pass it is replaced by a 413 whose detail says so, which a tool gives as its error.
 */
export function budgeted(ask: Asker, bytes = MCP_MAX_ANSWER_BYTES): Asker {
  let used = 0;
  return async (call) => {
    const answer = await ask(call);
    const size = Buffer.byteLength(answer.text);
    if (used + size <= bytes) {
      used += size;
      return answer;
    }
    const detail =
      `La respuesta ocupa ${size} bytes y esta petición de MCP ya llevaba ${used}: el límite es ${bytes} bytes por petición ` +
      '(pida menos resultados con limit o skip, o haga la llamada en otra petición).';
    return { status: 413, text: JSON.stringify({ detail }), json: { detail } };
  };
}
