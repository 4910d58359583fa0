// bpor or graph on several cores: worker processes (parallel-worker.ts) explore subtrees of
// each bound's search (subtree.ts) that a coordinator (coordinator.ts) hands out and routes
// between them. What either explores does not depend on the order (subtree.ts), so the
// executions are those of the serial search, bound by bound; a bound's iteration ends in
// every worker before the next starts, so a bug found has the fewest preemptions. A
// failing execution is run again here, on this process's harness, to be reported as a
// serial search reports it. An aborted signal stops the workers as a budget does, and
// then ends them.
import { type ChildProcess, fork } from 'node:child_process';
import type { NativeHarness } from '../addon/addon.js';
import { WeftError, receivedError } from '../errors.js';
import { parallelWorkerPath } from '../paths.js';
import { Coordinator } from './coordinator.js';
import { type DriveOptions, type Exploration, type FailingExecution, type StopReason, UnexplorableHarnessError } from './driver.js';
import { replaySchedule } from './replay.js';
import { relativeLocation } from '../report/replay.js';
import type { WorkerSetup } from './parallel-worker.js';
import type { HostMessage, SplitStrategy } from './subtree-host.js';
import type { Shard } from './shard.js';

/** how often budgets are checked and progress is reported */
const CHECK_MS = 50;

/** A worker process ended while the search still needed it. */
export class WorkerExitError extends WeftError {
  constructor(detail: string) {
    super('worker', `a worker process of the parallel search ended (${detail}): the search is incomplete`);
    this.name = 'WorkerExitError';
  }
}

/** Worker processes between searches, kept for the next one: starting one takes some 100 ms. */
const idleWorkers: ChildProcess[] = [];

function takeWorker(): ChildProcess {
  const kept = idleWorkers.pop();
  if (kept) return kept;
  // its own process group: Ctrl-C on a terminal signals the foreground group, and the coordinator stops its workers itself
  const child = fork(parallelWorkerPath, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
  child.on('error', () => {}); // a message to a worker that just died: its exit says what happened
  child.on('exit', () => {
    const kept = idleWorkers.indexOf(child);
    if (kept >= 0) idleWorkers.splice(kept, 1);
  });
  return child;
}

/** Whether the worker keeps this process alive: while it works for a search; an idle one ends with this process (parallel-worker.ts). */
function keepAlive(child: ChildProcess, alive: boolean): void {
  if (alive) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/** Ends a worker that waits for the next search: it exits when its channel closes (parallel-worker.ts). */
function endWorker(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.disconnect();
  });
}

/** The worker processes: how many, and the harness library each loads, with its hang timeout; the shard they explore, if only one. */
export interface Workers {
  /** the strategy whose search they split */
  strategy: SplitStrategy;
  count: number;
  library: string;
  hangTimeoutMs: number;
  shard?: Shard;
}

/**
 * Explores the test with bpor or graph, bound by bound up to options.maxBound (graph: or
 * unbounded, in one iteration), on worker processes.
 * An interlude (the default's PCT turns) runs here, on `harness`, while the workers go on.
 */
