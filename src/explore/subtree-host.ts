// One worker of a parallel exploration (parallel.ts): the subtrees (subtree.ts) given to it,
// each a search of its own (bpor's or graph's), explored one execution at a time on one loaded harness.
// A bpor subtree that gave some of its choices away waits for them before leaving the node
// they hang from (a graph item's owes its giver nothing); meanwhile the worker runs its other subtrees.
import type { NativeHarness } from '../addon/addon.js';
import { Outcome } from '../addon/ops.js';
import { type SentError, WeftError, sentError } from '../errors.js';
import type { LocationBases } from '../report/replay.js';
import { createBpor } from './bpor.js';
import { WAITING } from './dpor.js';
import type { DriveOptions } from './driver.js';
import { GraphStrategy } from './graph/strategy.js';
import { type ExecutionView, decisionAt, liveView, viewRun } from './strategy.js';
import type { BacktrackAbove, Subtree, SubtreeLink, SubtreeSearch } from './subtree.js';
import { refuseMixedExtents } from './unsupported.js';

/** The strategies a search splits among workers. */
export type SplitStrategy = 'bpor' | 'graph';

export function isSplitStrategy(name: string): name is SplitStrategy {
  return name === 'bpor' || name === 'graph';
}

/** Makes the search of a subtree given to a worker whose harness is mapped at `bases`. */
export type SubtreeSearchFactory = (subtree: Subtree, link: SubtreeLink) => SubtreeSearch;

export function subtreeSearches(strategy: SplitStrategy, bases: LocationBases): SubtreeSearchFactory {
  const optionsOf = ({ bound, shard }: Subtree) => ({ maxBound: bound, ...(shard ? { shard } : {}) });
  if (strategy === 'graph') {
    return (subtree) => {
      const search = new GraphStrategy(optionsOf(subtree), bases);
      search.startSubtree(subtree);
      return search;
    };
  }
  return (subtree, link) => {
    const search = createBpor(optionsOf(subtree));
    search.startSubtree(subtree, link);
    return search;
  };
}

/** a worker asks for more allowance when it has fewer executions than this left */
export const LOW_ALLOWANCE = 32;

export type RunOptions = Omit<DriveOptions, 'maxBound' | 'maxExecutions' | 'timeBudgetMs' | 'onProgress' | 'interlude'>;

/** What a worker tells the coordinator. */
export type HostMessage =
  | { kind: 'backtrack-above'; id: number; backtrack: BacktrackAbove }
  /** beyondBound: it left choices that need more preemptions than the bound */
  | { kind: 'done'; id: number; beyondBound: boolean }
  | { kind: 'gave'; id: number; subtree: Subtree }
  | { kind: 'nothing-to-give' }
  /**
   * no subtree here has an execution to run now (all done, or waiting), after `handled`
   * messages of the coordinator; the allowance left is given back (`returned`)
   */
  | { kind: 'idle'; handled: number; returned: number }
  /** executions run since the last report; wantsMore: it has work and little allowance left */
  | { kind: 'counts'; executions: number; redundantRuns: number; wantsMore: boolean }
  /** a failing execution: its decisions, to be run again where it is reported */
  | { kind: 'bug'; decisions: number[] }
  /** an execution that cannot be explored (driver.ts: UnexplorableHarnessError) */
  | { kind: 'unexplorable'; outcome: number; message: string }
  /** the search refused the harness (graph: UnsupportedHarnessError), or found it unexplorable: the error to throw where it is reported */
  | { kind: 'refused'; error: SentError }
  /** the worker stopped the search (parallel-worker.ts): nothing of it follows */
  | { kind: 'stopped' };

/** What the coordinator tells a worker. */
export type CoordinatorMessage =
  | { kind: 'start'; id: number; subtree: Subtree }
  | { kind: 'backtrack'; id: number; backtrack: BacktrackAbove }
  | { kind: 'subtree-done'; id: number; node: number }
  | { kind: 'give-away' }
  /** executions the worker may count beyond those allowed so far */
  | { kind: 'allow'; executions: number }
  | { kind: 'stop' };

interface Held {
  id: number;
  strategy: SubtreeSearch;
  waiting: boolean;
}

export class SubtreeHost {
  private readonly held: Held[] = [];
  private readonly view: ExecutionView;
  private next = 0; // the subtree that ran last: it goes on while it can
  private executions = 0;
  private redundantRuns = 0;
  /** executions this worker may still count (the budget, shared out by the coordinator) */
  private allowance = 0;
  /** it said it wants more allowance, and none came since */
  private askedForMore = false;
  /** messages of the coordinator handled so far */
  private handled = 0;
  /** the coordinator was told nothing here can run, and nothing came since */
  private idleSent = false;
  stopped = false;

  constructor(
    private readonly harness: NativeHarness,
    private readonly options: RunOptions,
    private readonly searchOf: SubtreeSearchFactory,
    private readonly send: (message: HostMessage) => void,
    /** sees every execution run (the random-program oracle): a failing one then does not stop the search */
    private readonly onExecution?: (execution: ExecutionView) => void,
  ) {
    this.view = liveView(harness.trace());
  }

