// checkAllInterleavings: build a C test file, load it, and explore every test in it.
import { BuildError } from './build/errors.js';
import { type BuildOptions, buildHarness } from './build/compile.js';
import { type Exploration, type FailingExecution, NondeterminismError, copyFailure, drive } from './explore/driver.js';
import { createStrategy, defaultStrategy, strategyNames } from './explore/strategies.js';
import { type NativeHarness, RunFlags } from './native/addon.js';
import { withHarness } from './native/harness-pool.js';
import { Outcome, TRACE_CAPACITY } from './native/ops.js';
import { type Bug, describeBug } from './report/bug.js';
import { simplify } from './report/simplify.js';
import { type Replay, absoluteLocation, decodeReplay, relativeLocation } from './report/replay.js';

export type Mode = 'drf' | 'sc';

export interface CheckOptions extends BuildOptions {
  /** run only these tests (names of WEFT_TESTs, or "main") */
  test?: string | readonly string[];
  maxBound?: number;
  strategy?: string;
  mode?: Mode;
  maxExecutions?: number;
  timeBudgetMs?: number;
  /** scheduling points per execution before it stops (a livelock, or the step limit) */
  maxSteps?: number;
  /** a thread that runs this long without a scheduling point is stopped as a hang */
  hangTimeoutMs?: number;
  seed?: number;
  /** a replay string: run exactly that execution instead of exploring */
  replay?: string;
  /** the values __VERIFIER_nondet_*() can return (default [0, 1]) */
  nondetDomain?: readonly number[];
  /** condition waits may also return without a signal, as POSIX allows */
  spuriousWakeups?: boolean;
  /** drf mode: a data race fails the test ('error', default) or is only reported ('warn') */
  races?: 'error' | 'warn';
  /** a run stopped by its budget (maxExecutions, timeBudgetMs) fails instead of passing as partial */
  requireComplete?: boolean;
  onProgress?: (progress: { test: string; bound: number; executions: number; elapsedMs: number }) => void;
}

export interface TestResult {
  name: string;
  status: 'pass' | 'fail' | 'error';
  executions: number;
  /** runs abandoned part-way as equivalent to an explored execution (not in executions) */
  redundantRuns: number;
  bound: number;
  complete: boolean;
  elapsedMs: number;
  strategy: string;
  /** what was explored, in words: never more than what was done */
  guarantee: string;
  /** stopped by its budget (maxExecutions or timeBudgetMs) before the bound was explored */
  partial?: boolean;
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

export const defaults = {
  maxBound: 2,
  mode: 'drf' as Mode,
  maxExecutions: Number.POSITIVE_INFINITY,
  timeBudgetMs: Number.POSITIVE_INFINITY,
  maxSteps: 50_000,
  hangTimeoutMs: 5_000,
  seed: 1,
  nondetDomain: [0, 1] as readonly number[],
};

const modeNumbers: Record<Mode, number> = { drf: 0, sc: 1 };

export class OptionError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'OptionError';
  }
}

function wholeNumber(name: string, value: number | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (value === Number.POSITIVE_INFINITY && fallback === Number.POSITIVE_INFINITY) return value;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new OptionError(`${name} must be a whole number from ${min} to ${max.toLocaleString('en-US')}, got ${value}`);
  return value;
}

/** the watchdog's limit is a 32-bit count of milliseconds in the binding: about 49 days */
const MAX_HANG_TIMEOUT_MS = 2 ** 32 - 1;

/** more preemptions than any execution of a harness this size could have */
const MAX_BOUND = 10_000;


interface Settings {
  maxBound: number;
  strategy: string;
  mode: Mode;
  maxExecutions: number;
  timeBudgetMs: number;
  maxSteps: number;
  hangTimeoutMs: number;
  seed: number;
  flags: number;
  nondetDomain: Float64Array;
  races: 'error' | 'warn';
}

function raceHandling(races: CheckOptions['races']): 'error' | 'warn' {
  if (races === undefined || races === 'error' || races === 'warn') return races ?? 'error';
  throw new OptionError(`races must be 'error' or 'warn', got '${races}'`);
}

