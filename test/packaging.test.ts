// The package as users get it: `npm pack`, installed into a fresh project (its install
// script builds the addon there), then imported by name in a separate Node process.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { fixture } from './support/harness.js';
import { installPackedWeft } from './support/vitest-project.js';

describe('the packed package', () => {
  it("installs from its tarball and imports as 'weft', 'weft/vitest' and 'weft/matchers'", () => {
    const project = installPackedWeft();

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
