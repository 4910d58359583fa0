// The system C compiler and binutils, found once per process.
import { execFileSync, spawnSync } from 'node:child_process';

import { BuildError } from './errors.js';

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function runTool(command: string, args: readonly string[], cwd?: string): CommandResult {
  // LC_ALL=C: plain ASCII diagnostics, the same on every machine
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new BuildError('toolchain', missing ? `'${command}' was not found: weft needs a C compiler and binutils (gcc or clang, objcopy, nm)` : `${command}: ${result.error.message}`);
  }
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

let compilerIdentity: string | undefined;

export function compilerCommand(): string {
  return process.env.CC?.trim() || 'cc';
}

/** The compiler's version line: part of the cache key. */
export function compilerVersion(): string {
  if (compilerIdentity === undefined) {
    try {
      compilerIdentity = execFileSync(compilerCommand(), ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
    } catch {
      throw new BuildError('toolchain', `the C compiler '${compilerCommand()}' cannot be run: set CC or install gcc`);
    }
  }
  return compilerIdentity;
}
