// One options schema (src/options.ts) feeds the API's defaults and checks, the CLI's flags
// and help, the `// weft:` file comment, the plugin's option type and the table of docs/cli.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/check.js';
import { synopsis } from '../src/cli/args.js';
import { parseArgs } from '../src/cli/args.js';
import { OptionError, WeftError } from '../src/errors.js';
import { strategyChoices } from '../src/explore/strategies.js';
import { parseFileOptions } from '../src/file-options.js';
import { defaults, optionSchema, optionsTable, resolveOptions } from '../src/options.js';
import { packageRoot } from '../src/paths.js';
// @ts-expect-error: a plain JavaScript script, without types
import { generatedBlocks, replaceGenerated } from '../scripts/options-docs.mjs';
import { fixture, runCli, writeHarness } from './support/harness.js';
import { createProject } from './support/vitest-project.js';

describe('the options reference, docs/cli.md', () => {
  it('shows the CLI synopsis and the options table exactly as the schema generates them (npm run docs)', () => {
    const page = readFileSync(join(packageRoot, 'docs', 'cli.md'), 'utf8');
    const blocks = generatedBlocks({ optionsTable, synopsis }) as Record<string, string>;
    expect(page).toContain(blocks.options);
    expect(page).toContain(blocks.cli);
    expect(replaceGenerated(page, blocks)).toBe(page);
  });

  it('lists every option of the schema', () => {
    for (const name of Object.keys(optionSchema)) expect(optionsTable()).toContain(`| \`${name}\` |`);
  });
});

describe('resolving options', () => {
  it('fills in the defaults from the schema', () => {
    const resolved = resolveOptions({});
    expect(resolved).toMatchObject({ maxBound: 2, strategy: 'auto', mode: 'drf', races: 'error', maxSteps: 50_000, hangTimeoutMs: 5_000, nondetDomain: [0, 1], spuriousWakeups: false });
    expect(resolved.maxExecutions).toBeUndefined();
    expect(resolved.timeBudgetMs).toBe(30_000);
    expect(resolveOptions({ timeBudgetMs: Number.POSITIVE_INFINITY }).timeBudgetMs).toBe(Number.POSITIVE_INFINITY);
    expect(defaults.strategy).toBe('auto');
  });

  it.each([
    [{ maxBound: -1 }, 'maxBound needs a whole number from 0 to 10,000 or unbounded, got -1'],
    [{ strategy: 'magic' }, `strategy must be one of ${strategyChoices().join(', ')}; got 'magic'`],
    [{ races: 'loud' as 'warn' }, "races must be one of error, warn; got 'loud'"],
    [{ nondetDomain: [] }, 'nondetDomain needs 1 to 256 integers, got []'],
    [{ maxSteps: 1.5 }, 'maxSteps needs a whole number from 1 to 262,144, got 1.5'],
  ])('refuses %j with one message', (options, message) => {
    expect(() => resolveOptions(options)).toThrow(new OptionError(message));
  });

  it('the API refuses a bad option before building anything, as an OptionError', async () => {
    const error = await checkAllInterleavings(fixture('lost_update.c'), { maxBound: -1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OptionError);
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: 'option', exitStatus: 2 });
  });

  it('the default strategy is the auto policy, and a result names the strategy whose result it is', async () => {
    expect(defaults.strategy).toBe('auto');
    const result = await checkAllInterleavings(fixture('locked_counter.c'), { maxBound: 0 });
    // optimal finishes on a locked counter: every interleaving, not only those within bound 0
    expect(result.tests[0]).toMatchObject({ strategy: 'optimal', complete: true, guarantee: 'complete: every interleaving explored' });
  });
});

