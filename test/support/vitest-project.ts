// Small Vitest projects that use the weft plugin, written to a scratch folder inside
// the repository (so that they resolve vitest from its node_modules) and run as real
// Vitest processes.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { packageRoot } from '../../src/paths.js';
import { removeAfterAll } from './harness.js';
import { installPacked } from './packed-package.js';
import { Watcher } from './watcher.js';

export { Watcher };
export { npm } from './packed-package.js';

/**
 * Where the projects are written: inside the repository (so that they resolve vitest from its
 * node_modules), or inside WEFT_TEST_VITEST_PROJECT, a project with another Vitest installed
 * (npm install vitest@4 there) to run these tests against that Vitest.
 */
const vitestProject = process.env.WEFT_TEST_VITEST_PROJECT ?? packageRoot;
const repositoryVitest = join(vitestProject, 'node_modules', 'vitest', 'vitest.mjs');
export const repositoryPlugin = join(packageRoot, 'dist', 'src', 'vitest', 'plugin.js');

export interface Project {
  dir: string;
  write(file: string, content: string): void;
  run(args?: string[]): { status: number; output: string };
  watch(args?: string[]): Watcher;
}

export interface ProjectSetup {
  /** the plugin's options, as JavaScript text */
  pluginOptions?: string;
  /** more of Vitest's test options, as JavaScript object members */
  testOptions?: string;
  /** a project where the packed package is installed (see installPackedWeft): it uses 'weft/vitest' from there */
  installedIn?: string;
  /** more environment variables for Vitest (CC: the compiler weft runs) */
  env?: Record<string, string>;
}

export function createProject(files: Record<string, string>, setup: ProjectSetup = {}): Project {
  const { pluginOptions = '{ maxBound: 2 }', testOptions = 'testTimeout: 60000', installedIn, env: more = {} } = setup;
  // inside the repository (or the installed project): Vitest and weft resolve from its node_modules
  const scratch = installedIn ?? join(vitestProject, 'test', 'projects', '.tmp');
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, 'project-'));
  removeAfterAll(dir);
  const write = (file: string, content: string) => writeFileSync(join(dir, file), content);
  write('vitest.config.mjs', `import { defineConfig } from 'vitest/config';
import weft from ${JSON.stringify(installedIn ? 'weft/vitest' : repositoryPlugin)};
export default defineConfig({ plugins: [weft(${pluginOptions})], test: { ${testOptions} } });
`);
  for (const [file, content] of Object.entries(files)) write(file, content);
  const env = { ...process.env, NO_COLOR: '1', CI: '1', WEFT_CACHE_DIR: join(dir, '.cache'), ...more };
  const vitestBin = installedIn ? join(installedIn, 'node_modules', 'vitest', 'vitest.mjs') : repositoryVitest;
  return {
    dir,
    write,
    run(args = []) {
      const result = spawnSync(process.execPath, [vitestBin, 'run', ...args], { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
      return { status: result.status ?? -1, output: `${result.stdout}\n${result.stderr}` };
    },
    watch(args = []) {
      return new Watcher(spawn(process.execPath, [vitestBin, '--watch', ...args], { cwd: dir, env: { ...env, CI: '' } }));
    },
  };
}

/**
 * The package as users get it (packed-package.ts) in a fresh project, removed once the test
 * file is done. Resolves to that project's directory.
 */
export async function installPackedWeft(vitestVersion?: string): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), 'weft-package-'));
  removeAfterAll(project);
  await installPacked(project, vitestVersion);
  return project;
}

/** Each test's status and failure text from Vitest's JSON reporter output. */
export function testsInReport(project: Project, report = 'report.json'): Map<string, { status: string; failure: string }> {
  const json = JSON.parse(readFileSync(join(project.dir, report), 'utf8')) as {
    testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
  };
  return new Map(json.testResults.flatMap((file) => file.assertionResults.map((test) => [test.title, { status: test.status, failure: test.failureMessages.join('\n') }])));
}

/** Vitest's arguments for the default reporter on the output and the JSON one into report.json. */
export const withJsonReport = ['--reporter=default', '--reporter=json', '--outputFile.json=report.json'];
