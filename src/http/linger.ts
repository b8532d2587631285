/**
 * The rest of a refused body, read and dropped so that the client can read the refusal. A client still
 * sending when the service closes its socket is answered with a reset, and a reset throws away the
 * answer it had not read yet (an `EPIPE` or `ECONNRESET` instead of the 413). So a 413 keeps the
 * connection open and reads on, bounded: past LINGER_BYTES or LINGER_MS the connection is cut, since
 * a client that never stops sending has had the refusal in front of it all along.
 */
import type { IncomingMessage } from 'node:http';

const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 20_000;

export function drainRefused(message: IncomingMessage, bytes = LINGER_BYTES, ms = LINGER_MS): void {
  if (message.complete || message.destroyed) return;
  let dropped = 0;
  const cut = (): void => {
    clearTimeout(timer);
    message.socket?.destroy();
  };
  const timer = setTimeout(cut, ms).unref();
  message.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > bytes) cut();
  });
  message.once('close', () => clearTimeout(timer));
  message.resume();
}
