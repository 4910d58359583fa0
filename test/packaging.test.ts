// The package as users get it: `npm pack`, installed into a fresh `"type": "commonjs"`
// project (its install script builds the addon there), then imported by name in a separate
// Node process, and its Vitest plugin run with the README's config as written.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { packageRoot } from '../src/paths.js';
import { fixture } from './support/harness.js';
import { createProject, installPackedWeft, npm, testsInReport, withJsonReport } from './support/vitest-project.js';

/** The first ```ts block of the README's "With Vitest" section: the config users copy. */
function readmeConfig(): { file: string; text: string } {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## With Vitest'));
  const block = /```ts\n(\/\/ (\S+)\n[\s\S]*?)```/.exec(section);
  if (!block) throw new Error("README's With Vitest section has no ```ts config block");
  return { file: block[2]!, text: block[1]! };
}

describe('the packed package', () => {
  // one install (node-gyp builds the addon there) serves every test of this file
  let project: string;
  beforeAll(() => {
    project = installPackedWeft();
  }, 300_000);

  it('ships every file a stack trace can point to: no source map naming a file left out', () => {
    const packed = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], packageRoot);
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
    const scratch = createProject({ 'bugs.test.c': readFileSync(fixture('vitest/every_bug_kind.test.c'), 'utf8') }, { installedIn: project });
    const config = readmeConfig();
    expect(config.file).toBe('vitest.config.mts');
    rmSync(join(scratch.dir, 'vitest.config.mjs'));
    writeFileSync(join(scratch.dir, config.file), config.text);

    const first = scratch.run(withJsonReport);
    expect(first.status, first.output).toBe(1);
    expect(first.output).not.toMatch(/warn|deprecated/i);
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
  });
});