  handle(message: CoordinatorMessage): void {
    this.idleSent = false;
    this.handled++;
    switch (message.kind) {
      case 'start': {
        const strategy = this.searchOf(message.subtree, { backtrackAbove: (backtrack) => this.send({ kind: 'backtrack-above', id: message.id, backtrack }) });
        this.held.push({ id: message.id, strategy, waiting: false });
        return;
      }
      case 'backtrack': {
        const held = this.find(message.id);
        held.strategy.receive!(message.backtrack);
        held.waiting = false; // its node may have a choice to take now
        return;
      }
      case 'subtree-done': {
        const held = this.find(message.id);
        held.strategy.subtreeDone!(message.node);
        held.waiting = false;
        return;
      }
      case 'give-away':
        this.giveAway();
        return;
      case 'allow':
        this.allowance += message.executions;
        this.askedForMore = false;
        return;
      case 'stop':
        this.stopped = true;
    }
  }

  /** Whether a subtree here has an execution to run, and the budget allows one. */
  get runnable(): boolean {
    return this.hasWork && this.allowance > 0;
  }

  private get hasWork(): boolean {
    return !this.stopped && this.held.some((held) => !held.waiting);
  }

  /**
   * Runs one execution of the subtree that ran last, else of the next that has one (one found
   * done or waiting is passed over). A search that refuses the harness stops this worker and
   * says why.
   */
  step(): void {
    try {
      this.stepOnce();
    } catch (error) {
      if (!(error instanceof WeftError)) throw error;
      this.flushCounts();
      this.stopped = true;
      this.send({ kind: 'refused', error: sentError(error) });
    }
  }

  private stepOnce(): void {
    for (let tries = 0; tries < this.held.length; tries++, this.next++) {
      this.next %= this.held.length;
      const held = this.held[this.next]!;
      if (held.waiting) continue;
      const schedule = held.strategy.next();
      if (schedule === WAITING) {
        held.waiting = true;
        continue;
      }
      if (!schedule) {
        this.held.splice(this.next, 1);
        this.flushCounts();
        this.send({ kind: 'done', id: held.id, beyondBound: held.strategy.beyondMaxBound() });
        return;
      }
      const o = this.options;
      const outcome = this.harness.run(o.test, schedule.decisions, schedule.length, o.maxSteps, o.mode, o.flags | (schedule.flags ?? 0), o.nondetDomain, o.visible, schedule.asleep, schedule.asleepFrom, schedule.planFrom);
      const view = this.view;
      viewRun(view, this.harness.trace().status[0]!, outcome);
      this.onExecution?.(view);
      // a search that builds schedules from a model of the harness may refuse it (driver.ts)
      const refusal = outcome === Outcome.DIVERGENCE ? held.strategy.divergence?.(this.harness.result().message) : undefined;
      if (refusal) throw refusal;
      const unexplorable = outcome === Outcome.DIVERGENCE || outcome === Outcome.LIMIT;
      const bug = !unexplorable && !this.onExecution && outcome !== Outcome.OK && outcome !== Outcome.PRUNED;
      // a failing run past the bound is shown in its own iteration (driver.ts)
      if (bug && !(held.strategy.failureCounts?.(view) ?? true)) {
        this.redundantRuns++;
        return;
      }
      if (unexplorable || bug) {
        this.countExecution();
        this.flushCounts();
        this.stopped = true;
        if (unexplorable) this.send({ kind: 'unexplorable', outcome, message: this.harness.result().message });
        else this.send({ kind: 'bug', decisions: Array.from({ length: view.steps }, (_, step) => decisionAt(view, step)) });
        return;
      }
      refuseMixedExtents(held.strategy, view);
      if (held.strategy.observe(view)) this.countExecution();
      else this.redundantRuns++;
      return;
    }
  }

  /** An execution counts, and spends one of the allowance. */
  private countExecution(): void {
    this.executions++;
    this.allowance--;
  }

  /** Tells the coordinator when nothing here can run (once, until its next message). */
  reportIdle(): void {
    if (this.hasWork || this.idleSent || this.stopped) return;
    this.flushCounts();
    this.idleSent = true;
    // an unlimited allowance is kept: nothing to share
    const returned = this.allowance === Number.POSITIVE_INFINITY ? 0 : this.allowance;
    this.allowance -= returned;
    this.askedForMore = false;
    this.send({ kind: 'idle', handled: this.handled, returned });
  }

  /** Reports the executions run since the last report, and asks for more allowance when it runs low. */
  flushCounts(): void {
    const wantsMore = this.hasWork && this.allowance < LOW_ALLOWANCE && !this.askedForMore;
    if (this.executions === 0 && this.redundantRuns === 0 && !wantsMore) return;
    if (wantsMore) this.askedForMore = true;
    this.send({ kind: 'counts', executions: this.executions, redundantRuns: this.redundantRuns, wantsMore });
    this.executions = 0;
    this.redundantRuns = 0;
  }

  /** Gives away a choice of one of the subtrees here, the oldest first (its choices are nearest the root). */
  private giveAway(): void {
    for (const held of this.held) {
      const subtree = held.strategy.giveAway();
      if (subtree) {
        this.send({ kind: 'gave', id: held.id, subtree });
        return;
      }
    }
    this.send({ kind: 'nothing-to-give' });
  }

  private find(id: number): Held {
    const held = this.held.find((h) => h.id === id);
    if (!held) throw new Error(`weft internal error: no subtree ${id} in this worker`);
    return held;
  }
}
