// The --json shape (DESIGN.md 4.1): stable fields first; fields may be added, never
// change meaning.
import type { CheckResult } from '../check.js';
import type { Bug, BugStep } from './bug.js';
import { foldRepeats } from './repeats.js';

/** The failing thread's last plain accesses: the field reports before `accesses` had them all (kept for their readers). */
const NEAR_FAILURE = 8;
const nearFailure = (bug: Bug) => (bug.accesses ?? []).filter((access) => access.thread === bug.thread).slice(-NEAR_FAILURE);

/** A step that ends a loop's kept iteration: its `steps` steps came round `times` more times back to back. */
type JsonStep = BugStep & { repeated?: { steps: number; times: number } };

/**
 * The steps with every loop's iteration kept once, as the text report shows them: a run
 * stopped at the step bound would otherwise carry all its thousands of steps.
 */
function withLoopsOnce(steps: readonly BugStep[]): JsonStep[] {
  return foldRepeats<BugStep, JsonStep>(steps, ({ step: _index, ...rest }) => JSON.stringify(rest), (iteration, more) =>
    [...iteration.slice(0, -1), { ...iteration.at(-1)!, repeated: { steps: iteration.length, times: more } }]);
}

export function toJson(result: Pick<CheckResult, 'file' | 'tests' | 'shard' | 'interrupted' | 'notRun'>): object {
  return {
    file: result.file,
    ...(result.shard ? { shard: result.shard } : {}),
    tests: result.tests.map((test) => ({
      name: test.name,
      status: test.status,
      executions: test.executions,
      bound: test.bound,
      boundType: test.boundType,
      complete: test.complete,
      elapsedMs: Math.round(test.elapsedMs * 1000) / 1000,
      strategy: test.strategy,
      ...(test.fallback ? { fallback: test.fallback } : {}),
      guarantee: test.guarantee,
      ...(test.partial ? { partial: true } : {}),
      ...(test.interrupted ? { interrupted: true } : {}),
      redundantRuns: test.redundantRuns,
      ...(test.shard ? { shard: test.shard } : {}),
      ...(test.found ? { found: test.found } : {}),
      ...(test.error !== undefined ? { error: test.error } : {}),
      ...(test.beyondBound
        ? { beyondBound: { kind: test.beyondBound.kind, message: test.beyondBound.message, preemptions: test.beyondBound.preemptions, schedule: test.beyondBound.schedule } }
        : {}),
      ...(test.warnings ? { warnings: test.warnings.map((warning) => ({ kind: warning.kind, message: warning.message, ...(warning.kind === 'race' ? { race: warning.race } : {}) })) } : {}),
      ...(test.bug
        ? {
            bug: {
              kind: test.bug.kind,
              message: test.bug.message,
              preemptions: test.bug.preemptions,
              ...(test.bug.delays !== undefined ? { delays: test.bug.delays } : {}),
              schedule: test.bug.schedule,
              ...(test.bug.location ? { location: test.bug.location } : {}),
              thread: test.bug.thread,
              threads: test.bug.threads,
              steps: withLoopsOnce(test.bug.steps),
              output: test.bug.output,
              threadsTakingPart: test.bug.threadsTakingPart,
              ...(test.bug.accesses ? { accesses: test.bug.accesses, accessesNearFailure: nearFailure(test.bug) } : {}),
              ...(test.bug.heapObjects ? { heapObjects: test.bug.heapObjects } : {}),
              ...(test.bug.kind === 'race' ? { race: test.bug.race } : {}),
              ...(test.bug.consequence ? { consequence: test.bug.consequence } : {}),
            },
          }
        : {}),
    })),
    ...(result.interrupted ? { interrupted: true, notRun: result.notRun } : {}),
  };
}
