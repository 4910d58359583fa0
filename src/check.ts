// checkAllInterleavings: build a C test file, load it, and explore every test in it.
import { availableParallelism } from 'node:os';
import { BuildError } from './compile/errors.js';
import { type LibraryBuild, buildHarness } from './compile/compile.js';
import { OptionError, WeftError } from './errors.js';
import { type DriveOptions, type Exploration, type FailingExecution, type Progress, UnexplorableHarnessError, drive, spentBy } from './explore/driver.js';
import { type ReplayOptions, replaySchedule } from './explore/replay.js';
import { boundedSearchByDefault, createStrategy, defaultStrategy } from './explore/strategies.js';
import { boundsBelow, optimalFirst, optimalFoundBy, optimalSettled, showsFewest } from './explore/optimal-first.js';
import { SAMPLES_WITHOUT_BUDGET } from './explore/sampling.js';
import { type BoundEstimate, BoundEstimator } from './explore/estimate.js';
import { estimateLine, farBeyondBudget } from './report/estimate.js';
import { SamplingTurns } from './explore/sampling-turns.js';
import type { BoundKind, Strategy } from './explore/strategy.js';
import { type NativeHarness, RunFlags } from './addon/addon.js';
import { withHarness } from './addon/harness-pool.js';
import { WorkerExitError, driveParallel } from './explore/parallel.js';
import { isSplitStrategy } from './explore/subtree-host.js';
import { UnsupportedHarnessError } from './explore/unsupported.js';
import { Outcome } from './addon/ops.js';
import type { Bug } from './report/bug.js';
import { type Replay, absoluteLocation, buildChanges, decodeReplay, relativeLocation } from './report/replay.js';
import { withFileOptions } from './file-options.js';
import { counted, withThousands } from './numbers.js';
import { guarantee } from './report/guarantee.js';
import { type ShardOfFile, type ShardOfTest, onlyShard, shardKey } from './report/merge.js';
import { DEFAULT_MAX_WORKERS, type ResolvedOptions, type SchemaOptions, resolveOptions } from './options.js';

export type Mode = ResolvedOptions['mode'];

/** Options of a check (src/options.ts says what each means), a progress callback, and a signal to stop it. */
export interface CheckOptions extends SchemaOptions {
  onProgress?: (progress: { test: string; bound: number; executions: number; elapsedMs: number }) => void;
  /**
   * before a bound of the bounded search runs: its estimated size (`line`: `bound 2: about 1.4 M
   * executions, ~40 s`), and `farBeyond`, what helps, when it is far beyond the time budget left
   */
  onEstimate?: (estimate: { test: string; estimate: BoundEstimate; line: string; farBeyond?: string }) => void;
  /**
   * aborted: the test being explored stops within a slice of runs (~50 ms) and is reported
   * as explored so far (`interrupted`); the tests after it are not explored (`notRun`)
   */
  signal?: AbortSignal;
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
  /** stopped by its budget (maxExecutions or timeBudgetMs), or interrupted, before the bound was explored */
  partial?: boolean;
  /** stopped by the options' signal (the CLI's on Ctrl-C): the guarantee says what was explored */
  interrupted?: boolean;
  /** the bug was found by sampling (random, pct, or the default's PCT turns): the guarantee says which run */
  sampled?: boolean;
  bug?: Bug;
  /** data races reported as warnings (option races: 'warn') */
  warnings?: Bug[];
  /**
   * a bug the default's optimal phase found that needs more preemptions than maxBound: no
   * failure (the bound was asked for), but shown, with its replay string, so it is not lost
   */
  beyondBound?: Bug;
  error?: string;
  /** one shard of an exploration (option shard): how its part ended, for weft merge */
  shard?: ShardOfTest;
  /** a bug: how it was found, in plain terms */
  found?: Found;
  /**
   * the strategy asked for does not model something the harness does: why, and the strategy
   * the test was explored with instead (`strategy`)
   */
  fallback?: string;
}

