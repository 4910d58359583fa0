// The system C compiler and binutils, found once per process.
import { spawn, spawnSync } from 'node:child_process';

import { BuildError } from './errors.js';

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** A tool to run: build steps yield these, and a driver runs them (see compile.ts). */
export interface ToolCall {
  command: string;
  args: readonly string[];
}

// LC_ALL=C: plain ASCII diagnostics, the same on every machine
const toolEnvironment = () => ({ ...process.env, LC_ALL: 'C' });

function toolError(command: string, error: Error): BuildError {
  const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
  return new BuildError('toolchain', missing ? `'${command}' was not found: weft needs a C compiler and binutils (gcc or clang, objcopy, nm)` : `${command}: ${error.message}`);
}

export function runTool(command: string, args: readonly string[], cwd?: string): CommandResult {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: toolEnvironment() });
  if (result.error) throw toolError(command, result.error);
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** runTool without blocking the event loop (Vite's main thread, in the Vitest plugin). */
export function runToolAsync(command: string, args: readonly string[]): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: toolEnvironment() });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => reject(toolError(command, error)));
    child.on('close', (status) => resolve({ status: status ?? 1, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }));
  });
}

let compilerIdentity: string | undefined;

export function compilerCommand(): string {
  return process.env.CC?.trim() || 'cc';
}

/** The compiler's version line (part of the cache key), asked once per process. */
export function* compilerVersion(): Generator<ToolCall, string, CommandResult> {
  if (compilerIdentity === undefined) {
    const result = yield { command: compilerCommand(), args: ['--version'] };
    if (result.status !== 0) throw new BuildError('toolchain', `the C compiler '${compilerCommand()}' cannot be run: set CC or install gcc`);
    compilerIdentity = result.stdout.split('\n')[0] ?? '';
  }
  return compilerIdentity;
}
