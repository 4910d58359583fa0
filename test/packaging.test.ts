// The package as users get it: `npm pack`, installed into a fresh project (its install
// script builds the addon there), then imported by name in a separate Node process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';

import { describe, expect, it } from 'vitest';

import { packageRoot } from '../src/paths.js';
import { fixture, removeAfterAll } from './support/harness.js';

const npm = (args: string[], cwd: string) => {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' }, timeout: 240_000 });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
};

describe('the packed package', () => {
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
    const project = mkdtempSync(join(tmpdir(), 'weft-package-'));
    removeAfterAll(project);
    const packed = npm(['pack', '--pack-destination', project], packageRoot);
    expect(packed.status, packed.output).toBe(0);
    const version = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version as string;
    const vitestVersion = JSON.parse(readFileSync(join(packageRoot, 'node_modules', 'vitest', 'package.json'), 'utf8')).version as string;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
    const installed = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', `./weft-${version}.tgz`, `vitest@${vitestVersion}`], project);
    expect(installed.status, installed.output).toBe(0);

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
});
