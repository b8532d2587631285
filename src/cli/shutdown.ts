/**
 * Stopping without dropping a request. On close the server stops accepting connections at once, and
 * Fastify answers every request still arriving on an open connection, with `Connection: close`, so
 * each connection ends after the answer it is giving. Connections that never brought a request are
 * closed at once (src/http/protection.ts closeSilentConnections); those that did and stay silent are
 * closed after a short grace; whatever is still open at the deadline is closed then.
 */
import { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * How long an idle keep-alive connection may still bring a request before it is closed. Closing it
 * at once (what http.Server#close does) races a request the client is sending at that moment: the
 * client would see its request reset.
 */
const IDLE_GRACE_MS = 1000;

/** Makes `app.close()` drain the connections first, within `deadlineMs`. */
export function drainOnClose(app: FastifyInstance, deadlineMs: number): void {
  app.addHook('preClose', async () => {
    const server = app.server;
    if (!server.listening) return;
    const drained = new Promise<void>((resolve) => server.once('close', () => resolve()));
    // net.Server#close only stops accepting; the HTTP server's own would also close idle connections now.
    Server.prototype.close.call(server);
    const idle = setTimeout(() => server.closeIdleConnections(), Math.min(IDLE_GRACE_MS, deadlineMs));
    let forced = false;
    const deadline = setTimeout(() => {
      forced = true;
      server.closeAllConnections();
    }, deadlineMs);
    await drained;
    clearTimeout(idle);
    clearTimeout(deadline);
    if (forced) app.log.warn({ deadline_ms: deadlineMs }, 'connections still open at the shutdown deadline were closed');
  });
}
