// The system C compiler and binutils, found once per process.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { hashText } from './cache.js';
import { writeWhole } from './write-whole.js';
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
  return new BuildError('toolchain', missing ? `'${command}' was not found: weft needs gcc and binutils (objcopy, objdump, readelf, addr2line)` : `${command}: ${error.message}`);
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

/** Version lines of the compilers asked so far, per command: a test (or a user) may change CC within one process. */
const compilerVersions = new Map<string, string>();

export function compilerCommand(): string {
  return process.env.CC?.trim() || 'cc';
}

/**
 * Why weft does not build with the compiler whose `--version` printed this; undefined for gcc,
 * which says it is the Free Software Foundation's whatever it is installed as (cc, gcc-12).
 * clang names itself on its first line ("Debian clang version 14.0.6").
 */
function unsupportedCompilerReason(versionOutput: string): string | undefined {
  if (/Free Software Foundation/.test(versionOutput)) return undefined;
  if (/\bclang version\b/.test(versionOutput))
    return 'clang removes accesses weft must see: at -O1 it deletes every store to a static variable that nothing reads ' +
      '(atomic ones too), and from -O2 on it keeps a static variable in a register across noinline lock helpers; gcc has ' +
      'flags against both, clang none, and races and lost updates would pass unseen';
  return 'weft knows the flags that keep every access visible for gcc only';
}

/**
 * The compiler's version line (part of the cache key), asked once per process; with a
 * cache directory, remembered there per installed compiler file (its path, size and
 * modification time), so that a warm run starts no compiler at all. Only gcc is remembered:
 * any other compiler is refused.
 */
export function* compilerVersion(cache?: string): Generator<ToolCall, string, CommandResult> {
  const command = compilerCommand();
  const known = compilerVersions.get(command);
  if (known !== undefined) return known;
  const installed = installedFile(command);
  // salted: a memo written before weft checked the compiler may name clang
  const memo = cache && installed ? join(cache, 'compilers', hashText(CHECKED_COMPILER_MEMO, installed).slice(0, 32)) : undefined;
  if (memo) {
    try {
      const remembered = readFileSync(memo, 'utf8');
      compilerVersions.set(command, remembered);
      return remembered;
    } catch {}
  }
  const result = yield { command, args: ['--version'] };
  if (result.status !== 0) throw new BuildError('toolchain', `the C compiler '${command}' cannot be run: set CC or install gcc`);
  const version = result.stdout.split('\n')[0] ?? '';
  const unsupported = unsupportedCompilerReason(result.stdout);
  if (unsupported) throw new BuildError('toolchain', `the C compiler '${command}' (${version.trim() || 'no version line'}) is not supported: ${unsupported}. weft builds harnesses with gcc: set CC=gcc`);
  compilerVersions.set(command, version);
  if (memo) {
    try {
      writeWhole(memo, version);
    } catch {} // only a shortcut: the next run asks the compiler again
  }
  return version;
}

const CHECKED_COMPILER_MEMO = 'gcc-checked';

/** The file `command` runs (searched on PATH), as "path:size:mtime"; undefined when not found. */
function installedFile(command: string): string | undefined {
  const candidates = command.includes('/') ? [command] : (process.env.PATH ?? '').split(':').filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      const file = realpathSync(candidate);
      const stat = statSync(file);
      if (stat.isFile()) return `${file}:${stat.size}:${stat.mtimeMs}`;
    } catch {}
  }
  return undefined;
}
