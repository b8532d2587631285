#!/usr/bin/env node
/** The command line: `tariff-lookup <command>`. Results on stdout, errors as one line on stderr (run.ts). */
import { processTerminal } from './io.js';
import { runCli } from './run.js';

// Only a status other than 0 is set: a command that goes on (serve, mcp) may set its own later.
void runCli(process.argv.slice(2), processTerminal()).then((status) => {
  if (status !== 0) process.exitCode = status;
});