function nondetDomain(values: readonly number[]): Float64Array {
  if (values.length === 0 || values.length > 256 || !values.every(Number.isSafeInteger))
    throw new OptionError(`nondetDomain must be 1 to 256 integers, got [${values.join(', ')}]`);
  return Float64Array.from(values);
}

export function resolveSettings(options: CheckOptions): Settings {
  const mode = options.mode ?? defaults.mode;
  if (mode !== 'drf' && mode !== 'sc') throw new OptionError(`mode must be 'drf' or 'sc', got '${mode}'`);
  const strategy = options.strategy ?? defaultStrategy;
  if (!strategyNames().includes(strategy))
    throw new OptionError(`unknown strategy '${strategy}' (expected one of: ${strategyNames().join(', ')})`);
  return {
    // Infinity: no preemption bound (optimal then verifies completely in one pass)
    maxBound: options.maxBound === Number.POSITIVE_INFINITY ? options.maxBound : wholeNumber('maxBound', options.maxBound, defaults.maxBound, 0, MAX_BOUND),
    strategy,
    mode,
    maxExecutions: wholeNumber('maxExecutions', options.maxExecutions, defaults.maxExecutions, 1),
    timeBudgetMs: wholeNumber('timeBudgetMs', options.timeBudgetMs, defaults.timeBudgetMs, 1),
    maxSteps: wholeNumber('maxSteps', options.maxSteps, defaults.maxSteps, 1, TRACE_CAPACITY),
    hangTimeoutMs: wholeNumber('hangTimeoutMs', options.hangTimeoutMs, defaults.hangTimeoutMs, 1, MAX_HANG_TIMEOUT_MS),
    seed: wholeNumber('seed', options.seed, defaults.seed),
    flags: options.spuriousWakeups ? RunFlags.SPURIOUS_WAKEUPS : 0,
    nondetDomain: nondetDomain(options.nondetDomain ?? defaults.nondetDomain),
    races: raceHandling(options.races),
  };
}

export async function checkAllInterleavings(file: string, options: CheckOptions = {}): Promise<CheckResult> {
  const settings = resolveSettings(options);
  const replay = options.replay === undefined ? undefined : decodeReplay(options.replay);
  const built = buildHarness(file, options);
  const tests = await withHarness(built.library, async (harness) => {
    harness.setHangTimeout(settings.hangTimeoutMs);
    const available = harness.tests();
    if (available.length === 0)
      throw new BuildError('no-tests', `${file}: no tests: define WEFT_TEST(name) { … } or a main() function`);
    const wanted = replay ? [replay.test] : options.test === undefined ? undefined : [options.test].flat();
    for (const name of wanted ?? [])
      if (!available.some((test) => test.name === name))
        throw new OptionError(`${file} has no test named '${name}' (it has: ${available.map((t) => t.name).join(', ')})`);
    const results: TestResult[] = [];
    // the compiler may emit the test descriptors in any order: run them in source order
    const inSourceOrder = [...available.entries()].sort(([, a], [, b]) => a.file.localeCompare(b.file) || a.line - b.line);
    for (const [index, test] of inSourceOrder) {
      if (wanted && !wanted.includes(test.name)) continue;
      const run = replay
        ? replayOne(harness, index, replay, { ...settings, mode: replay.mode })
        : exploreOne(harness, index, test.name, settings, options.onProgress);
      results.push(toTestResult(test.name, await run, built.library, replay ? replay.mode : settings.mode, settings));
    }
    return results;
  });
  return { file, tests, library: built.library, hash: built.hash, cached: built.cached };
}