describe('command-line flags, from the schema', () => {
  const parse = (...args: string[]) => parseArgs(['check', 'f.c', ...args]).options;

  it('reads every kind of flag', () => {
    expect(parse('--max-bound', 'unbounded').maxBound).toBe(Number.POSITIVE_INFINITY);
    expect(parse('--max-bound=3', '--strategy', 'dfs', '--mode', 'sc', '--races', 'warn')).toMatchObject({ maxBound: 3, strategy: 'dfs', mode: 'sc', races: 'warn' });
    expect(parse('--test', 'a', '--test', 'b').test).toEqual(['a', 'b']);
    expect(parse('-Iinc', '-I', 'x,y', '--include', 'z').includeDirs).toEqual(['inc', 'x,y', 'z']);
    expect(parse('--nondet-domain', '-1,0,7', '--spurious-wakeups')).toMatchObject({ nondetDomain: [-1, 0, 7], spuriousWakeups: true });
    expect(parse('--max-executions', 'none').maxExecutions).toBe(Number.POSITIVE_INFINITY);
  });

  it.each([
    [['--random-seed', '3'], "unknown option '--random-seed'"],
    [['--pct-depth', '0'], "--pct-depth needs a whole number from 1 to 16, got 0"],
    [['--races', 'maybe'], "--races must be one of error, warn; got 'maybe'"],
    [['--max-bound', '1e3'], "--max-bound needs a whole number from 0 to 10,000 or unbounded, got '1e3'"],
    [['--schedule', 'weft1:x:drf:0'], '--schedule belongs to weft replay'],
  ])('refuses %j', (args, message) => {
    expect(() => parse(...args)).toThrow(message);
  });

  it('refuses an option that means nothing to weft replay', () => {
    expect(() => parseArgs(['replay', 'f.c', '--schedule', 'weft1:x:drf:0', '--max-bound', '3'])).toThrow('--max-bound does not apply to weft replay');
  });
});

