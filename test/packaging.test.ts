// The package as users get it: `npm pack`, installed into a fresh `"type": "commonjs"`
// project (its install script builds the addon there), then imported by name in a separate
// Node process, and its Vitest plugin run with the README's config as written.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { packageRoot } from '../src/paths.js';
import { fixture, unwrapped } from './support/harness.js';
import { createProject, installPackedWeft, npm, testsInReport, withJsonReport } from './support/vitest-project.js';

/** The Vitest 4 release the packed package is tested with (the repository's own Vitest is 3). */
const VITEST_4 = '4.1.12';

/** The first ```ts block of the README's "Quick start" section: the config users copy. */
function readmeConfig(): { file: string; text: string } {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```ts\n(\/\/ (\S+)\n[\s\S]*?)```/.exec(section);
  if (!block) throw new Error("README's Quick start section has no ```ts config block");
  return { file: block[2]!, text: block[1]! };
}

describe('the packed package', () => {
  // one install (node-gyp builds the addon there) serves every test of this file
  let project: string;
  beforeAll(async () => {
    project = await installPackedWeft();
  }, 300_000);

  it('ships every file a stack trace can point to: no source map naming a file left out', async () => {
    const packed = await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], packageRoot);
    expect(packed.status, packed.output).toBe(0);
    const files = new Set((JSON.parse(packed.output.slice(packed.output.indexOf('['))) as [{ files: { path: string }[] }])[0].files.map((file) => file.path));
    expect(files.has('dist/src/check.js')).toBe(true);
    const missing: string[] = [];
    for (const file of files) {
      if (!file.endsWith('.js')) continue;
      const map = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(packageRoot, file), 'utf8'))?.[1];
      if (map === undefined) continue;
      const mapFile = normalize(join(dirname(file), map));
      if (!files.has(mapFile)) {
        missing.push(`${file} -> ${mapFile}`);
        continue;
      }
      const { sources } = JSON.parse(readFileSync(join(packageRoot, mapFile), 'utf8')) as { sources: string[] };
      for (const source of sources) if (!files.has(normalize(join(dirname(mapFile), source)))) missing.push(`${mapFile} -> ${source}`);
    }
    expect(missing).toEqual([]);
  });

  it("installs from its tarball and imports as 'weft', 'weft/vitest' and 'weft/matchers'", () => {
    // plain Node: the API and the plugin
    writeFileSync(join(project, 'use.mjs'), `
import { checkAllInterleavings } from 'weft';
import weft from 'weft/vitest';
const result = await checkAllInterleavings(${JSON.stringify(fixture('lost_update.c'))});
console.log(JSON.stringify({ plugin: typeof weft, status: result.tests[0].status, kind: result.tests[0].bug?.kind }));
`);
    const env = { ...process.env, NO_COLOR: '1', WEFT_CACHE_DIR: join(project, '.cache') };
    const used = spawnSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8', env });
    expect(used.status, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout)).toEqual({ plugin: 'function', status: 'fail', kind: 'race' });

    // in a Vitest run: the matchers too
    writeFileSync(join(project, 'use.test.mjs'), `
import { expect, it } from 'vitest';
import { checkAllInterleavings } from 'weft';
import 'weft/matchers';
it('checks a C file through the installed package', async () => {
  expect(await checkAllInterleavings(${JSON.stringify(fixture('locked_counter.c'))})).toPassAllInterleavings();
  expect(await checkAllInterleavings(${JSON.stringify(fixture('lost_update.c'))})).not.toPassAllInterleavings();
});
`);
    const vitest = spawnSync(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], { cwd: project, encoding: 'utf8', env: { ...env, CI: '1' } });
    expect(vitest.status, `${vitest.stdout}\n${vitest.stderr}`).toBe(0);
    expect(vitest.stdout).toMatch(/Tests {2}1 passed/);
  });

  it("runs the Vitest plugin with the README's config without warnings and reports every kind of bug again as it did first", () => {
    reportsEveryBugKindTwice(project);
  });
});

