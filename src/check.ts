// checkAllInterleavings: build a C test file, load it, and explore every test in it.
import { BuildError } from './compile/errors.js';
import { buildHarness, buildIdentity } from './compile/compile.js';
import { OptionError, WeftError } from './errors.js';
import { type Exploration, type FailingExecution, UnexplorableHarnessError, copyFailure, drive, spentBy } from './explore/driver.js';
import { createStrategy } from './explore/strategies.js';
import { SAMPLES_WITHOUT_BUDGET } from './explore/sampling.js';
import { SamplingTurns } from './explore/sampling-turns.js';
import type { BoundKind, Strategy } from './explore/strategy.js';
import { type NativeHarness, RunFlags } from './addon/addon.js';
import { withHarness } from './addon/harness-pool.js';
import { Outcome } from './addon/ops.js';
import type { Bug } from './report/bug.js';
import { type Replay, absoluteLocation, decodeReplay, relativeLocation } from './report/replay.js';
import { withFileOptions } from './file-options.js';
import { withThousands } from './numbers.js';
import { type ResolvedOptions, type SchemaOptions, resolveOptions } from './options.js';

export type Mode = ResolvedOptions['mode'];

/** Options of a check (src/options.ts says what each means), and a progress callback. */
export interface CheckOptions extends SchemaOptions {
  onProgress?: (progress: { test: string; bound: number; executions: number; elapsedMs: number }) => void;
}

export interface TestResult {
  name: string;
  status: 'pass' | 'fail' | 'error';
  executions: number;
  /** runs abandoned part-way as equivalent to an explored execution (not in executions) */
  redundantRuns: number;
  bound: number;
  /** what `bound` counts: preemptions, or delays (option bound) */
  boundType: BoundKind;
  complete: boolean;
  elapsedMs: number;
  strategy: string;
  /** what was explored, in words: never more than what was done */
  guarantee: string;
  /** stopped by its budget (maxExecutions or timeBudgetMs) before the bound was explored */
  partial?: boolean;
  /** the bug was found by sampling (random, pct, or the default's PCT turns): the guarantee says which run */
  sampled?: boolean;
  bug?: Bug;
  /** data races reported as warnings (option races: 'warn') */
  warnings?: Bug[];
  error?: string;
}

export interface CheckResult {
  file: string;
  tests: TestResult[];
  library: string;
  /** the harness library's content hash: same hash and options, same result */
  hash: string;
  cached: boolean;
}

const modeNumbers: Record<Mode, number> = { drf: 0, sc: 1 };

interface Settings {
  maxBound: number;
  bound: BoundKind;
  strategy: string;
  /** no strategy was chosen (and the bound counts preemptions): PCT samples take turns with a search that does not finish a bound (SamplingTurns) */
  samplesAlongside: boolean;
  seed: number;
  pctDepth: number;
  mode: Mode;
  maxExecutions: number;
  timeBudgetMs: number;
  maxSteps: number;
  hangTimeoutMs: number;
  flags: number;
  nondetDomain: Float64Array;
  races: ResolvedOptions['races'];
}

function settingsOf(options: ResolvedOptions, strategyChosen: boolean): Settings {
  return {
    ...options,
    // the samples' minimising search counts preemptions
    samplesAlongside: !strategyChosen && options.bound === 'preemption',
    maxExecutions: options.maxExecutions ?? Number.POSITIVE_INFINITY,
    timeBudgetMs: options.timeBudgetMs ?? Number.POSITIVE_INFINITY,
    flags: (options.spuriousWakeups ? RunFlags.SPURIOUS_WAKEUPS : 0) | (options.leaks ? RunFlags.REPORT_LEAKS : 0) |
      // past its decisions a run goes on by round robin: no delay spent
      (options.bound === 'delay' ? RunFlags.ROUND_ROBIN : 0),
    nondetDomain: Float64Array.from(options.nondetDomain),
  };
}

/**
 * Builds a C test file and explores every test in it (or replays one execution). The
 * file's own `// weft:` comment supplies the options `given` leaves out.
 */
export async function checkAllInterleavings(file: string, given: CheckOptions = {}): Promise<CheckResult> {
  const merged = withFileOptions(file, given);
  const options = resolveOptions(merged);
  const settings = settingsOf(options, merged.strategy !== undefined);
  const replay = options.replay === undefined ? undefined : decodeReplay(options.replay);
  const built = buildHarness(file, options);
  const build = buildIdentity(built, options);
  // a schedule recorded on other code may no longer fit: say so rather than blame the harness
  const codeChanged = replay?.build !== undefined && replay.build !== build
    ? `the code changed since this schedule was recorded (build ${replay.build}; now ${build})` : undefined;
  const tests = await withHarness(built.library, async (harness) => {
    harness.setHangTimeout(settings.hangTimeoutMs);
    const available = harness.tests();
    if (available.length === 0)
      throw new BuildError('no-tests', `${file}: no tests: define WEFT_TEST(name) { … } or a main() function`);
    const wanted = replay ? [replay.test] : options.test;
    for (const name of wanted ?? []) {
      if (available.some((test) => test.name === name)) continue;
      const missing = `${file} has no test named '${name}' (it has: ${available.map((t) => t.name).join(', ')})`;
      throw codeChanged ? new WeftError('replay-changed', `${codeChanged}: ${missing}`) : new OptionError(missing);
    }
    const results: TestResult[] = [];
    // the compiler may emit the test descriptors in any order: run them in source order
    const inSourceOrder = [...available.entries()].sort(([, a], [, b]) => a.file.localeCompare(b.file) || a.line - b.line);
    for (const [index, test] of inSourceOrder) {
      if (wanted && !wanted.includes(test.name)) continue;
      const run = replay
        ? replayOne(harness, index, replay, { ...settings, mode: replay.mode }, codeChanged)
        : exploreOne(harness, index, test.name, settings, given.onProgress);
      results.push(await toTestResult(test.name, await run, { library: built.library, build }, replay ? replay.mode : settings.mode, settings));
    }
    return results;
  });
  return { file, tests, library: built.library, hash: built.hash, cached: built.cached };
}