describe('weft check --help and weft replay --help', () => {
  it('weft check --help lists every flag, the strategy names and the defaults', () => {
    const run = runCli(['check', '--help']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    for (const flag of ['--max-bound N|unbounded', `--strategy ${strategyChoices().join('|')}`, '--races error|warn', '--source FILE.c', '--json'])
      expect(run.stdout).toContain(flag);
    // wrapped to the terminal: a default may start one line and end the next
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('(default auto)');
    expect(help).toContain('(default 2)');
    expect(help).toContain('(default 50,000)');
    // every run ends with a verdict: the time budget's default is stated
    expect(help).toMatch(/--time-budget-ms N\|none a budget per test: .*\(default 30,000\)/);
    expect(run.stdout).toContain('--seed N');
  });

  it('weft replay --help shows --schedule and --source, and no exploration options', () => {
    const run = runCli(['replay', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('weft replay FILE.c --schedule weft1:...');
    expect(run.stdout).toContain('--source FILE.c');
    expect(run.stdout).not.toContain('--max-bound');
  });

  it('--races warn turns a data race into a warning on the command line', () => {
    const benign = writeHarness(`#include <pthread.h>
#include <weft.h>
int done; // not static: the compiler keeps stores nobody reads
static void *finish(void *unused) { (void)unused; done = 1; return NULL; }
WEFT_TEST(benign_race) {
  pthread_t t;
  pthread_create(&t, NULL, finish, NULL);
  done = 1;
  pthread_join(t, NULL);
}
`);
    expect(runCli(['check', benign]).status).toBe(1);
    const warned = runCli(['check', benign, '--races', 'warn', '--json']);
    expect(warned.status).toBe(0);
    const [test] = JSON.parse(warned.stdout).tests;
    expect(test).toMatchObject({ status: 'pass', warnings: [{ kind: 'race' }] });
  });
});

describe('the // weft: comment of a test file', () => {
  /** a test file in its own directory, with a header in a subdirectory the comment names */
  function projectWithComment(comment: string): string {
    const file = writeHarness(`${comment}
#include <pthread.h>
#include <weft.h>
#include "counter.h"
static void *bump(void *unused) { (void)unused; counter++; return NULL; }
WEFT_TEST(two_increments) {
  pthread_t t;
  pthread_create(&t, NULL, bump, NULL);
  counter++;
  pthread_join(t, NULL);
  weft_assert(counter == 2);
}
`, 'counter.test.c');
    mkdirSync(join(dirname(file), 'include'));
    writeFileSync(join(dirname(file), 'include', 'counter.h'), 'static int counter;\n');
    return file;
  }

  it('is parsed with the schema: values checked, paths resolved against the test file', () => {
    const file = '/project/tests/queue.test.c';
    expect(parseFileOptions('// weft: maxBound=3 includeDirs=../include,/abs sources=impl.c cflags="-DSIZE=4 -Iinc -isystem ../sys -include /abs/pre.h -O0" spuriousWakeups=true races=warn\n', file)).toEqual({
      maxBound: 3, includeDirs: ['/project/include', '/abs'], sources: ['/project/tests/impl.c'],
      cflags: ['-DSIZE=4', '-I/project/tests/inc', '-isystem/project/sys', '-include/abs/pre.h', '-O0'], spuriousWakeups: true, races: 'warn',
    });
  });

  it.each([
    ['// weft: frob=1', "unknown weft option 'frob'"],
    ['// weft: replay=weft1:x:drf:0', "unknown weft option 'replay'"],
    ['\n/* weft: maxBound=two */', "/t.c:2: maxBound needs a whole number from 0 to 10,000 or unbounded, got 'two'"],
    ['// weft: mode=tso', "mode must be one of drf, sc; got 'tso'"],
  ])('%j is refused with the file and line', (comment, message) => {
    let error: unknown;
    try {
      parseFileOptions(`${comment}\n`, '/t.c');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OptionError);
    expect(error).toMatchObject({ code: 'file-option' });
    expect((error as Error).message).toMatch(/^\/t\.c:\d+: /);
    expect((error as Error).message).toContain(message);
  });

  it('is read by checkAllInterleavings, with its include directory relative to the file, not the cwd', async () => {
    const file = projectWithComment('// weft: mode=sc includeDirs=include');
    expect(process.cwd()).not.toBe(dirname(file));
    const result = await checkAllInterleavings(file);
    // sc mode from the comment: the lost update is an assertion (drf would report a race first)
    expect(result.tests[0]).toMatchObject({ status: 'fail', bug: { kind: 'assertion' } });
    // options given to the call win over the comment
    const drf = await checkAllInterleavings(file, { mode: 'drf' });
    expect(drf.tests[0]).toMatchObject({ status: 'fail', bug: { kind: 'race' } });
  });

  it('is read by weft check and weft replay, run from another directory', () => {
    const file = projectWithComment('// weft: mode=sc includeDirs=include');
    const check = runCli(['check', file, '--json']);
    expect(check.status, check.stderr).toBe(1);
    const bug = JSON.parse(check.stdout).tests[0].bug;
    expect(bug).toMatchObject({ kind: 'assertion' });
    expect(bug.schedule).toMatch(/^weft1:two_increments:sc:/);
    const replay = runCli(['replay', file, '--schedule', bug.schedule, '--json']);
    expect(replay.status, replay.stderr).toBe(1);
    expect(JSON.parse(replay.stdout).tests[0].bug).toMatchObject({ kind: 'assertion', schedule: bug.schedule, steps: bug.steps });
  });

  it('is read by the Vitest plugin with paths relative to the test file (vitest --root app)', () => {
    const project = createProject({});
    mkdirSync(join(project.dir, 'app', 'tests'), { recursive: true });
    mkdirSync(join(project.dir, 'app', 'include'));
    mkdirSync(join(project.dir, 'app', 'flags'));
    project.write('app/include/value.h', '#define VALUE 3\n');
    project.write('app/flags/expected.h', '#define EXPECTED 3\n');
    project.write('app/tests/value.test.c', '// weft: includeDirs=../include cflags="-I ../flags"\n#include <weft.h>\n#include "value.h"\n#include "expected.h"\nWEFT_TEST(reads_header) { weft_assert(VALUE == EXPECTED); }\n');
    const run = project.run(['--root', 'app', '--config', join(project.dir, 'vitest.config.mjs')]);
    expect(run.output).toContain('✓ tests/value.test.c (1 test)');
    expect(run.status, run.output).toBe(0);
  });

  it('reaches the plugin with Infinity intact (maxBound=unbounded in the comment, a budget of Infinity in the config)', () => {
    const project = createProject({
      'counter.test.c': readFileSync(projectWithComment('// weft: maxBound=unbounded strategy=optimal mode=sc includeDirs=include'), 'utf8'),
    }, { pluginOptions: '{ maxExecutions: Infinity }' });
    mkdirSync(join(project.dir, 'include'));
    project.write('include/counter.h', 'static int counter;\n');
    const run = project.run();
    expect(run.output).not.toContain('got null');
    expect(run.output).toContain('assertion failed: counter == 2');
    expect(run.output).toMatch(/Tests {2}1 failed/);
  });

  it('a bad comment stops weft check with one message and exit 2', () => {
    const file = projectWithComment('// weft: maxBound=lots');
    const run = runCli(['check', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`weft: ${file}:1: maxBound needs a whole number from 0 to 10,000 or unbounded, got 'lots'\n`);
  });
});
