/** The command line run by a test: in this process (cliInProcess), or what a spawned command printed (outcomeOf). */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable } from 'node:stream';
import { runCli } from '../src/cli/run.js';

/** What a finished command printed and how it ended. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `tariff-lookup ...args` run in this process (runCli) with streams of its own, `input` on its standard
 * input, none of them a terminal: for the tests of what a command does, where the process itself (its
 * start, its exit status, a signal) is not the subject. Loading the service for each command in a
 * process of its own cost about a second of CPU a command.
 */
export async function cliInProcess(args: readonly string[], env: Record<string, string | undefined>, input = ''): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    stdin: Readable.from([Buffer.from(input)]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** What the command `child` printed and how it ended. */
export function outcomeOf(child: ChildProcessWithoutNullStreams): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