export interface Found {
  /** the executions explored until the bug */
  executions: number;
  /** every schedule with fewer preemptions than the bug's was explored, without a bug */
  fewest: boolean;
}

export interface CheckResult {
  file: string;
  tests: TestResult[];
  library: string;
  /** the harness library's content hash: same hash and options, same result */
  hash: string;
  cached: boolean;
  /** one shard of an exploration (option shard): which, and what must match in the others */
  shard?: ShardOfFile;
  /** the signal aborted before the file's exploration ended */
  interrupted?: boolean;
  /** the tests not explored because the signal had aborted, in source order */
  notRun?: string[];
}

const modeNumbers: Record<Mode, number> = { drf: 0, sc: 1 };

interface Settings {
  maxBound: number;
  bound: BoundKind;
  strategy: string;
  /**
   * no strategy was chosen: optimal DPOR first, for a share of the budget (explore/optimal-first.ts),
   * then the bounded search, with PCT samples taking turns when it does not finish a bound (SamplingTurns)
   */
  byDefault: boolean;
  seed: number;
  pctDepth: number;
  mode: Mode;
  maxExecutions: number;
  timeBudgetMs: number;
  /** timeBudgetMs was given (an option, a file comment), not the default */
  budgetGiven: boolean;
  maxSteps: number;
  hangTimeoutMs: number;
  flags: number;
  nondetDomain: Float64Array;
  races: ResolvedOptions['races'];
  /** worker processes for bpor (explore/parallel.ts) */
  workers: number;
  shard: ResolvedOptions['shard'];
}

function settingsOf(options: ResolvedOptions, budgetGiven: boolean): Settings {
  return {
    ...options,
    budgetGiven,
    byDefault: options.strategy === defaultStrategy,
    maxExecutions: options.maxExecutions ?? Number.POSITIVE_INFINITY,
    timeBudgetMs: options.timeBudgetMs ?? Number.POSITIVE_INFINITY,
    flags: (options.spuriousWakeups ? RunFlags.SPURIOUS_WAKEUPS : 0) | (options.leaks ? RunFlags.REPORT_LEAKS : 0) |
      // past its decisions a run goes on by round robin: no delay spent
      (options.bound === 'delay' ? RunFlags.ROUND_ROBIN : 0),
    nondetDomain: Float64Array.from(options.nondetDomain),
    workers: options.workers ?? Math.min(availableParallelism(), DEFAULT_MAX_WORKERS),
  };
}

/**
 * Builds a C test file and explores every test in it (or replays one execution). The
 * file's own `// weft:` comment supplies the options `given` leaves out.
 */
export function checkAllInterleavings(file: string, given: CheckOptions = {}): Promise<CheckResult> {
  return checkBuilt(file, given);
}