type Run =
  | (Exploration & { races?: FailingExecution[]; visible?: string[] })
  | { error: string; executions: number; elapsedMs: number };

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
  try {
    for (;;) {
      const strategy = createStrategy(settings.strategy, {
        maxBound: settings.maxBound, seed: settings.seed, capacity: harness.trace().capacity,
        deadline: performance.now() + settings.timeBudgetMs,
      });
      const run = await drive(harness, strategy, {
        test, maxBound: settings.maxBound, maxExecutions: settings.maxExecutions, timeBudgetMs: settings.timeBudgetMs,
        maxSteps: settings.maxSteps, mode: modeNumbers[settings.mode], flags: settings.flags,
        nondetDomain: settings.nondetDomain, visible: Float64Array.from(visible),
        ...(onProgress ? { onProgress: (progress) => onProgress({ test: name, ...progress }) } : {}),
      });
      executions += run.executions;
      elapsedMs += run.elapsedMs;
      if (run.failure) {
        const visibleNow = Float64Array.from(visible);
        run.failure = simplify(run.failure, {
          harness, test,
          replay: (decisions) => harness.run(
            test, decisions, decisions.length, settings.maxSteps, modeNumbers[settings.mode], settings.flags,
            settings.nondetDomain, visibleNow,
          ),
        });
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
    if (error instanceof NondeterminismError) return { error: error.message, executions, elapsedMs };
    throw error;
  }
}

async function replayOne(harness: NativeHarness, test: number, replay: Replay, settings: Settings): Promise<Run> {
  const { decisions } = replay;
  const bases = harness.result();
  const visible = Float64Array.from(replay.visible ?? [], (location) => absoluteLocation(location, bases));
  const started = performance.now();
  const outcome = harness.run(
    test, Uint16Array.from(decisions), decisions.length, settings.maxSteps, modeNumbers[settings.mode], settings.flags,
    settings.nondetDomain, visible,
  );
  const elapsedMs = performance.now() - started;
  if (outcome === Outcome.DIVERGENCE)
    return { error: `the replay does not fit this harness: ${harness.result().message}`, executions: 1, elapsedMs };
  const base = { executions: 1, redundantRuns: 0, bound: 0, reachedBound: 0, complete: false, elapsedMs };
  if (outcome === Outcome.OK || outcome === Outcome.PRUNED) return { ...base, stoppedBy: 'replayed' };
  const failure = copyFailure(harness, { steps: harness.trace().status[0]!, outcome });
  return { ...base, bound: failure.preemptions, stoppedBy: 'bug', failure, visible: replay.visible ?? [] };
}

function guarantee(run: Exploration): string {
  switch (run.stoppedBy) {
    case 'bug':
      return `bug found at bound ${run.bound} after ${run.executions} executions`;
    case 'exhausted':
      return 'complete: every interleaving explored';
    case 'replayed':
      return 'one execution replayed: it passes';
    case 'max-bound':
      return `all executions with ≤ ${run.bound} preemptions explored`;
    case 'max-executions':
    case 'time-budget':
      return `budget exhausted (${run.stoppedBy === 'time-budget' ? 'timeBudgetMs' : 'maxExecutions'}) during bound ${run.reachedBound} after ${run.executions} executions; ` +
        (run.bound >= 0 ? `all executions with ≤ ${run.bound} preemptions explored` : 'no bound fully explored');
  }
}

function toTestResult(name: string, run: Run, library: string, mode: Mode, settings: Settings): TestResult {
  const { strategy } = settings;
  if ('error' in run)
    return { name, status: 'error', executions: run.executions, redundantRuns: 0, bound: 0, complete: false, elapsedMs: run.elapsedMs, strategy, guarantee: 'nothing: the harness could not be explored', error: run.error };
  const visible = run.visible ?? [];
  const races = (run.races ?? []).map((race, index) => describeBug(race, library, name, mode, visible.slice(0, index)));
  const consequence = run.failure ? describeBug(run.failure, library, name, mode, visible) : undefined;
  const failing = settings.races === 'error' && races.length > 0;
  const result: TestResult = {
    name, status: failing || consequence ? 'fail' : 'pass', executions: run.executions, redundantRuns: run.redundantRuns,
    bound: failing ? run.races![0]!.preemptions : Math.max(run.bound, 0),
    complete: run.complete && !failing, elapsedMs: run.elapsedMs, strategy,
    guarantee: failing ? `data race found; then ${guarantee(run)}` : guarantee(run),
  };
  if (run.stoppedBy === 'max-executions' || run.stoppedBy === 'time-budget') result.partial = true;
  if (failing) {
    result.bug = races[0]!;
    if (consequence) result.bug.consequence = consequence;
  } else if (consequence) result.bug = consequence;
  if (settings.races === 'warn' && races.length > 0) result.warnings = races;
  return result;
}