/**
 * Vitest 4, which most users run: the same checks, and the watch loop (a breaking save, its
 * counterexample replayed on the next save, the fix re-verified).
 */
describe('the packed package with Vitest 4', () => {
  let project: string;
  beforeAll(async () => {
    project = await installPackedWeft(VITEST_4);
  }, 300_000);

  it("runs the Vitest plugin with the README's config without warnings and reports every kind of bug again as it did first", () => {
    expect(JSON.parse(readFileSync(join(project, 'node_modules', 'vitest', 'package.json'), 'utf8')).version).toBe(VITEST_4);
    reportsEveryBugKindTwice(project);
  });

  it('re-verifies in watch mode: a save that breaks a test, a save that keeps it broken, the fix (the old schedule no longer fits the locked code)', async () => {
    const counter = (broken: boolean, note = '') => `#include <pthread.h>
#include <weft.h>
static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *add(void *unused) {
  ${broken ? 'int seen = counter; counter = seen + 1;' : 'pthread_mutex_lock(&lock); counter++; pthread_mutex_unlock(&lock);'}
  return unused;
}
WEFT_TEST(two_increments) {
  pthread_t a, b;
  pthread_create(&a, 0, add, 0);
  pthread_create(&b, 0, add, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  weft_assert(counter == 2);${note}
}
`;
    const scratch = createProject({ 'counter.test.c': counter(false) }, { installedIn: project });
    const watcher = scratch.watch();
    try {
      expect(await watcher.waitFor(/Tests {2}1 passed/)).toMatch(/Test Files {2}1 passed/);
      let mark = watcher.output.length;
      scratch.write('counter.test.c', counter(true));
      await watcher.waitFor(/Tests {2}1 failed/, mark);
      mark = watcher.output.length;
      scratch.write('counter.test.c', counter(true, ' /* still racy */'));
      expect(await watcher.waitFor(/Tests {2}1 failed/, mark)).toContain('still fails (replayed the last counterexample)');
      mark = watcher.output.length;
      scratch.write('counter.test.c', counter(false));
      const fixed = await watcher.waitFor(/Tests {2}1 passed/, mark);
      expect(unwrapped(fixed)).toContain('two_increments: the last counterexample no longer replays on the changed code — re-verifying all interleavings');
      expect(fixed).toMatch(/Test Files {2}1 passed/);
    } finally {
      watcher.stop();
    }
  });
});

/** The README's config in a project of the installed package: every kind of bug, then each replayed on the next run. */
function reportsEveryBugKindTwice(project: string): void {
  const scratch = createProject({ 'bugs.test.c': readFileSync(fixture('vitest/every_bug_kind.test.c'), 'utf8') }, { installedIn: project });
  const config = readmeConfig();
  expect(config.file).toBe('vitest.config.mts');
  rmSync(join(scratch.dir, 'vitest.config.mjs'));
  writeFileSync(join(scratch.dir, config.file), config.text);

  const first = scratch.run(withJsonReport);
  expect(first.status, first.output).toBe(1);
  expect(first.output).not.toMatch(/warn|deprecated/i);
  // the tests fail, each with its bug; the file itself (its module, its hooks) does not
  expect(first.output).not.toContain('Failed Suites');
  const before = testsInReport(scratch);
  const second = scratch.run(withJsonReport);
  const after = testsInReport(scratch);
  expect(second.output).not.toMatch(/warn|deprecated/i);
  expect(before.size).toBeGreaterThanOrEqual(8);
  for (const name of before.keys()) {
    expect(before.get(name)!.status).toBe('failed');
    expect(after.get(name)!.failure).toBe(before.get(name)!.failure.replace('InterleavingError: ', 'InterleavingError: still fails (replayed the last counterexample)\n'));
  }
  expect(before.get('race_with_consequence')!.failure).toContain('what the race breaks');
}
