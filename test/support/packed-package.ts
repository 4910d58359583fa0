// The package as users get it: `npm pack`, then installed (its install script builds the
// addon there) with a Vitest version into a project of its own, `"type": "commonjs"` as
// npm 11's `npm init -y` writes it. Used by the packaging tests and by the Vitest bench,
// which measures what a user's project runs: weft imported from node_modules (a plugin
// imported by path is bundled into Vite's config, and parsed, on every run).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { packageRoot } from '../../src/paths.js';

/** How a command ended: its exit status (null: killed, by its timeout or a signal) and what it printed. */
export interface CommandResult {
  status: number | null;
  output: string;
}

/**
 * Runs `file` with `args` in `cwd`, asynchronously: an install builds the addon and can take
 * over a minute, and a Vitest worker blocked that long misses the answers to Vitest's own calls
 * (it then fails the run with "Timeout calling onTaskUpdate").
 */
export const runCommand = (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeout: number): Promise<CommandResult> => new Promise((resolve) => {
  execFile(file, args, { cwd, encoding: 'utf8', env, timeout, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
    const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
    resolve({ status, output: `${stdout}\n${stderr}${error !== null && status === null ? `\n${error.message}` : ''}` });
  });
});

/** npm as a user runs it, quiet but for errors. */
export const npm = (args: string[], cwd: string): Promise<CommandResult> => runCommand('npm', args, cwd, { ...process.env, npm_config_loglevel: 'error' }, 240_000);

/** The repository's own Vitest version. */
export const repositoryVitestVersion = () => JSON.parse(readFileSync(join(packageRoot, 'node_modules', 'vitest', 'package.json'), 'utf8')).version as string;

/** The first tarball this process packed, while it is there: later packs copy it (the package does not change meanwhile). */
let firstPacked: string | undefined;

/** Packs the package into `destination`: the tarball's file name there. */
export async function packWeft(destination: string): Promise<string> {
  const version = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version as string;
  const tarball = `weft-${version}.tgz`;
  if (firstPacked !== undefined && existsSync(firstPacked)) {
    copyFileSync(firstPacked, join(destination, tarball));
    return tarball;
  }
  // the built dist/ as every other test uses it: pack's `prepare` would rebuild it in place
  // while tests in the other Vitest workers load it
  const packed = await npm(['pack', '--ignore-scripts', '--pack-destination', destination], packageRoot);
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  firstPacked = join(destination, tarball);
  return tarball;
}

/** Packs the package and installs it, with `vitest@vitestVersion` (the repository's by default), into the empty directory `project`. */
export async function installPacked(project: string, vitestVersion = repositoryVitestVersion()): Promise<void> {
  const tarball = await packWeft(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'commonjs' }));
  const installed = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`, `vitest@${vitestVersion}`], project);
  if (installed.status !== 0) throw new Error(`npm install of the packed weft failed:\n${installed.output}`);
}
