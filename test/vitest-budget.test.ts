// Budgets in real Vitest processes and the CLI: each C test's Vitest timeout comes from
// its own budget; a run stopped by its budget is shown as partial, and fails only when
// the user asks for complete runs.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { fixture, runCli, unwrapped } from './support/harness.js';
import { createProject, repositoryPlugin } from './support/vitest-project.js';

/** fixtures/locked_counter.c (its WEFT_TEST on line 16) under a `// weft:` options line: WEFT_TEST on line 17 */
const twoThreads = (options: string) => `${options}\n${readFileSync(fixture('locked_counter.c'), 'utf8')}`;

/** A reporter that prints each test's timeout and where Vitest places it (the source-mapped registration). */
const timeoutsReporter = `export default class {
  onTestRunEnd(modules) {
    for (const module of modules)
      for (const test of module.children.allTests())
        console.log(\`applied: \${test.name} timeout=\${test.task.timeout} at=\${test.location?.line}:\${test.location?.column}\`);
  }
}
`;

describe('budgets of C tests in Vitest', () => {
  it("gives each C test a timeout derived from its own budget (the README's config, no testTimeout), registered at its WEFT_TEST line", () => {
    const project = createProject(
      {
        'budget.test.c': twoThreads('// weft: timeBudgetMs=10000'), 'default.test.c': twoThreads(''), 'unlimited.test.c': twoThreads('// weft: timeBudgetMs=none'),
        'timeouts.mjs': timeoutsReporter,
      },
      { testOptions: "reporters: ['default', './timeouts.mjs'], includeTaskLocation: true" },
    );
    const run = project.run();
    expect(run.status, run.output).toBe(0);
    // 10 s of budget + 3 × the 5 s hang watchdog + 10 s: more than Vitest's default 5 s
    expect(run.output).toContain('applied: locked_counter timeout=35000 at=17:1');
    // the default budget, 30 s: every run ends
    expect(run.output).toContain('applied: locked_counter timeout=55000 at=17:1');
    // no time budget: no Vitest timeout (the bound ends the exploration)
    expect(run.output).toContain('applied: locked_counter timeout=0 at=17:1');
  });

  it('points a Vitest timeout of a C test at its WEFT_TEST line', () => {
    const slow = `#include <pthread.h>
#include <weft.h>
static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *bump(void *unused) {
  (void)unused;
  for (int i = 0; i < 3; i++) { pthread_mutex_lock(&lock); counter++; pthread_mutex_unlock(&lock); }
  return NULL;
}

WEFT_TEST(many_interleavings) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, bump, NULL);
  bump(NULL);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
}
`;
    const project = createProject({ 'slow.test.c': slow });
    // a plugin after weft's lowers the derived timeout to 50 ms (same lines: weft's source map still holds)
    project.write('vitest.config.mjs', `import { defineConfig } from 'vitest/config';
import weft from ${JSON.stringify(repositoryPlugin)};
const lowerTimeout = { name: 'lower-timeout', transform: (code, id) => id.endsWith('.test.c') ? { code: code.replace(/timeout = \\d+;/, 'timeout = 50;'), map: null } : undefined };
export default defineConfig({ plugins: [weft({ maxBound: 6 }), lowerTimeout] });
`);
    const run = project.run();
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain('Test timed out in 50ms.');
    expect(run.output).toContain('❯ slow.test.c:11:1');
    expect(run.output).toMatch(/ 11\| WEFT_TEST\(many_interleavings\) \{\n +\| \^/);
  });

  it('shows a run stopped by its budget as partial (yellow ~), passing unless requireComplete', () => {
    const project = createProject({ 'partial.test.c': twoThreads('// weft: maxExecutions=1') });
    const run = project.run();
    expect(run.status, run.output).toBe(0);
    // wrapped to 100 columns (Vitest's output is no terminal here), going on past the lines under it
    expect(run.output).toContain('~ partial.test.c > locked_counter  partial: budget exhausted (maxExecutions) after 1 executions of\n' +
      '    optimal DPOR, which explores every bound at once; no bound fully explored\n');
    const again = project.run();
    expect(unwrapped(again.output)).toContain('~ partial.test.c > locked_counter  partial: budget exhausted (maxExecutions) after 1 executions of optimal DPOR, which explores every bound at once; no bound fully explored (reused)');

    const strict = createProject({ 'partial.test.c': twoThreads('// weft: maxExecutions=1') }, { pluginOptions: '{ maxBound: 2, requireComplete: true }' });
    const failed = strict.run();
    expect(failed.status, failed.output).toBe(1);
    expect(failed.output).toContain('FAIL  partial.test.c > locked_counter');
    expect(failed.output).toContain('partial: budget exhausted (maxExecutions) after 1 executions of optimal DPOR, which explores every bound at once; no bound fully explored (requireComplete: a run stopped by its budget fails)');
    expect(failed.output).toContain('> 17 | WEFT_TEST(locked_counter) {');
  });

  it('says a partial run once per project that ran it, named as Vitest names the project', () => {
    const project = createProject({ 'partial.test.c': twoThreads('// weft: maxExecutions=1') }, {
      testOptions: "projects: [{ extends: true, test: { name: 'first' } }, { extends: true, test: { name: 'second' } }]",
    });
    const run = project.run();
    expect(run.status, run.output).toBe(0);
    const lines = run.output.split('\n').filter((line) => line.startsWith('~ '));
    expect(lines.map((line) => line.split(' > ')[0]).sort()).toEqual(['~ |first| partial.test.c', '~ |second| partial.test.c']);
  });

  it('shows a partial run in the CLI with ~ and exits 0, or 1 with --require-complete', () => {
    const partial = runCli(['check', fixture('locked_counter.c'), '--max-executions', '1']);
    expect(partial.status).toBe(0);
    expect(unwrapped(partial.stdout)).toContain('~ locked_counter  partial: budget exhausted (maxExecutions) after 1 executions of optimal DPOR, which explores every bound at once; no bound fully explored');
    const strict = runCli(['check', fixture('locked_counter.c'), '--max-executions', '1', '--require-complete']);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain('weft: locked_counter: partial (stopped by the budget), a failure with --require-complete');
    const complete = runCli(['check', fixture('locked_counter.c'), '--require-complete']);
    expect(complete.status).toBe(0);
    expect(complete.stdout).toContain('✓ locked_counter');
  });

  it('a bug the default search finds beyond maxBound passes the test, with a warning that names it and its replay string', () => {
    const lostUpdate = `// weft: maxBound=0 mode=sc\n${readFileSync(fixture('lost_update.c'), 'utf8')}`;
    const run = createProject({ 'beyond.test.c': lostUpdate }).run();
    expect(run.status, run.output).toBe(0);
    expect(unwrapped(run.output)).toMatch(/weft: lost_update: passes within maxBound 0; beyond it: assertion failed: counter == 2, needing 1 preemption \(raise maxBound to fail on it; replay: weft1:lost_update:sc:[^)]+\)/);
    const warning = run.output.slice(run.output.indexOf('weft: lost_update: passes')).split('\n');
    expect(warning[1]).toMatch(/^ {2}\S/);
    for (const line of warning.slice(0, 2)) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});