type Run =
  /** sampled: a sampler's words for what its runs covered, or for the run that found the bug */
  | (Exploration & { races?: FailingExecution[]; visible?: string[]; note?: string; sampled?: string })
  | { error: string; executions: number; elapsedMs: number };

/** A sampler never runs out of runs: given no budget, it draws SAMPLES_WITHOUT_BUDGET. */
function executionBudget(settings: Settings, strategy: Strategy): number {
  const unlimited = settings.maxExecutions === Number.POSITIVE_INFINITY && settings.timeBudgetMs === Number.POSITIVE_INFINITY;
  return strategy.exhaustive === false && unlimited ? SAMPLES_WITHOUT_BUDGET : settings.maxExecutions;
}

/** racy locations made scheduling points, at most, before giving up on more */
const MAX_RACY_LOCATIONS = 16;

/**
 * Explores one test. A data race (drf mode) is recorded and its location becomes a
 * scheduling point; exploration then starts again, so that what the race breaks (an
 * assertion, say) is found too.
 */
async function exploreOne(
  harness: NativeHarness, test: number, name: string, settings: Settings, onProgress: CheckOptions['onProgress'],
): Promise<Run> {
  const races: FailingExecution[] = [];
  const visible: number[] = [];
  let executions = 0;
  let elapsedMs = 0;
  // one budget for the test, however many races restart its exploration
  const deadline = performance.now() + settings.timeBudgetMs;
  try {
    for (;;) {
      const strategy = createStrategy(settings.strategy, {
        maxBound: settings.maxBound, bound: settings.bound, capacity: harness.trace().capacity, deadline, seed: settings.seed, pctDepth: settings.pctDepth,
      });
      const runOptions = {
        test, maxBound: settings.maxBound, maxSteps: settings.maxSteps, mode: modeNumbers[settings.mode], flags: settings.flags,
        nondetDomain: settings.nondetDomain, visible: Float64Array.from(visible),
      };
      const turns = settings.samplesAlongside && strategy.exhaustive !== false
        ? new SamplingTurns(harness, runOptions, settings.seed, settings.pctDepth) : undefined;
      const run: Exploration & { sampled?: string; note?: string } = await drive(harness, strategy, {
        ...runOptions, maxExecutions: executionBudget(settings, strategy) - executions, timeBudgetMs: deadline - performance.now(),
        ...(onProgress ? { onProgress: (progress) => onProgress({ test: name, ...progress }) } : {}),
        ...(turns ? { interlude: turns.interlude } : {}),
      });
      executions += run.executions;
      elapsedMs += run.elapsedMs;
      // simplifying reads debug info: loaded only when there is a bug
      const simplify = run.failure ? (await import('./report/simplify.js')).simplify : undefined;
      const simplified = (failure: FailingExecution) => simplify!(failure, {
        harness, test, bound: settings.bound,
        replay: (decisions, flags = 0) => harness.run(
          test, decisions, decisions.length, settings.maxSteps, modeNumbers[settings.mode], settings.flags | flags,
          settings.nondetDomain, runOptions.visible,
        ),
      });
      if (run.failure) run.failure = simplified(run.failure);
      // a sampled bug is at no bound: it needed what its (simplified) run took
      if (strategy.exhaustive === false) {
        if (run.failure) run.bound = spentBy(run.failure, settings.bound);
        run.sampled = run.failure ? strategy.foundBy!() : strategy.coverage!(executions);
      } else if (turns?.found && run.failure) {
        const minimised = await turns.minimised(run.failure, strategy.name, run.reachedBound, simplified, deadline - performance.now());
        run.failure = minimised.failure;
        run.bound = minimised.failure.preemptions;
        run.sampled = minimised.foundBy;
      } else if (turns && turns.runs > 0) {
        run.note = `beside it ${withThousands(turns.runs)} PCT runs, no bug: ${turns.coverage()}`;
      }
      const race = run.failure?.outcome === Outcome.RACE ? run.failure : undefined;
      if (race && visible.length < MAX_RACY_LOCATIONS && !visible.includes(race.result.raceAddress)) {
        races.push(race);
        visible.push(race.result.raceAddress);
        continue;
      }
      const bases = harness.result();
      return { ...run, executions, elapsedMs, races, visible: visible.map((address) => relativeLocation(address, bases)) };
    }
  } catch (error) {
    if (error instanceof UnexplorableHarnessError) return { error: error.message, executions, elapsedMs };
    throw error;
  }
}

