// C tests across CI machines with Vitest's own sharding: each shard (`vitest run
// --shard=i/n --reporter=blob`) builds and explores only its files, and `vitest
// --merge-reports` states every test's result with weft's own lines (partial runs, the
// counterexample) as one run would.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { fixture } from './support/harness.js';
import { createProject } from './support/vitest-project.js';

describe('Vitest sharding of C test files', () => {
  it('merges the shards into the result of one run: passes, partial runs and counterexamples', () => {
    const project = createProject({
      'counter.test.c': readFileSync(fixture('locked_counter.c'), 'utf8'),
      'lost.test.c': readFileSync(fixture('lost_update.c'), 'utf8'),
      'budget.test.c': `// weft: maxExecutions=20\n${readFileSync(fixture('hbcache/five_threads.c'), 'utf8')}`,
    });
    const compiled = (output: string) => output.split('\n').filter((line) => line.startsWith('weft: compiling')).length;
    // each shard builds only its own files, ahead of need as a whole run does
    const shards = ['1/2', '2/2'].map((shard) => compiled(project.run([`--shard=${shard}`, '--reporter=blob']).output));
    expect(shards[0]! + shards[1]!).toBe(3);
    expect(Math.max(...shards)).toBeLessThan(3);
    expect(readdirSync(join(project.dir, '.vitest-reports')).sort()).toEqual(['blob-1-2.json', 'blob-2-2.json']);
    const merged = project.run(['--merge-reports']);
    expect(merged.status, merged.output).toBe(1);
    expect(merged.output).toMatch(/Tests {2}1 failed \| 2 passed \(3\)/);
    expect(merged.output).toMatch(/~ budget\.test\.c > \w+ {2}partial: budget exhausted \(maxExecutions\)/);
    expect(merged.output).toContain('replay: weft1:');
  });
});