/** checkAllInterleavings with the file's build already made (Vitest's plugin made it, and nothing it read changed since). */
export async function checkBuilt(file: string, given: CheckOptions, made?: LibraryBuild): Promise<CheckResult> {
  const merged = withFileOptions(file, given);
  const options = resolveOptions(merged);
  const settings = settingsOf(options, merged.timeBudgetMs !== undefined);
  const replay = options.replay === undefined ? undefined : decodeReplay(options.replay);
  const built = made ?? buildHarness(file, options);
  const build = built.identity;
  // a schedule recorded on other code may no longer fit: say what changed rather than blame the harness
  const codeChanged = replay?.build === undefined ? undefined : buildChanges(replay.build, build);
  const { results, notRun } = await withHarness(built.library, async (harness) => {
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
    const notRun: string[] = [];
    // the compiler may emit the test descriptors in any order: run them in source order
    // (file names by code unit: localeCompare would load ICU's collation, 14 ms on first use)
    const inSourceOrder = [...available.entries()].sort(([, a], [, b]) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
    for (const [index, test] of inSourceOrder) {
      if (wanted && !wanted.includes(test.name)) continue;
      if (given.signal?.aborted) {
        notRun.push(test.name);
        continue;
      }
      const run = replay
        ? replayOne(harness, index, replay, { ...settings, mode: replay.mode }, codeChanged)
        : exploreOne(harness, built.library, index, test.name, settings, given);
      results.push(await toTestResult(test.name, await run, { library: built.library, build }, replay ? replay.mode : settings.mode, settings));
    }
    return { results, notRun };
  });
  const interrupted = notRun.length > 0 || results.some((test) => test.interrupted);
  const shard = settings.shard ? { shard: { ...settings.shard, key: shardKey(build, options) } } : {};
  return { file, tests: results, library: built.library, hash: built.hash, cached: built.cached, ...shard, ...(interrupted ? { interrupted, notRun } : {}) };
}

type Run =
  | (SearchResult & { races?: FailingExecution[]; visible?: string[]; raceFound?: Found })
  | { error: string; executions: number; elapsedMs: number };

/** A sampler never runs out of runs: given no budget of its own, it draws SAMPLES_WITHOUT_BUDGET (within the default time budget). */
function executionBudget(settings: Settings, strategy: Strategy): number {
  const unlimited = settings.maxExecutions === Number.POSITIVE_INFINITY && !settings.budgetGiven;
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
  harness: NativeHarness, library: string, test: number, name: string, settings: Settings, { onProgress, onEstimate, signal }: Pick<CheckOptions, 'onProgress' | 'onEstimate' | 'signal'>,
): Promise<Run> {
  const races: FailingExecution[] = [];
  let raceFound: Found | undefined;
  const visible: number[] = [];
  let executions = 0;
  let elapsedMs = 0;
  // one budget for the test, however many races restart its exploration
  const deadline = performance.now() + settings.timeBudgetMs;
  try {
    for (;;) {
      // the racy locations found so far, as this search and its replays see them
      const scheduled = Float64Array.from(visible);
      const search: Search = {
        harness, library, settings, deadline,
        runOptions: { ...replayOptions(test, settings, 0, scheduled), maxBound: settings.maxBound, ...(signal ? { signal } : {}) },
        ...(onProgress ? { onProgress: (at: Progress) => onProgress({ test: name, ...at }) } : {}),
        ...(onEstimate ? { onEstimate: (at: EstimateOf) => onEstimate({ test: name, ...at }) } : {}),
        // simplifying reads debug info: loaded only when there is a bug
        simplified: async (failure) => (await import('./report/simplify.js')).simplify(failure, {
          harness, test, bound: settings.bound,
          replay: (decisions, flags = 0) => replaySchedule(harness, decisions, replayOptions(test, settings, flags, scheduled)),
        }),
        executionsBefore: executions,
      };
      const run = await searchWith(search, settings.byDefault ? defaultStrategy : settings.strategy, settings.maxBound);
      executions += run.executions;
      elapsedMs += run.elapsedMs;
      const race = run.failure?.outcome === Outcome.RACE ? run.failure : undefined;
      const located = () => {
        const bases = harness.result();
        return visible.map((address) => relativeLocation(address, bases));
      };
      if (race && visible.length < MAX_RACY_LOCATIONS && !visible.includes(race.result.raceAddress)) {
        races.push(race);
        raceFound ??= run.found;
        visible.push(race.result.raceAddress);
        if (!signal?.aborted) continue;
        // interrupted before the search could start again past the race: the race is reported
        // as any other (failing only under races error), and no bound claimed explored
        const { failure: _, ...explored } = run;
        return { ...explored, stoppedBy: 'interrupted', complete: false, bound: -1, executions, elapsedMs, races, visible: located() };
      }
      return { ...run, executions, elapsedMs, races, visible: located(), ...(raceFound ? { raceFound } : {}) };
    }
  } catch (error) {
    // a test the strategy cannot explore is that test's error: the file's other tests still run
    if (error instanceof UnexplorableHarnessError || error instanceof WorkerExitError || error instanceof UnsupportedHarnessError) return { error: error.message, executions, elapsedMs };
    throw error;
  }
}

/** What one search of a test needs: its harness, settings and budget, how to simplify a bug. */
interface Search {
  harness: NativeHarness;
  /** the harness library, for worker processes to load */
  library: string;
  settings: Settings;
  deadline: number;
  runOptions: Omit<DriveOptions, 'maxExecutions' | 'timeBudgetMs' | 'interlude' | 'onProgress'>;
  /** progress of the whole test: a search's executions count on from the earlier searches' */
  onProgress?: (progress: Progress) => void;
  onEstimate?: (estimate: EstimateOf) => void;
  simplified: (failure: FailingExecution) => Promise<FailingExecution>;
  /** executions of the test's earlier searches (a race restarts the search), which count against maxExecutions */
  executionsBefore: number;
}

/**
 * sampled: a sampler's words for what its runs covered, or for the run that found the bug;
 * foundBy: how a bug was found when it was not by the bound iterations; strategy: the one whose result this is;
 * beyondBound: a bug found that needs more preemptions than maxBound
 */
type SearchResult = Exploration & {
  sampled?: string; note?: string; foundBy?: string; strategy?: string; beyondBound?: FailingExecution; fallback?: string;
  /** a bug: the executions run until it was found, and whether every schedule with fewer preemptions was explored (a bounded search's bug: yes) */
  found?: Found;
};

/**
 * A search with the strategy asked for (`auto`: the default policy). A harness the strategy
 * does not model (yet) is explored with one that does, and the result says so (`fallback`):
 * for graph, the default's own (`optimal` unbounded, one run per Mazurkiewicz trace, else
 * `bpor` bound by bound), with the same kind of guarantee; for a strategy that reduces by
 * dependence, `dfs`, which needs none. The runs the refusing strategy made are left out: the
 * search starts again. A shard does not fall back: another shard may never meet what this one
 * did, and shards of two strategies do not merge (the refusal is the test's error).
 */
async function searchWith(search: Search, name: string, maxBound: number): Promise<SearchResult> {
  const fallbacks: string[] = [];
  for (let strategy = name; ; ) {
    try {
      const run = strategy === defaultStrategy ? await searchByDefault(search) : await boundedSearch(search, strategy, maxBound);
      if (fallbacks.length > 0) run.fallback = fallbacks.join('; ');
      return run;
    } catch (error) {
      if (!(error instanceof UnsupportedHarnessError) || search.settings.shard) throw error;
      strategy = strategy === 'graph' ? (Number.isFinite(maxBound) ? boundedSearchByDefault : 'optimal') : 'dfs';
      fallbacks.push(`${error.message}: explored with strategy ${strategy} instead`);
    }
  }
}

/**
 * The `auto` policy (explore/optimal-first.ts): optimal for its share of the budget, then,
 * unless it finished, a bounded search — below the preemptions of optimal's bug, if it found one.
 */
async function searchByDefault(search: Search): Promise<SearchResult> {
  const { settings } = search;
  const first = await optimalFirst(search.harness, {
    ...search.runOptions, ...progressOf(search), maxExecutions: settings.maxExecutions - search.executionsBefore, timeBudgetMs: search.deadline - performance.now(),
  }, search.deadline, settings.budgetGiven);
  const bug = first.failure ? await search.simplified(first.failure) : undefined;
  const optimalRun = { ...first, strategy: 'optimal', ...(bug ? { failure: bug, found: { executions: search.executionsBefore + first.executions, fewest: showsFewest(bug, undefined) } } : {}) };
  if (optimalSettled(first, bug)) return optimalRun;
  const budgetLeft = search.executionsBefore + first.executions < settings.maxExecutions && performance.now() < search.deadline && !search.runOptions.signal?.aborted;
  const bounded = budgetLeft
    ? await boundedSearch({ ...search, executionsBefore: search.executionsBefore + first.executions }, boundedSearchByDefault, bug ? boundsBelow(bug, settings.maxBound) : settings.maxBound)
    : undefined;
  const both = (run: SearchResult) => ({ ...run, executions: first.executions + run.executions, elapsedMs: first.elapsedMs + run.elapsedMs });
  if (!bug) return bounded ? both(bounded) : optimalRun;
  if (bounded?.failure) return both(bounded);
  if (bug.preemptions > settings.maxBound) {
    // a bug, but not within the bound asked for: shown beside the bound's guarantee, not as a failure
    const { failure: _, ...withoutBug } = bounded ? both(bounded) : { ...optimalRun, stoppedBy: boundedSkippedBy(search), bound: -1 };
    return { ...withoutBug, beyondBound: bug };
  }
  // the bounds below optimal's bug hold none: it has the fewest preemptions, if they were all explored
  const base = bounded ? both(bounded) : optimalRun;
  return { ...base, failure: bug, bound: bug.preemptions, stoppedBy: 'bug', complete: false, strategy: 'optimal', found: { executions: search.executionsBefore + first.executions, fewest: showsFewest(bug, bounded) }, foundBy: optimalFoundBy(bug, first.executions, bounded, boundedSearchByDefault, (bounded?.stoppedBy ?? boundedSkippedBy(search)) === 'interrupted') };
}

function progressOf(search: Search): Pick<DriveOptions, 'onProgress'> {
  const { onProgress, executionsBefore } = search;
  return onProgress ? { onProgress: (at) => onProgress({ ...at, executions: executionsBefore + at.executions }) } : {};
}

/** Why the bounded search did not run after optimal's: interrupted, or no budget left. */
function boundedSkippedBy(search: Search): 'interrupted' | 'time-budget' | 'max-executions' {
  if (search.runOptions.signal?.aborted) return 'interrupted';
  return performance.now() >= search.deadline ? 'time-budget' : 'max-executions';
}

/** The strategy `name` bound by bound up to `maxBound`; with `auto`, PCT samples take turns with it. */
async function boundedSearch(search: Search, name: string, maxBound: number): Promise<SearchResult> {
  const { harness, settings, deadline } = search;
  const strategy = createStrategy(name, {
    maxBound, bound: settings.bound, deadline, seed: settings.seed, pctDepth: settings.pctDepth, ...(settings.shard ? { shard: settings.shard } : {}),
  });
  const turns = settings.byDefault && strategy.exhaustive !== false
    ? new SamplingTurns(harness, { ...search.runOptions, maxBound }, settings.seed, settings.pctDepth) : undefined;
  const estimates = strategy.exhaustive === false ? undefined : boundEstimates(search, strategy.name);
  const options: DriveOptions = {
    ...search.runOptions, ...progressOf(search), maxBound, maxExecutions: executionBudget(settings, strategy) - search.executionsBefore,
    timeBudgetMs: deadline - performance.now(), ...(turns ? { interlude: turns.interlude } : {}), ...(estimates ? { onBoundStart: estimates.onBoundStart } : {}),
  };
  const parallel = isSplitStrategy(strategy.name) && settings.workers > 1;
  const run: SearchResult = parallel
    ? await driveParallel(harness, options, { strategy: strategy.name, count: settings.workers, library: search.library, hangTimeoutMs: settings.hangTimeoutMs, ...(settings.shard ? { shard: settings.shard } : {}) })
    : await drive(harness, strategy, options);
  run.strategy = strategy.name;
  if (run.failure) {
    run.failure = await search.simplified(run.failure);
    // the iterations below the bug's bound found none (an unbounded search and a sampler stop at their first bug, at no bound)
    run.found = { executions: search.executionsBefore + run.executions, fewest: (strategy.exhaustive !== false && strategy.bounded) || run.failure.preemptions === 0 };
  }
  // an unbounded search's bug is at no bound either: it needs what its (simplified) run took
  if (!strategy.bounded && strategy.exhaustive !== false && run.failure) {
    run.bound = spentBy(run.failure, settings.bound);
    run.foundBy = `${strategy.name === 'optimal' ? 'optimal DPOR' : `strategy ${strategy.name}`}, unbounded, after ${withThousands(run.executions)} executions, shown with ${counted(run.bound, settings.bound === 'delay' ? 'delay' : 'preemption')}`;
  }
  // a sampled bug is at no bound: it needed what its (simplified) run took
  if (strategy.exhaustive === false) {
    if (run.failure) run.bound = spentBy(run.failure, settings.bound);
    run.sampled = run.failure ? strategy.foundBy!() : strategy.coverage!(search.executionsBefore + run.executions);
  } else if (turns?.found && run.failure) {
    const minimised = await turns.minimised(run.failure, strategy.name, run.reachedBound, search.simplified, deadline - performance.now());
    run.failure = minimised.failure;
    run.bound = minimised.failure.preemptions;
    run.sampled = minimised.foundBy;
    run.found = { executions: search.executionsBefore + run.executions, fewest: minimised.fewest };
  } else if (turns && turns.runs > 0) {
    run.note = `beside it ${withThousands(turns.runs)} PCT runs, no bug: ${turns.coverage()}`;
  }
  const farBeyond = run.stoppedBy === 'time-budget' ? estimates?.farBeyond(run.reachedBound) : undefined;
  if (farBeyond) run.note = run.note ? `${run.note}; ${farBeyond}` : farBeyond;
  return run;
}

/** A bound's estimate, before it runs, as the search reports it. */
type EstimateOf = { estimate: BoundEstimate; line: string; farBeyond?: string };

/**
 * Estimates each bound of a systematic search before it runs (explore/estimate.ts: its probes
 * never reach the strategy), reports it, and remembers what helps when one is far beyond the budget.
 */
function boundEstimates(search: Search, strategy: string) {
  const { harness, settings, deadline, runOptions, onEstimate } = search;
  const estimator = new BoundEstimator(harness, runOptions, settings.bound);
  const farBeyond = new Map<number, string>();
  return {
    onBoundStart(bound: number): void {
      const estimate = estimator.estimate(bound);
      const advice = farBeyondBudget(estimate, strategy, deadline - performance.now());
      if (advice) farBeyond.set(bound, advice);
      onEstimate?.({ estimate, line: estimateLine(estimate, strategy), ...(advice ? { farBeyond: advice } : {}) });
    },
    farBeyond: (bound: number) => farBeyond.get(bound),
  };
}

async function replayOne(
  harness: NativeHarness, test: number, replay: Replay, settings: Settings, codeChanged: string | undefined,
): Promise<Run> {
  const { decisions } = replay;
  const bases = harness.result();
  const visible = Float64Array.from(replay.visible ?? [], (location) => absoluteLocation(location, bases));
  const started = performance.now();
  let run: Exploration;
  try {
    // the access log too: the replayed counterexample reads as the explored one did (report/simplify.ts)
    run = await replaySchedule(harness, Uint16Array.from(decisions), replayOptions(test, settings, RunFlags.LOG_ACCESSES, visible));
  } catch (error) {
    if (!(error instanceof UnexplorableHarnessError)) throw error;
    const elapsedMs = performance.now() - started;
    if (error.code === 'limit') return { error: harness.result().message, executions: 1, elapsedMs };
    const unnamed = replay.build === undefined ? '; the replay string names no build, so changed code or compiler flags may be the cause too' : '';
    const message = codeChanged ? `${codeChanged}: it no longer fits; weft check finds a fresh counterexample` : `the replay does not fit this harness: ${harness.result().message}${unnamed}`;
    return { error: message, executions: 1, elapsedMs };
  }
  const base = { executions: 1, redundantRuns: 0, bound: 0, reachedBound: 0, complete: false, elapsedMs: run.elapsedMs, ...(codeChanged ? { note: codeChanged } : {}) };
  if (!run.failure) return { ...base, stoppedBy: 'replayed' };
  const failure = { ...run.failure, accesses: harness.accessLog() };
  return { ...base, bound: spentBy(failure, settings.bound), stoppedBy: 'bug', failure, visible: replay.visible ?? [] };
}

/** A test's settings for replaying one schedule, with run flags added. */
function replayOptions(test: number, settings: Settings, flags: number, visible: Float64Array): ReplayOptions {
  return { test, maxSteps: settings.maxSteps, mode: modeNumbers[settings.mode], flags: settings.flags | flags, nondetDomain: settings.nondetDomain, visible };
}

async function toTestResult(name: string, run: Run, harness: { library: string; build: string }, mode: Mode, settings: Settings): Promise<TestResult> {
  const { library, build } = harness;
  const strategy = 'strategy' in run && run.strategy !== undefined ? run.strategy : settings.strategy;
  const boundType = settings.bound;
  if ('error' in run)
    return { name, status: 'error', executions: run.executions, redundantRuns: 0, bound: 0, boundType, complete: false, elapsedMs: run.elapsedMs, strategy, guarantee: 'nothing: the harness could not be explored', error: run.error };
  const visible = run.visible ?? [];
  // describing a bug reads debug info: its modules are loaded only when there is one
  const describe = run.failure || run.races?.length || run.beyondBound ? await describer(library, name, mode, build, boundType) : undefined;
  const races = (run.races ?? []).map((race, index) => describe!(race, visible.slice(0, index)));
  const consequence = run.failure ? describe!(run.failure, visible) : undefined;
  const failing = settings.races === 'error' && races.length > 0;
  const result: TestResult = {
    name, status: failing || consequence ? 'fail' : 'pass', executions: run.executions, redundantRuns: run.redundantRuns,
    bound: failing ? spentBy(run.races![0]!, boundType) : Math.max(run.bound, 0), boundType,
    complete: run.complete && !failing, elapsedMs: run.elapsedMs, strategy,
    guarantee: `${failing ? 'data race found; then ' : ''}${guarantee({ ...run, strategy }, boundType)}${run.note ? `; ${run.note}` : ''}`,
  };
  if (run.stoppedBy === 'max-executions' || run.stoppedBy === 'time-budget') result.partial = true;
  if (settings.shard) {
    // a shard claims nothing for the whole search: weft merge does, from every shard's part
    result.shard = { stoppedBy: run.stoppedBy, bound: run.bound, reachedBound: run.reachedBound, guarantee: result.guarantee, racyLocations: visible };
    result.guarantee = onlyShard(settings.shard, result.guarantee);
    result.complete = false;
  }
  if (run.stoppedBy === 'interrupted') {
    result.partial = true;
    result.interrupted = true;
  }
  if (run.sampled !== undefined && run.failure) result.sampled = true;
  if (run.fallback) result.fallback = run.fallback;
  const found = failing ? run.raceFound : consequence ? run.found : undefined;
  if (found) result.found = found;
  if (failing) {
    result.bug = races[0]!;
    // the search past the race may stop at the same race again (another of its accesses): said once
    if (consequence && consequence.message !== result.bug.message) result.bug.consequence = consequence;
  } else if (consequence) result.bug = consequence;
  if (settings.races === 'warn' && races.length > 0) result.warnings = races;
  if (run.beyondBound) result.beyondBound = describe!(run.beyondBound, visible);
  return result;
}

/** Describes a test's failures, from the library's debug data. */
async function describer(library: string, test: string, mode: Mode, build: string, bound: BoundKind) {
  const [{ describeBug }, { readDebugData }] = await Promise.all([import('./report/bug.js'), import('./report/debug-data.js')]);
  const debug = readDebugData(library);
  return (failure: FailingExecution, visible: readonly string[]) => describeBug(failure, debug, test, mode, visible, build, bound);
}