async function replayOne(
  harness: NativeHarness, test: number, replay: Replay, settings: Settings, codeChanged: string | undefined,
): Promise<Run> {
  const { decisions } = replay;
  const bases = harness.result();
  const visible = Float64Array.from(replay.visible ?? [], (location) => absoluteLocation(location, bases));
  const started = performance.now();
  // the access log too: the replayed counterexample reads as the explored one did (report/simplify.ts)
  const outcome = harness.run(
    test, Uint16Array.from(decisions), decisions.length, settings.maxSteps, modeNumbers[settings.mode], settings.flags | RunFlags.LOG_ACCESSES,
    settings.nondetDomain, visible,
  );
  const elapsedMs = performance.now() - started;
  if (outcome === Outcome.LIMIT) return { error: harness.result().message, executions: 1, elapsedMs };
  if (outcome === Outcome.DIVERGENCE) {
    const error = codeChanged ? `${codeChanged}: it no longer fits; weft check finds a fresh counterexample` : `the replay does not fit this harness: ${harness.result().message}`;
    return { error, executions: 1, elapsedMs };
  }
  const base = { executions: 1, redundantRuns: 0, bound: 0, reachedBound: 0, complete: false, elapsedMs, ...(codeChanged ? { note: codeChanged } : {}) };
  if (outcome === Outcome.OK || outcome === Outcome.PRUNED) return { ...base, stoppedBy: 'replayed' };
  const failure = { ...copyFailure(harness, { steps: harness.trace().status[0]!, outcome }), accesses: harness.accessLog() };
  return { ...base, bound: spentBy(failure, settings.bound), stoppedBy: 'bug', failure, visible: replay.visible ?? [] };
}

function guarantee(run: Exploration & { sampled?: string }, kind: BoundKind): string {
  if (run.sampled !== undefined)
    return run.failure ? `bug found by ${run.sampled}` : `${withThousands(run.executions)} runs, no bug; ${run.sampled}`;
  const spent = kind === 'delay' ? 'delays' : 'preemptions';
  switch (run.stoppedBy) {
    case 'bug':
      return `bug found at ${kind === 'delay' ? 'delay ' : ''}bound ${run.bound} after ${run.executions} executions`;
    case 'exhausted':
      return 'complete: every interleaving explored';
    case 'replayed':
      return 'one execution replayed: it passes';
    case 'max-bound':
      return `all executions with ≤ ${run.bound} ${spent} explored`;
    case 'max-executions':
    case 'time-budget':
      return `budget exhausted (${run.stoppedBy === 'time-budget' ? 'timeBudgetMs' : 'maxExecutions'}) during bound ${run.reachedBound} after ${run.executions} executions; ` +
        (run.bound >= 0 ? `all executions with ≤ ${run.bound} ${spent} explored` : 'no bound fully explored');
  }
}

async function toTestResult(name: string, run: Run, harness: { library: string; build: string }, mode: Mode, settings: Settings): Promise<TestResult> {
  const { library, build } = harness;
  const { strategy, bound: boundType } = settings;
  if ('error' in run)
    return { name, status: 'error', executions: run.executions, redundantRuns: 0, bound: 0, boundType, complete: false, elapsedMs: run.elapsedMs, strategy, guarantee: 'nothing: the harness could not be explored', error: run.error };
  const visible = run.visible ?? [];
  // describing a bug reads debug info: its module is loaded only when there is one
  const { describeBug } = run.failure || run.races?.length ? await import('./report/bug.js') : { describeBug: undefined };
  const races = (run.races ?? []).map((race, index) => describeBug!(race, library, name, mode, visible.slice(0, index), build, boundType));
  const consequence = run.failure ? describeBug!(run.failure, library, name, mode, visible, build, boundType) : undefined;
  const failing = settings.races === 'error' && races.length > 0;
  const result: TestResult = {
    name, status: failing || consequence ? 'fail' : 'pass', executions: run.executions, redundantRuns: run.redundantRuns,
    bound: failing ? spentBy(run.races![0]!, boundType) : Math.max(run.bound, 0), boundType,
    complete: run.complete && !failing, elapsedMs: run.elapsedMs, strategy,
    guarantee: `${failing ? `data race found; then ${guarantee(run, boundType)}` : guarantee(run, boundType)}${run.note ? `; ${run.note}` : ''}`,
  };
  if (run.stoppedBy === 'max-executions' || run.stoppedBy === 'time-budget') result.partial = true;
  if (run.sampled !== undefined && run.failure) result.sampled = true;
  if (failing) {
    result.bug = races[0]!;
    if (consequence) result.bug.consequence = consequence;
  } else if (consequence) result.bug = consequence;
  if (settings.races === 'warn' && races.length > 0) result.warnings = races;
  return result;
}
