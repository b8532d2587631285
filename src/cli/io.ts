/** Terminal helpers of the command line: errors as one line, passwords read without echo, the folder argument. */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class CliError extends Error {
  override readonly name = 'CliError';
}

/** A standard output or error stream: `isTTY` when a person watches it (progress is shown only then). */
export interface Output {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** Where a command runs: its environment and standard streams (the process's own, or a test's). */
export interface Terminal {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  readonly stdout: Output;
  readonly stderr: Output;
}

/**
 * Writes every chunk to `to` in order. A stream (the process's own) is piped to, so that a slow reader
 * holds the writer back and a reader gone away (EPIPE) is the command's error; a test's plain object
 * takes each chunk as it comes.
 */
export async function writeAll(chunks: AsyncIterable<string>, to: Output): Promise<void> {
  if (to instanceof Writable) return pipeline(Readable.from(chunks), to);
  for await (const chunk of chunks) to.write(chunk);
}

/** The process's own. */
export const processTerminal = (): Terminal => ({ env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });

async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function promptHidden(terminal: Terminal, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { stdin, stderr } = terminal;
    stderr.write(question);
    stdin.setRawMode?.(true);
    stdin.resume();
    let value = '';
    const finish = (error?: Error): void => {
      stdin.setRawMode?.(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: Buffer): void => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new CliError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * A new password: asked twice at a terminal, or the first line of standard input when it is piped.
 * Never taken from the command line, where other users and shell history would see it.
 */
export async function readNewPassword(terminal: Terminal): Promise<string> {
  let password: string;
  if (terminal.stdin.isTTY) {
    password = await promptHidden(terminal, 'Password: ');
    const again = await promptHidden(terminal, 'Password again: ');
    if (again !== password) throw new CliError('the two passwords differ');
  } else {
    password = (await readAll(terminal.stdin)).split(/\r?\n/)[0] ?? '';
  }
  if (password === '') throw new CliError('the password is empty');
  return password;
}

/** The one folder a command works on, from its positional arguments. */
export function oneFolder(command: string, positionals: readonly string[]): string {
  const [directory, ...rest] = positionals;
  if (directory === undefined) throw new CliError(`${command}: a folder is required (see tariff-lookup ${command} --help)`);
  if (rest.length > 0) throw new CliError(`${command}: unexpected argument ${rest[0]}`);
  return directory;
}
