// Helpers for weft's own tests: fixture paths, the CLI, and a temporary C file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll } from 'vitest';

import { cliPath, packageRoot } from '../../src/paths.js';

export const fixture = (name: string): string => join(packageRoot, 'fixtures', name);

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (dist/) as a user would. */
export function runCli(args: string[], cwd = packageRoot, env: Record<string, string> = {}): CliRun {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env }, timeout: CLI_TIMEOUT_MS, killSignal: 'SIGKILL',
  });
  // a blocked spawnSync is past vitest's own timeouts: a child that never ends fails its test instead
  if (result.error) throw new Error(`weft ${args.join(' ')}: ${result.error.message} (Node can hang at exit: nodejs/node#54918)`);
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** far longer than any CLI run of the tests takes */
const CLI_TIMEOUT_MS = 300_000;

/**
 * Output with every indented line joined to the line before it: a line wrapped to the width
 * reads whole again (the lines under it are joined too), for matching what it says.
 */
export const unwrapped = (output: string): string => output.replace(/\n +/g, ' ');

const scratchDirs: string[] = [];

// registered on the root suite of every test file that imports this module
afterAll(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Removes the directory once the test file is done. */
export function removeAfterAll(dir: string): void {
  scratchDirs.push(dir);
}

/** Writes a C test file into a fresh temporary directory and returns its path. */
export function writeHarness(source: string, name = 'harness.c'): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-test-'));
  removeAfterAll(dir);
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}