export async function driveParallel(harness: NativeHarness, options: DriveOptions, workers: Workers): Promise<Exploration> {
  const { maxBound, maxExecutions, timeBudgetMs, onProgress, onBoundStart, interlude, signal, ...runOptions } = options;
  const started = performance.now();
  // racy locations made scheduling points, as addresses of this process: the workers load the library elsewhere
  const bases = harness.result();
  const visible = Array.from(runOptions.visible, (address) => relativeLocation(address, bases));
  const children = Array.from({ length: workers.count }, takeWorker);
  for (const child of children) keepAlive(child, true);
  const coordinator = new Coordinator(children.map((child) => ({
    // a worker that died has no channel left: its end is reported by its exit
    post: (message) => child.connected && child.send(message),
  })), maxExecutions, workers.shard);
  let stoppedBy: StopReason | undefined;
  let exit: string | undefined;
  let bound = 0;
  let explored = -1;
  let boundStarted = started;
  let interludeExecutions = 0;
  let interludeFailure: FailingExecution | undefined;
  /** what onBoundStart found: it runs executions of its own here, which may find the harness unexplorable */
  let observerFound: UnexplorableHarnessError | undefined;
  const executions = () => coordinator.executions + interludeExecutions;
  /** per worker: whether it acknowledged the stop (or died); and how its listeners of this search go */
  const over = children.map(() => false);
  const detach: (() => void)[] = [];
  let allOver = () => {};
  const searchOver = new Promise<void>((resolve) => {
    allOver = resolve;
  });
  const workerOver = (i: number) => {
    over[i] = true;
    if (over.every(Boolean)) allOver();
  };
  await new Promise<void>((resolve) => {
    const end = (reason: StopReason) => {
      if (stoppedBy) return;
      stoppedBy = reason;
      clearInterval(timer);
      coordinator.stop();
      resolve();
    };
    /** Tells the observer a bound begins; false when it found the harness unexplorable (the search then ends). */
    const boundBegins = (next: number): boolean => {
      try {
        onBoundStart?.(next);
        return true;
      } catch (error) {
        if (!(error instanceof UnexplorableHarnessError)) throw error;
        observerFound = error;
        end('exhausted');
        return false;
      }
    };
    const iterationOver = () => {
      if (coordinator.bug) return end('bug');
      if (coordinator.unexplorable || coordinator.refused) return end('exhausted');
      explored = bound;
      if (!coordinator.beyondBound) return end('exhausted');
      if (bound === maxBound) return end('max-bound');
      if (!boundBegins(++bound)) return;
      boundStarted = performance.now();
      coordinator.start(bound, maxBound);
    };
    children.forEach((child, i) => {
      const onMessage = (message: HostMessage) => {
        if (message.kind === 'stopped') return workerOver(i);
        if (stoppedBy) {
          if (message.kind === 'counts') coordinator.onMessage(i, message); // the last runs count, as a serial search's do
          return;
        }
        coordinator.onMessage(i, message);
        if (coordinator.over) iterationOver();
        else if (executions() >= maxExecutions) end('max-executions');
      };
      const onExit = () => {
        workerOver(i);
        if (stoppedBy) return;
        exit = child.signalCode ? `signal ${child.signalCode}` : `exit status ${child.exitCode}`;
        end('exhausted');
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
      detach.push(() => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      });
      child.send({ kind: 'setup', strategy: workers.strategy, library: workers.library, hangTimeoutMs: workers.hangTimeoutMs, options: runOptions, visible } satisfies WorkerSetup);
    });
    let inInterlude = false;
    const timer = setInterval(async () => {
      if (inInterlude || stoppedBy) return;
      if (signal?.aborted) return end('interrupted');
      const now = performance.now();
      onProgress?.({ bound, executions: executions(), elapsedMs: now - started });
      if (now - started >= timeBudgetMs) return end('time-budget');
      if (executions() >= maxExecutions) return end('max-executions');
      inInterlude = true;
      // what the workers may still count is not the turn's
      const turn = await interlude?.({ boundMs: now - boundStarted, executionsLeft: maxExecutions - executions() - coordinator.allowedAhead });
      inInterlude = false;
      if (!turn || stoppedBy) return;
      interludeExecutions += turn.executions;
      coordinator.spend(turn.executions);
      if (turn.failure) {
        interludeFailure = turn.failure;
        end('bug');
      }
    }, CHECK_MS);
    if (boundBegins(bound)) coordinator.start(bound, maxBound);
  });
  // every worker's last counts are in once it says it stopped; then it waits for the next search
  await searchOver;
  for (const off of detach) off();
  const ending: Promise<void>[] = [];
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    // an interrupted caller (Ctrl-C: this process is about to end) wants no more searches: no process is left behind
    if (stoppedBy === 'interrupted') ending.push(endWorker(child));
    else {
      keepAlive(child, false);
      idleWorkers.push(child);
    }
  }
  await Promise.all(ending);
  if (exit) throw new WorkerExitError(exit);
  if (observerFound) throw observerFound;
  if (coordinator.unexplorable) throw new UnexplorableHarnessError(coordinator.unexplorable.outcome, coordinator.unexplorable.message);
  if (coordinator.refused) throw receivedError(coordinator.refused);
  const exploration: Exploration = {
    executions: executions(), redundantRuns: coordinator.redundantRuns, bound: explored, reachedBound: bound,
    complete: stoppedBy === 'exhausted', stoppedBy: stoppedBy!, elapsedMs: performance.now() - started,
  };
  if (interludeFailure) {
    exploration.failure = interludeFailure;
    exploration.bound = bound;
  } else if (coordinator.bug) {
    const replayed = await replaySchedule(harness, Uint16Array.from(coordinator.bug), runOptions);
    if (!replayed.failure) throw new UnexplorableHarnessError(0, 'a failing execution of a worker passed when run again');
    exploration.failure = replayed.failure;
    exploration.bound = bound;
  }
  return exploration;
}
