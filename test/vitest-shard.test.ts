// C tests across CI machines with Vitest's own sharding: each shard (`vitest run
// --shard=i/n --reporter=blob`) builds and explores only its files, and `vitest
// --merge-reports` states every test's result with weft's own lines (partial runs, the
// counterexample) as one run would. With the plugin option shardExplorations, every shard
// explores its part of every C test instead, and the merge joins the parts as weft merge does.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { fixture, unwrapped } from './support/harness.js';
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
    expect(unwrapped(merged.output)).toMatch(/~ budget\.test\.c > \w+ {2}partial: budget exhausted \(maxExecutions\)/);
    expect(merged.output).toContain('replay: weft1:');
  });

  it('leaves the blobs of whole runs as Vitest merges them: a failure in either is kept', () => {
    const project = createProject({ 'counter.test.c': readFileSync(fixture('locked_counter.c'), 'utf8') });
    expect(project.run(['--reporter=blob', '--outputFile.blob=.vitest-reports/first.json']).status).toBe(0);
    // the same file, broken, in a second whole run (another machine of a matrix, say)
    project.write('counter.test.c', readFileSync(fixture('locked_counter.c'), 'utf8').replace('counter++;', 'counter++'));
    expect(project.run(['--reporter=blob', '--outputFile.blob=.vitest-reports/second.json']).status).toBe(1);
    const merged = project.run(['--merge-reports']);
    expect(merged.status, merged.output).toBe(1);
    expect(merged.output).toMatch(/FAIL +counter\.test\.c > build/);
  });

  it('shardExplorations: every shard explores its part of each C test, and the merge joins the parts into one result per test', () => {
    const project = createProject(
      {
        'counter.test.c': readFileSync(fixture('locked_counter.c'), 'utf8'),
        'lost.test.c': readFileSync(fixture('lost_update.c'), 'utf8'),
        'budget.test.c': `// weft: maxExecutions=20\n${readFileSync(fixture('hbcache/five_threads.c'), 'utf8')}`,
        'strict.test.c': `// weft: maxExecutions=20 requireComplete=true\n${readFileSync(fixture('hbcache/five_threads.c'), 'utf8')}`,
        'plain.test.ts': "import { expect, test } from 'vitest';\ntest('plain', () => expect(1).toBe(1));\n",
      },
      { pluginOptions: '{ maxBound: 2, shardExplorations: true }' },
    );
    const shards = ['1/2', '2/2'].map((shard) => project.run([`--shard=${shard}`, '--reporter=blob']).output);
    shards.forEach((output, at) => {
      // every shard explores every C file: its part of each test
      expect(unwrapped(output)).toContain(`~ counter.test.c > locked_counter  partial: shard ${at + 1}/2 only (vitest --merge-reports joins the shards): `);
      expect(unwrapped(output)).toContain(`~ budget.test.c > five_threads  partial: shard ${at + 1}/2 only (vitest --merge-reports joins the shards): budget exhausted`);
    });
    const merged = project.run(['--merge-reports']);
    expect(merged.status, merged.output).toBe(1);
    // each C test once, as in one run
    expect(merged.output).toMatch(/Tests {2}2 failed \| 3 passed \(5\)/);
    expect(unwrapped(merged.output)).toMatch(/weft: counter\.test\.c > locked_counter {2}complete: every interleaving explored; 2 shards merged/);
    expect(unwrapped(merged.output)).toMatch(/~ budget\.test\.c > five_threads {2}partial: budget exhausted \(maxExecutions\) during bound 0 after 40 executions; .*2 shards merged; stopped by their budgets: shard 1\/2 \(maxExecutions\), shard 2\/2 \(maxExecutions\)/);
    expect(unwrapped(merged.output)).toMatch(/weft: lost\.test\.c > lost_update {2}data race found; .*\(shard \d\/2; the 2 shards ran \d+ executions\)/);
    expect(merged.output).toContain('replay: weft1:lost_update:');
    expect(merged.output).toMatch(/strict\.test\.c > five_threads\n.*partial: budget exhausted .*2 shards merged; stopped by their budgets: .* \(requireComplete: a run stopped by its budget fails\)/);
    expect(unwrapped(merged.output)).not.toContain('only (vitest --merge-reports joins the shards)');

    // a shard's blob missing: no C test claims what only part of its search explored
    rmSync(join(project.dir, '.vitest-reports', 'blob-2-2.json'));
    const incomplete = project.run(['--merge-reports']);
    expect(incomplete.status).toBe(1);
    expect(incomplete.output).toMatch(/Tests {2}4 failed \| 1 passed \(5\)/);
    expect(incomplete.output).toContain('InterleavingError: counter.test.c: shard 2/2 missing: the guarantee needs every shard (2 Vitest shards: vitest run --shard=i/2 --reporter=blob for every i, then vitest --merge-reports)');
  });

  it('shardExplorations: a shard whose part could not be explored fails the test, and one C file splits among more shards than files', () => {
    // a file named "boom" makes the harness one weft cannot explore (more threads than its limit) in that shard only
    const project = createProject({ 'counted.test.c': readFileSync(fixture('vitest/over_thread_limit_on_boom.c'), 'utf8') }, { pluginOptions: '{ maxBound: 2, shardExplorations: true }' });
    const first = project.run(['--shard=1/2', '--reporter=blob']);
    expect(first.status, first.output).toBe(0);
    project.write('boom', '');
    expect(project.run(['--shard=2/2', '--reporter=blob']).status).toBe(1);
    const broken = project.run(['--merge-reports']);
    expect(broken.status, broken.output).toBe(1);
    expect(broken.output).toMatch(/Tests {2}1 failed \(1\)/);
    expect(broken.output).toMatch(/more than 256 threads/);
    rmSync(join(project.dir, 'boom'));
    expect(project.run(['--shard=2/2', '--reporter=blob']).status).toBe(0);
    const merged = project.run(['--merge-reports']);
    expect(merged.status, merged.output).toBe(0);
    expect(unwrapped(merged.output)).toMatch(/weft: counted\.test\.c > counted {2}all executions with ≤ 2 preemptions explored; 2 shards merged/);
    expect(merged.output).not.toContain('Failed');
  });
});

