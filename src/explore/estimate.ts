// How big a bound is before it runs: Knuth's estimator (1975) on the tree of schedules a
// bound admits. A probe walks from the root, at every node taking one of its children at
// random (among the enabled threads whose cost still fits the bound, the values of a choice)
// and multiplying the inverse chances of its choices; the product is an unbiased estimate
// of the leaves, here the executions that spend exactly the bound (what its iteration runs). Probes are runs
// of their own, on the same harness, between two runs of the search: the strategy never
// sees them, so what it explores does not change. The tree is the one without reduction
// (dfs's): for bpor and hbcache, a ceiling.
import type { NativeHarness } from '../addon/addon.js';
import { MAX_THREADS, Op, Outcome } from '../addon/ops.js';
import { type DriveOptions, UnexplorableHarnessError } from './driver.js';
import { type BoundKind, type ExecutionView, decisionAt, liveView, runningBefore, spentAt, threadsByCost, viewRun, yieldedBefore } from './strategy.js';
import { WORDS } from './thread-set.js';

export interface BoundEstimate {
  bound: number;
  /** executions the bound's iteration runs, estimated (without reduction) */
  executions: number;
  /** how long they would take at the probes' speed */
  ms: number;
  /** the most threads a probe saw */
  threads: number;
  probes: number;
}

/** Probes per bound at most, and the time they may take: a few per cent of a short budget. */
export interface ProbeLimits {
  probes: number;
  ms: number;
}
const LIMITS: ProbeLimits = { probes: 256, ms: 50 };

type ProbeOptions = Pick<DriveOptions, 'test' | 'maxSteps' | 'mode' | 'flags' | 'nondetDomain' | 'visible'>;

export class BoundEstimator {
  private readonly view: ExecutionView;
  private readonly threads = new Uint16Array(MAX_THREADS);
  private readonly costs = new Uint16Array(MAX_THREADS);
  private decisions = new Uint16Array(256);
  private random = 1;
  private runs = 0;
  private mostThreads = 0;

  constructor(
    private readonly harness: NativeHarness, private readonly options: ProbeOptions, private readonly kind: BoundKind, private readonly limits = LIMITS,
  ) {
    this.view = liveView(harness.trace());
  }

  /** The size of `bound`'s iteration. Throws UnexplorableHarnessError when a probe finds the harness nondeterministic, or past the thread limit. */
  estimate(bound: number): BoundEstimate {
    // the same probes for the same bound, run after run
    this.random = 0x9e3779b9 ^ (bound + 1);
    this.runs = 0;
    this.mostThreads = 0;
    const started = performance.now();
    let sum = 0;
    let probes = 0;
    while (probes < this.limits.probes && (probes === 0 || performance.now() - started < this.limits.ms)) {
      sum += this.probe(bound);
      probes++;
    }
    const executions = sum / probes;
    const msPerRun = (performance.now() - started) / this.runs;
    return { bound, executions, ms: executions * msPerRun, threads: this.mostThreads, probes };
  }

  /** One random walk to a leaf: its weight if it spent exactly `bound`, else 0. */
  private probe(bound: number): number {
    let length = 0;
    let weight = 1;
    let spent = 0;
    for (;;) {
      this.run(length);
      const execution = this.view;
      let deviated = false;
      for (let step = length; step < execution.steps && !deviated; step++) {
        const taken = decisionAt(execution, step);
        let choice = taken;
        let cost = 0;
        if (execution.op[step] === Op.CHOOSE) {
          const values = execution.object[step]!;
          weight *= values;
          choice = this.below(values);
        } else {
          const count = threadsByCost(this.kind, execution.enabled, step * WORDS, runningBefore(execution, step), yieldedBefore(execution, step), this.threads, this.costs);
          // the children this bound admits here: the free ones first in threads and costs, then the costly
          let free = 0;
          let fitting = 0;
          for (let i = 0; i < count; i++) {
            const thread = this.threads[i]!;
            const cost = this.costs[i]!;
            if (spent + cost > bound) continue;
            if (cost === 0) {
              // the first costly child kept moves up to make room
              this.threads[fitting] = this.threads[free]!;
              this.costs[fitting] = this.costs[free]!;
              this.threads[free] = thread;
              this.costs[free++] = 0;
            } else {
              this.threads[fitting] = thread;
              this.costs[fitting] = cost;
            }
            fitting++;
          }
          const costly = fitting - free;
          if (fitting > 0) {
            // a costly child with the probability that spreads what is left of the bound over the
            // rest of the run (its length by the default policy): the leaves that spend exactly the
            // bound spend it anywhere, not mostly at the first nodes, as uniform choices would
            const left = Math.max(1, execution.steps - step);
            const costlyChance = free === 0 ? 1 : costly === 0 ? 0 : Math.min(0.5, (bound - spent) / left);
            const takeCostly = this.chance() < costlyChance;
            const index = takeCostly ? free + this.below(costly) : this.below(free);
            weight *= takeCostly ? costly / costlyChance : free / (1 - costlyChance);
            choice = this.threads[index]!;
            cost = this.costs[index]!;
          }
        }
        this.keep(step, taken);
        if (choice === taken) {
          spent += spentAt(this.kind, execution, step);
          continue;
        }
        // the walk leaves the run here: run again along the decisions so far, then this choice
        this.decisions[step] = choice;
        length = step + 1;
        spent += cost;
        deviated = true;
      }
      if (!deviated) return spent === bound ? weight : 0;
    }
  }

  private keep(step: number, decision: number): void {
    if (step >= this.decisions.length) {
      const grown = new Uint16Array(this.decisions.length * 2);
      grown.set(this.decisions);
      this.decisions = grown;
    }
    this.decisions[step] = decision;
  }

  /** Runs the decisions' first `length`, then the runtime's default policy. */
  private run(length: number): void {
    const { harness, options } = this;
    const outcome = harness.run(options.test, this.decisions, length, options.maxSteps, options.mode, options.flags, options.nondetDomain, options.visible);
    // the search would have met it too: it is said the same way
    if (outcome === Outcome.DIVERGENCE || outcome === Outcome.LIMIT) throw new UnexplorableHarnessError(outcome, harness.result().message);
    this.runs++;
    viewRun(this.view, harness.trace().status[0]!, outcome);
    let threads = 0;
    for (const state of this.view.threadState) if (state !== 0) threads++;
    this.mostThreads = Math.max(this.mostThreads, threads);
  }

  /** A uniformly random integer in 0..n-1. */
  private below(n: number): number {
    return this.next() % n;
  }

  /** A uniformly random number in [0, 1). */
  private chance(): number {
    return this.next() / 2 ** 32;
  }

  /** xorshift32: fast, and the same on every machine. */
  private next(): number {
    let x = this.random;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.random = x >>> 0;
    return this.random;
  }
}
