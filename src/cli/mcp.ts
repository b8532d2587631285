/**
 * `tariff-lookup mcp`: the MCP tools over standard input/output (../shared/spec/mcp.md), for an
 * assistant that starts the command itself. The service's app is built in-process over the database
 * DATABASE_URL names and never listens; the tools ask it exactly as the HTTP transport does
 * (src/http/mcp.ts), as an identity of the process's own, admitted by tokens signed with a secret made
 * for this process alone: whoever can run the command already has the database, so no token is asked.
 * Standard output carries MCP messages only; log lines go to standard error.
 */
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildApp } from '../app.js';
import { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { prepareStartup } from '../data/startup.js';
import { McpTools, askApp, mcpSdk, mcpServer } from '../http/mcp.js';
import type { User } from '../store/store.js';

export const mcpHelp = `Usage: tariff-lookup mcp

Serves the MCP tools (buscar_fraccion, ficha_fraccion, calcular_contribuciones, cambios_tarifa,
versiones_tarifa, explorar_tarifa) and the resource tarifa://fraccion/{fraccion} over standard input
and output, for an assistant that starts this command (see the README). It reads the database
DATABASE_URL names (the embedded demo when empty) and needs no token. Log lines go to standard error
(LOG_LEVEL). It stops when standard input closes, or on SIGTERM or SIGINT.`;

/** The identity the tools ask the app as; it is in no store, and only this process signs its tokens. */
const IDENTITY: User = {
  username: 'tariff-lookup mcp',
  account: 'cta_mcp_stdio',
  createdAt: '',
  fullName: 'MCP over standard input/output',
  email: null,
  disabled: false,
  passwordHash: '',
};

/** A token is made anew this long before the one in use expires. */
const RENEW_BEFORE_MS = 60_000;

export async function mcpCommand(initial: Config): Promise<void> {
  const { config, notes } = await prepareStartup(initial);
  // Nothing outside this process may sign a token the app takes, whatever JWT_SECRET the environment has.
  const secret = randomBytes(32).toString('hex');
  // One assistant and no load balancer to send it elsewhere: refusing its calls when the machine is busy helps nobody.
  const served: Config = { ...config, JWT_SECRET: secret, MAX_EVENT_LOOP_DELAY_MS: 0 };
  // An assistant's process answers its tools; batches are worked by the service, not by it.
  const app = await buildApp(served, { log: { stream: process.stderr }, internalUser: IDENTITY, lotesWorker: false });
  for (const note of notes) app.log.warn(note);
  await app.ready();
  const tokens = new TokenService({ secret, algorithm: config.JWT_ALGORITHM, lifetimeSeconds: config.ACCESS_TOKEN_EXPIRE_MINUTES * 60 });
  let held: { header: string; renewAt: number } | null = null;
  const identity = async (): Promise<Record<string, string>> => {
    if (held === null || Date.now() >= held.renewAt) {
      const issued = await tokens.issue(IDENTITY.username);
      held = { header: `Bearer ${issued.access_token}`, renewAt: Date.now() + Math.max(0, issued.expires_in * 1000 - RENEW_BEFORE_MS) };
    }
    return { authorization: held.header };
  };
  const server = mcpServer(await mcpSdk(), new McpTools(app), askApp(app, identity));
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server
      .close()
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'stopping failed');
          process.exit(1);
        },
      );
  };
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await server.connect(new StdioServerTransport());
  app.log.info({ tools: 6 }, 'MCP over standard input/output: ready');
}
