// graph: explores SC execution graphs, one per reads-from class (TruSt: Kokologiannakis,
// Marmanis, Gladstein, Vafeiadis, POPL 2022), each graph reached from exactly one parent, so
// no set of visited graphs is kept. Every graph is run natively along a linearisation
// (linearise.ts); the run's steps past the replayed prefix are added to the graph as events,
// in the order the runtime ran them (a fixed function of the graph: the prefix is, and the
// runtime's policy past it), each pushing its alternatives: other writes a read may read,
// other co slots of a write (forward revisits), earlier reads a write may be read by
// (backward revisits, revisits.ts). A backward revisit starts a frame of its own (a copy of
// the graph restricted to what it keeps); forward ones cut the frame's graph back.
//
// Mutexes (and spin locks, and semaphores: a lock's value is the units it has, and sem_post
// a read-modify-write that adds one; and read-write locks: a read lock takes one unit, a write
// lock every one, a reader's unlock gives its unit back as sem_post does; and pthread_once:
// graph.ts, Role.ONCE; and barriers: the value is the arrivals so far, an
// arrival adds one as sem_post does, and a leave waits, as a lock does, for a write that
// completes its round, which it reads and writes back unchanged): a lock is a read-modify-write of the mutex that reads a
// free lock (the initial value or an unlock) and takes it; an attempt on a held lock is no
// event, its thread waits until the next write of the mutex, the holder's unlock (GenMC's removeCASReadIfBlocks and
// checkReconsiderReadOpts): the runtime keeps it waiting natively. So a revisit that would
// make a lock read a held lock deletes the read instead (its thread tries again past the
// unlock, reading what is co-latest then, with its own alternatives), and a lock never
// takes a held lock as a forward alternative: the orders of critical sections come from
// the atomicity-breaking alternatives (a lock reading an unlock another lock read), whose
// revisits move the earlier lock past the later critical section, as for any
// read-modify-write. No run ends with a thread parked on a lock it could take: a run where
// a waiting thread's lock is never released is a deadlock, which the runtime reports.
//
// Bounded: iteration k counts the graphs whose fewest preemptions (preemptions.ts) are
// exactly k (fewer: counted in an earlier iteration; more: in a later one). A graph's one
// parent may need more preemptions than it does (a revisit deletes what made the parent
// need them), so a bound on the parent's would lose graphs; TACAS 2023 (Marmanis,
// Kokologiannakis, Vafeiadis) explores a slack past the bound, proved where main only creates
// threads. Here the pruning is exact instead: every graph explored below a graph keeps, as
// they are, its events up to the first read a revisit may still change, and past them those
// no revisit may delete or change (stable-prefix.ts: keptLengths), so
// when those alone need more than k preemptions, nothing below is within k and it is not
// explored; otherwise it is. Past those events a thread does what the graph the item changed
// shows it doing next (its own events being as they were): a lock, or a read-modify-write,
// that must wait for one of them makes the switch away from it a preemption (noteNextPast).
// Failing runs are judged the same way (failureCounts): a bug
// that needs more than k is shown in its own iteration, so the first bug shown needs the
// fewest preemptions. A failure ends a run with the other threads where they were: the
// graphs their later events lead to lie below it only. So a failing run past the bound is
// run again with the failing thread parked there and the others going on (RunFlags.
// PARK_FAILING, no execution of the harness: the failing thread simply never runs again), and
// what that adds is explored like any run's events; a schedule of such a graph that fails
// within the bound (the others having done less or more) is run and shown (showPath). A data
// race is there whichever of its accesses runs second, and the order where the failing
// thread's access comes first may need fewer preemptions, with what that thread then does in
// the graph, and what it reads there: so a thread that fails at a race is not parked but goes
// on past it (RunFlags.RACES_GO_ON), and what it adds is explored below too. Where
// the runtime cannot park the thread (a fault in libc, which may hold a lock the others
// need), the failing run is shown as it is. The graphs below a failing run keep its events, and
// their runs may meet that failure again after them: each frame holds the failing runs its
// graph keeps as they ran (failing-prefixes.ts), and such a run is counted and shown once.
import { RunFlags } from '../../addon/addon.js';
import { Aside, MAX_THREADS, ObjectKind, Op, OpFlag, Outcome, ThreadState, hasFlag, objectKindOf, opNames } from '../../addon/ops.js';
import type { Shard } from '../shard.js';
import { type ExecutionView, type Schedule, type Strategy, type StrategyOptions, countSpent, failedWhileRunning, lastSchedulingPoint } from '../strategy.js';
import { WORDS, has } from '../thread-set.js';
import { grown } from '../typed-arrays.js';
import type { LocationBases } from '../../report/replay.js';
import type { Subtree } from '../subtree.js';
import { Graph, INIT, Kind, NONE, ONCE_CLAIMED, ONCE_DONE, Role, View, snapshotOf } from './graph.js';
import { Lineariser } from './linearise.js';
import { OnceRoutines } from './once-routines.js';
import { Locations, READ_WRITE_LOCK_UNITS } from './locations.js';
import { GraphPreemptions, Next, NextPast, RunEnd } from './preemptions.js';
import { RepeatedTurns } from './repeated-turns.js';
import { Revisits } from './revisits.js';
import { FailingPrefixes } from './failing-prefixes.js';
import { keptLengths } from './stable-prefix.js';
import { noteOperand, updateWrites } from './update-values.js';
import { UnsupportedHarnessError } from '../unsupported.js';

/** Worklist items: four ints each (what, event, with, cut). */
const Item = {
  /** read `event` reads `with` (INIT: the initial value) */
  READ_FROM: 0,
  /** write `event` goes right after `with` in co */
  CO_AFTER: 1,
  /** write `with` backward-revisits read `event`, the graph first cut after stamp `cut` */
  REVISIT: 2,
  /** choice `event` takes value `with` */
  CHOOSE: 3,
} as const;
const ITEM = 4;

/** A graph, the items still to explore from it, and the failing runs it holds as they ran. */
interface Frame {
  graph: Graph;
  work: Int32Array;
  items: number;
  failures: FailingPrefixes;
}

export class GraphStrategy implements Strategy {
  readonly name = 'graph';
  readonly bounded: boolean;
  /** the iteration's bound */
  private bound = 0;
  /** the iteration met a graph needing more preemptions than its bound */
  private pastBound = false;
  /** the last run observed lies past the bound (not counted in this iteration) */
  private runPastBound = false;
  private readonly preemptions = new GraphPreemptions();
  private readonly runEnd = new RunEnd();
  /**
   * `--shard`: the items taken outside every subtree (the first run's, and those met after a
   * subtree is done) are dealt round robin; the subtree of this shard's item (its frame depth
   * and position: what is pushed above it) is explored here, the others' are skipped.
   */
  private readonly shard: Shard | undefined;
  private dealt = 0;
  private splitDepth = -1;
  private splitAt = 0;
  private readonly frames: Frame[] = [];
  private depth = 0;
  private started = false;
  private readonly locations = new Locations();
  private readonly revisits = new Revisits();
  private readonly lineariser = new Lineariser();
  private readonly prefixView = new View();
  /** refuseUnorderedFrees: the porf view of a step on a freed block */
  private readonly stepView = new View();
  /** per thread, its last step in the run being observed */
  private readonly lastStep = new Int32Array(MAX_THREADS);
  private readonly repeatedTurns = new RepeatedTurns();
  private readonly onceRoutines = new OnceRoutines();
  private candidates = new Int32Array(64);
  private mapped = new Int32Array(64);
  /** per event, whether a backward revisit keeps it */
  private keep = new Uint8Array(64);
  /** steps of the schedule last handed out (the replayed prefix) */
  private replayed = 0;
  /** bounded: per thread, the events it had before the item being applied changed the graph, and what it does next past those kept (mayReachBound) */
  private readonly lengthBefore = new Int32Array(MAX_THREADS);
  private threadsBefore = 0;
  /**
   * bounded: how many of the parent's first events the item being applied left as they were
   * pushed; past them the parent shows what runs of other items last put there (a search that
   * took its items in another order, or a worker given it, sees other events: noteNextPast)
   */
  private parentKept = 0;
  private readonly nextPast = new NextPast();
  /** bounded: per thread, how many of its first events every graph below the item's keeps (stable-prefix.ts: keptLengths), and room to find them */
  private readonly keptLength = new Int32Array(MAX_THREADS);
  private keptStack = new Int32Array(64);
  /** per thread id, the create event last seen making it (checked before use: creatorOf) */
  private readonly createOf = new Int32Array(MAX_THREADS).fill(NONE);
  /** the last item applied, to apply again once a guessed initial value turned out wrong */
  private readonly lastItem = new Int32Array(ITEM);
  private lastItemDepth = 0;
  /** the worklist's length in that frame once the item was taken: what applying it pushed lies past it */
  private lastItemPosition = 0;
  /** a choice given another value by the last item, whose thread's choices right after it were kept, or NONE */
  private keptChoicesAfter = NONE;
  /** a failing schedule to run and show next (showPath), and whether the run observed is that one */
  private showDecisions = new Uint16Array(64);
  private showLength = 0;
  private showing = false;
  private readonly nextOf = new Int32Array(MAX_THREADS);
  private readonly aheadOf = new Int32Array(MAX_THREADS);
  /**
   * the run flags the next item taken (the last one, again) runs past failures with
   * (RunFlags.PARK_FAILING, maybe RACES_GO_ON; 0: none), and those the run observed had
   */
  private pastFailuresNext = 0;
  private pastFailures = 0;
  /** where in the current frame the items of the last item's run (and of a run shown after it) go: past that item, or all of a new frame's */
  private itemsFrom = 0;
  /** shownRan's counts */
  private readonly shownEvents = new Int32Array(MAX_THREADS);
  /** the failing run that item's run past it goes on from */
  private readonly failingRunNext = new FailingRun();
  /** that item's failing run was past the bound: a schedule of the run past it that fails within the bound is shown */
  private showPastFailure = false;
  /** the run observed is an item's (not an iteration's first run) */
  private ranItem = false;
  /** a compare-exchange revisited to read an initial value not known yet (guessed to fail), or NONE */
  private guessedCas = NONE;
  /** a read given another write by the last item (a read-from or a revisit), whose thread's choices right after it were cut, or NONE */
  private choicesCut = NONE;
  /** the exact bits of the trace's values, as 32-bit halves (views made once per trace buffer) */
  private bits: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private written: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private expected: Uint32Array<ArrayBufferLike> = new Uint32Array(0);

  /** `bases`: where this process maps the harness, to give items to workers of other processes and take theirs (giveAway, startSubtree) */
  constructor(options: Pick<StrategyOptions, 'maxBound' | 'shard'>, private readonly bases?: LocationBases) {
    this.bounded = Number.isFinite(options.maxBound);
    this.shard = options.shard;
    this.frames.push({ graph: new Graph(this.locations), work: new Int32Array(64), items: 0, failures: new FailingPrefixes() });
  }

  /**
   * Explores `subtree` of the iteration of its bound (the strategy must be new): the whole
   * search, or one item another worker's search gave away, from the graph of its frame.
   */
  startSubtree(subtree: Subtree): void {
    this.bound = subtree.bound;
    const task = subtree.graph;
    if (!task) return;
    this.locations.restore(task.locations, this.basesOr());
    const root = this.frames[0]!;
    Graph.restore(root.graph, task.graph, this.locations.count);
    root.failures.restore(task.failures);
    root.work.set(task.item);
    root.items = 1;
    this.started = true;
  }

  /**
   * Gives away the oldest pending item (the nearest the root: the largest subtree left), with
   * a copy of its frame's graph: what it explores depends on nothing else (one parent per
   * graph). In a shard, only an item of the subtree this shard owns. Undefined: none left but
   * the one this search would take next (given away, it would only move the work elsewhere).
   */
  giveAway(): Subtree | undefined {
    // the item about to run again past a failure stays: its failing run counted here; and a
    // failing order about to be shown is held for the items below before one is given away
    if (this.pastFailuresNext !== 0 || this.showLength > 0) return undefined;
    let pending = 0;
    for (let depth = 0; depth <= this.depth; depth++) pending += this.frames[depth]!.items;
    if (pending < 2) return undefined;
    for (let depth = 0; depth <= this.depth; depth++) {
      const frame = this.frames[depth]!;
      let position = 0;
      if (this.shard) {
        if (this.splitDepth < 0 || depth < this.splitDepth) continue;
        if (depth === this.splitDepth) position = this.splitAt;
      }
      if (position >= frame.items) continue;
      const at = position * ITEM;
      const item = Array.from(frame.work.subarray(at, at + ITEM));
      const failures = frame.failures.listFor(position);
      frame.work.copyWithin(at, at + ITEM, frame.items * ITEM);
      frame.items--;
      frame.failures.itemRemoved(position);
      const graph = snapshotOf(frame.graph, this.locations.count);
      const task = { graph, locations: this.locations.entries(this.basesOr()), item, failures };
      return { prefix: [], bound: this.bounded ? this.bound : Number.POSITIVE_INFINITY, covered: [], graph: task };
    }
    return undefined;
  }

  private basesOr(): LocationBases {
    if (!this.bases) throw new Error('weft internal error: a graph search split among workers without the harness\'s bases');
    return this.bases;
  }

  private get frame(): Frame {
    return this.frames[this.depth]!;
  }

  beginBound(bound: number): boolean {
    if (!this.bounded) return bound === 0;
    // nothing needed more than the last bound: every graph was counted
    if (bound > 0 && !this.pastBound) return false;
    this.bound = bound;
    this.pastBound = false;
    this.started = false;
    this.dealt = 0;
    this.splitDepth = -1;
    this.depth = 0;
    this.frames[0]!.items = 0;
    this.frames[0]!.graph.clear(this.locations.count);
    this.frames[0]!.failures.clear();
    return true;
  }

  beyondMaxBound(): boolean {
    return this.bounded && this.pastBound;
  }

  /**
   * A graph's schedule the harness did not follow: the model missed what a step does next
   * (a weft_choose right after a step whose read an item changed, where the schedule goes on
   * with another thread), or the harness is nondeterministic; the default tells which.
   */
  divergence(message: string): Error {
    return new UnsupportedHarnessError('graph', `a graph whose schedule the harness did not follow (${message})`);
  }

  /** A failing run counts (it is a bug to show) unless it needs more preemptions than the bound. */
  failureCounts(execution: ExecutionView): boolean {
    this.observe(execution);
    return !this.runPastBound;
  }

  next(): Schedule | undefined {
    this.ranItem = false;
    this.pastFailures = 0;
    this.showing = this.showLength > 0;
    if (this.showing) {
      const length = this.showLength;
      this.showLength = 0;
      return { decisions: this.showDecisions, length };
    }
    if (!this.started) {
      this.started = true;
      this.replayed = 0;
      this.itemsFrom = 0;
      this.takePastFailures();
      return { decisions: this.lineariser.decisions, length: 0, flags: this.pastFailures };
    }
    for (;;) {
      const frame = this.frame;
      if (frame.items === 0) {
        if (this.depth === 0) return undefined;
        this.depth--;
        continue;
      }
      const position = --frame.items;
      frame.failures.takeItem(position);
      // a run past a failure is only the retried item's, taken again at once
      this.takePastFailures();
      const at = position * ITEM;
      for (let field = 0; field < ITEM; field++) this.lastItem[field] = frame.work[at + field]!;
      this.lastItemDepth = this.depth;
      this.lastItemPosition = position;
      const what = this.lastItem[0]!;
      // another shard's subtree
      if (this.shard && this.aboveSplit(position) && !this.owns(position)) continue;
      if (this.bounded) this.noteThreadLengths(frame.graph);
      if (!this.apply(frame, what, this.lastItem[1]!, this.lastItem[2]!, this.lastItem[3]!) || !this.mayReachBound(frame.graph, this.lastItem[1]!)) continue;
      const steps = this.lineariser.linearise(this.frame.graph);
      if (steps < 0) continue;
      // its thread makes those choices natively right after it, where the schedule would go on with another thread
      if (this.choicesCut !== NONE && this.lineariser.stepEvent[steps - 1] !== this.choicesCut) throw choiceAfterRead(this.frame.graph.thread[this.choicesCut]!);
      this.replayed = steps;
      this.ranItem = true;
      this.itemsFrom = this.depth === this.lastItemDepth ? position : 0;
      return { decisions: this.lineariser.decisions, length: steps, flags: this.pastFailures };
    }
  }

  /** The run next goes past failures as the last run said (pastFailuresNext), or not, and then holds no failing run it goes on from. */
  private takePastFailures(): void {
    this.pastFailures = this.pastFailuresNext;
    this.pastFailuresNext = 0;
    if (this.pastFailures === 0) this.failingRunNext.thread = NONE;
  }

  /**
   * Whether the item just taken from position `position` of the current frame lies outside
   * the subtree this shard last took (then that subtree is done): every shard meets the same
   * items there, in the same order.
   */
  private aboveSplit(position: number): boolean {
    if (this.splitDepth < 0) return true;
    if (this.depth > this.splitDepth || (this.depth === this.splitDepth && position >= this.splitAt)) return false;
    this.splitDepth = -1;
    return true;
  }

  /** Deals the item above the split to a shard, round robin; this shard's becomes the subtree it explores. */
  private owns(position: number): boolean {
    const shard = this.shard!;
    if (this.dealt++ % shard.count !== shard.index - 1) return false;
    this.splitDepth = this.depth;
    this.splitAt = position;
    return true;
  }

  /** Applies one item to `frame`: false when the graph it gives is not consistent (its items stay). */
  private apply(frame: Frame, what: number, event: number, other: number, cut: number): boolean {
    const graph = frame.graph;
    this.guessedCas = NONE;
    this.choicesCut = NONE;
    this.keptChoicesAfter = NONE;
    switch (what) {
      case Item.READ_FROM:
        // its thread's choices right after it go too: it may go another way now
        this.choicesCut = graph.lastGluedAfter(event) > event ? event : NONE;
        graph.cutAfter(event);
        this.parentKept = graph.count;
        frame.failures.keepHeld(graph, event);
        return this.readFrom(frame, event, other, false);
      case Item.CO_AFTER:
        // the store's thread goes on as before: the choices it made right after it stay, to be made again
        this.cutAfterChoices(frame, event);
        this.parentKept = graph.count;
        frame.failures.keepHeld(graph, event);
        graph.unplace(event);
        graph.placeAfter(event, other);
        graph.addedMax[event] = 0;
        this.pushRevisits(frame, event);
        return true;
      case Item.CHOOSE: {
        // the choices right after it are kept, to be made again; unless the run showed that its
        // thread goes another way with this value (cut: 1, observe)
        const last = cut === 1 ? event : graph.lastGluedAfter(event);
        this.parentKept = last + 1;
        // a choice a revisit kept, made again before the revisiting write an earlier read now
        // reads: a cut after it would take that write from the read, so a frame of its own keeps
        // it (and every event up to `last`, under the same ids)
        const target = graph.readsAfter(last) ? this.keepWritesReadPast(graph, event, last) : frame;
        if (target === frame) {
          graph.cutAfter(last);
          frame.failures.keepHeld(graph, event);
        }
        for (let kept = event + 1; kept <= last; kept++) this.chooseAgain(target, kept);
        if (last > event) this.keptChoicesAfter = event;
        target.graph.valueLow[event] = other;
        // not the run's own choice: a revisit may not delete it (revisits.ts: maximal)
        target.graph.addedMax[event] = 0;
        return true;
      }
      default:
        return this.revisit(graph, event, other, cut);
    }
  }

  /**
   * A new frame for a choice's other value where an event up to `last` (the choice and the
   * choices right after it) reads a write added later: it holds the events up to `last` and the
   * porf-prefix of every such write, as the revisit that made the read read it kept them
   * (those do not depend on the choice); the choices right after a kept step past `last` are
   * kept, to be made again. Refused when that prefix holds a later step of the choice's thread.
   */
  private keepWritesReadPast(graph: Graph, event: number, last: number): Frame {
    this.reserveKeep(graph.count);
    for (let kept = 0; kept < graph.count; kept++) this.keep[kept] = kept <= last ? 1 : 0;
    for (let read = 0; read <= last; read++) {
      if (!graph.isRead(read) || graph.rf[read]! <= last) continue;
      const prefix = this.prefixView.of(graph, graph.rf[read]!, false);
      for (let later = last + 1; later < graph.count; later++) if (prefix.has(graph, later)) this.keep[later] = 1;
    }
    for (let later = last + 1; later < graph.count; later++) {
      if (this.keep[later] !== 0 && graph.thread[later] === graph.thread[event]) throw choiceBeforeRevisitingWrite(graph.thread[event]!);
      if (this.keep[later] === 0 && graph.isGluedChoice(later) && this.keep[later - 1] !== 0) this.keep[later] = CHOSEN_AGAIN;
    }
    return this.keptInNewFrame(graph, event);
  }

  /**
   * Whether the graph an item of `parent` gave (the current frame's) can lead to a graph within
   * the bound: not when the events no graph below it can change (keptLengths) need more, with
   * what the threads do next past it, where known (noteNextPast).
   */
  private mayReachBound(parent: Graph, changed: number): boolean {
    if (!this.bounded) return true;
    const graph = this.frame.graph;
    if (this.keptStack.length < 3 * graph.count) this.keptStack = new Int32Array(6 * graph.count);
    keptLengths(graph, this.keptLength, this.keptStack);
    this.noteNextPast(parent, changed, graph);
    if (this.preemptions.within(graph, this.bound, this.keptLength, this.nextPast)) return true;
    this.pastBound = true;
    return false;
  }

  /** Notes how many events each thread has in `graph`, before an item changes it (noteNextPast). */
  private noteThreadLengths(graph: Graph): void {
    for (let thread = 0; thread < graph.threads; thread++) this.lengthBefore[thread] = graph.threadLength[thread]!;
    this.threadsBefore = graph.threads;
  }

  /**
   * Per thread, what it does next past the events `graph` kept of it, where `parent` (the graph
   * the item changed) shows it: a thread whose kept events are as they were does the same next.
   * Not the thread of the event the item changed (`changed`, in `parent`) when that event is
   * kept (a lock a revisit deleted is its thread's next again), nor one whose last kept event
   * is a choice (made again, maybe otherwise), nor one that waits after a spinning turn.
   * `parent`'s events past a cut keep their fields until a run adds events; only those the
   * item left in place are read (parentKept): past them, which events a thread shows depends
   * on the order the search took the frame's items, and serial, workers and shards must prune
   * the same graphs.
   */
  private noteNextPast(parent: Graph, changed: number, graph: Graph): void {
    const changedThread = parent.thread[changed]!;
    const { role, location, units } = this.nextPast;
    for (let thread = 0; thread < graph.threads; thread++) {
      location[thread] = NONE;
      const kept = graph.threadLength[thread]!;
      if (thread === changedThread && kept > parent.index[changed]!) continue;
      if (thread >= this.threadsBefore || kept === 0 || kept >= this.lengthBefore[thread]!) continue;
      if (graph.op[graph.threadEvents[thread]![kept - 1]!] === Op.CHOOSE) continue;
      const next = parent.threadEvents[thread]![kept]!;
      if (next >= this.parentKept || parent.spinBefore(next) !== NONE) continue;
      role[thread] = parent.role[next]!;
      location[thread] = parent.location[next]!;
      units[thread] = parent.expectedLow[next]!;
    }
  }

  /** Backward revisit: a new frame holding the events before `read` and those before `write`, `read` reading `write` (or gone, a lock that would wait). */
  private revisit(graph: Graph, read: number, write: number, cut: number): boolean {
    // the choices the revisiting write's thread made right after it go with it (no scheduling point between)
    const last = graph.lastGluedAfter(cut);
    graph.cutAfter(last);
    this.parentKept = graph.count;
    this.frame.failures.keepHeld(graph, NONE);
    const prefix = this.prefixView.of(graph, write, false);
    this.reserveKeep(graph.count);
    // a lock revisited by another lock's acquisition is no event: its thread waits for the unlock (a barrier leave: for its round)
    const waits = graph.blockedReading(read, write);
    for (let event = 0; event < graph.count; event++) {
      const keep = event < read || (event === read && !waits) || prefix.has(graph, event);
      // a choice right after a kept step is made natively before anything else runs: kept, to be made again (not after
      // the revisited read, whose thread may go another way once it reads another value)
      const choice = !keep && graph.isGluedChoice(event) && event - 1 !== read && this.keep[event - 1] !== 0;
      this.keep[event] = keep ? 1 : choice ? CHOSEN_AGAIN : 0;
    }
    const child = this.keptInNewFrame(graph, read);
    const kept = child.graph;
    // the revisiting write's prefix is never revisited again (GenMC: copyGraph)
    for (let event = 0; event < kept.count; event++) if (prefix.has(kept, event)) kept.revisitable[event] = 0;
    if (waits) return true;
    const revisited = this.mapped[read]!;
    const revisiting = this.mapped[write]!;
    // its thread's choices right after it were left out: it may go another way now
    if (graph.lastGluedAfter(read) > read) this.choicesCut = revisited;
    // read maximally: `write` is the co-latest write (the revisited read's own write aside)
    let latest = kept.coLast[kept.location[revisited]!]!;
    if (latest === revisited) latest = kept.coPrev[revisited]!;
    return this.readFrom(child, revisited, revisiting, latest === revisiting);
  }

  private reserveKeep(events: number): void {
    if (this.mapped.length >= events) return;
    this.mapped = new Int32Array(events * 2);
    this.keep = new Uint8Array(events * 2);
  }

  /**
   * A frame above the current one, made the current one, holding the events of `graph` that
   * `keep` marks (mapped), those marked CHOSEN_AGAIN taking their first value again, the
   * others as items; and the current frame's failing runs of which it keeps every event as
   * it is, `changed` (the event the item changes) not among them.
   */
  private keptInNewFrame(graph: Graph, changed: number): Frame {
    const failures = this.frame.failures;
    if (this.frames.length === this.depth + 1) this.frames.push({ graph: new Graph(this.locations), work: new Int32Array(64), items: 0, failures: new FailingPrefixes() });
    const child = this.frames[++this.depth]!;
    child.items = 0;
    child.failures.copyKept(failures, graph, this.keep, changed);
    graph.copyInto(child.graph, this.keep, this.mapped, this.locations.count);
    for (let event = 0; event < graph.count; event++) if (this.keep[event] === CHOSEN_AGAIN) this.chooseAgain(child, this.mapped[event]!);
    return child;
  }

  /**
   * Cuts the graph after `event` and the choices its thread made right after it, which it
   * makes again natively before anything else runs: each takes its first value again, the
   * others as items.
   */
  private cutAfterChoices(frame: Frame, event: number): void {
    const graph = frame.graph;
    const last = graph.lastGluedAfter(event);
    graph.cutAfter(last);
    for (let choice = event + 1; choice <= last; choice++) this.chooseAgain(frame, choice);
  }

  /** A choice kept by a revisit takes its first value again, the others as items: every value is explored below it. */
  private chooseAgain(frame: Frame, choice: number): void {
    const graph = frame.graph;
    graph.valueLow[choice] = 0;
    graph.addedMax[choice] = 1;
    for (let other = graph.size[choice]! - 1; other > 0; other--) this.push(frame, Item.CHOOSE, choice, other, 0);
  }

  /**
   * `read` now reads `write`: a compare-exchange, lock or update that then writes is placed
   * right after it in co and its own revisits pushed (GenMC: completeRevisitedRMW). False
   * when that breaks atomicity (another read-modify-write read `write`).
   */
  private readFrom(frame: Frame, read: number, write: number, maximal: boolean): boolean {
    const graph = frame.graph;
    if (graph.isWrite(read)) graph.unplace(read);
    graph.readsFrom(read, write);
    graph.addedMax[read] = maximal ? 1 : 0;
    const role = graph.role[read]!;
    // a lock reads only a free lock: a revisit to a held one deletes it, no alternative names one
    let writes = role === Role.UPDATE || role === Role.LOCK || role === Role.POST || role === Role.LEAVE || role === Role.TRY || role === Role.ONCE;
    if (role === Role.UPDATE || role === Role.CAS) {
      // the value it reads now, unless an initial value not known yet
      const location = graph.location[read]!;
      const known = write !== INIT || this.locations.knowsInit(location);
      const low = !known ? 0 : write === INIT ? this.locations.initLowOf(location) : graph.valueLow[write]!;
      const high = !known ? 0 : write === INIT ? this.locations.initHighOf(location) : graph.valueHigh[write]!;
      if (role === Role.UPDATE && known) updateWrites(graph, read, low, high);
      if (role === Role.CAS) {
        if (!known) this.guessedCas = read; // guessed to fail: the run tells
        else writes = sameValue(graph.size[read]!, low, high, graph.expectedLow[read]!, graph.expectedHigh[read]!);
        graph.op[read] = writes ? Op.ATOMIC_CAS : Op.ATOMIC_CAS_FAIL;
      }
    }
    if (!writes) {
      graph.kind[read] = Kind.READ;
      return true;
    }
    graph.kind[read] = Kind.RMW;
    this.noteUnits(graph, read);
    graph.placeAfter(read, write);
    const revisits = this.pushRevisits(frame, read);
    if (this.revisits.pendingRmw(graph, read) === NONE) return true;
    // not consistent, so never run: the choices its thread makes right after it (cut, to be
    // made with what it reads now) are never in the graph, and a revisited read would have to
    // run between the two, where no scheduling point is
    if (revisits > 0 && this.choicesCut === read) throw choiceAfterRevisitingWrite(graph.thread[read]!);
    return false;
  }

  /** Pushes the backward revisits of `write` (the graph's newest write: cut after the graph's last event); returns how many. */
  private pushRevisits(frame: Frame, write: number): number {
    const graph = frame.graph;
    this.reserveCandidates(graph.count);
    const count = this.revisits.revisitsOf(graph, write, this.candidates);
    for (let i = 0; i < count; i++) this.push(frame, Item.REVISIT, this.candidates[i]!, write, graph.count - 1);
    return count;
  }

  private reserveCandidates(events: number): void {
    if (this.candidates.length < events + 1) this.candidates = new Int32Array(events * 2 + 1);
  }

  private push(frame: Frame, what: number, event: number, other: number, cut: number): void {
    const at = frame.items * ITEM;
    if (at + ITEM > frame.work.length) frame.work = grown(frame.work, frame.work.length * 2);
    frame.work[at] = what;
    frame.work[at + 1] = event;
    frame.work[at + 2] = other;
    frame.work[at + 3] = cut;
    frame.items++;
  }

  /**
   * The create event of `thread` in `graph`: the one last seen, unless a cut or a revisit's
   * copy has made that id another event since (then the create is looked up once).
   */
  private creatorOf(graph: Graph, thread: number): number {
    const seen = this.createOf[thread]!;
    if (seen !== NONE && seen < graph.count && graph.op[seen] === Op.THREAD_CREATE && graph.valueLow[seen] === thread) return seen;
    for (let event = 0; event < graph.count; event++) {
      if (graph.op[event] !== Op.THREAD_CREATE || graph.valueLow[event] !== thread) continue;
      this.createOf[thread] = event;
      return event;
    }
    throw this.divergence(`thread ${thread} started without a create in the graph`);
  }

  observe(execution: ExecutionView): boolean {
    this.runPastBound = false;
    if (this.showing) {
      // an order found must fail as the graph's run did (a race keeps its other access's
      // step), within the bound: run as it is, a thread the failing run had stopped may not
      // fail and go on, and another failure comes first, or after the order, with preemptions
      // the order does not count; one that does not shows nothing, never a bug
      if (execution.outcome === Outcome.OK || execution.outcome === Outcome.PRUNED || countSpent('preemption', execution) > this.bound) {
        this.runPastBound = true;
        return false;
      }
      // another graph below the failing run may find the same order: shown once
      return this.countFailingRun(execution, failedWhileRunning(execution), this.shownRan(execution));
    }
    this.viewBits(execution);
    const graph = this.frame.graph;
    const replayed = Math.min(this.replayed, execution.steps);
    this.onceRoutines.clear();
    for (let step = 0; step < replayed; step++) {
      const event = this.lineariser.stepEvent[step]!;
      if (!this.replays(graph, event, execution, step)) {
        // a choice the graph does not hold (the read before it was given another write, where a failing run had stopped)
        if (execution.op[step] === Op.CHOOSE && graph.op[event] !== Op.CHOOSE) throw choiceAfterRead(execution.thread[step]!);
        if (this.keptChoicesAfter !== NONE && event > this.keptChoicesAfter && event <= graph.lastGluedAfter(this.keptChoicesAfter)) {
          // with its new value the choice's thread does something else before those choices: the same item again, cutting them
          this.retryLastItem(1);
          this.runPastBound = true;
          return false;
        }
        if (event !== this.guessedCas) throw this.divergence(`step ${step} did not replay the graph's event (${opNames[execution.op[step]!]} by thread ${execution.thread[step]})`);
        // the compare-exchange read an initial value now known: the same item again, decided right
        this.noteValues(graph, event, execution, step);
        this.retryLastItem(this.lastItem[3]!);
        this.runPastBound = true;
        return false;
      }
      this.noteValues(graph, event, execution, step);
      if (graph.op[event] === Op.ONCE) this.noteOnce(graph, event, execution, step, replayed);
      const spun = graph.spins[event];
      this.noteSpin(graph, event, execution, step);
      // the graph's later events of its thread followed it as it was
      if (graph.spins[event] !== spun && graph.index[event]! + 1 < graph.threadLength[graph.thread[event]!]!) throw spinDependsOnOrder(graph.thread[event]!);
      if (graph.op[event] === Op.THREAD_CREATE) {
        graph.valueLow[event] = execution.object[step]!;
        this.createOf[execution.object[step]!] = event;
      }
    }
    this.refuseAtomicSections(execution);
    this.repeatedTurns.refuse(execution);
    if (execution.outcome === Outcome.LIVELOCK || execution.outcome === Outcome.STEP_LIMIT) this.refuseEndlessLoop(execution);
    const firstAbsorbed = graph.count;
    for (let step = replayed; step < execution.steps; step++) this.absorb(graph, execution, step);
    const lastEvent = execution.steps === 0 ? NONE : this.eventOf(execution.steps - 1, replayed, firstAbsorbed);
    this.noteRan(graph, replayed);
    const failed = failedWhileRunning(execution);
    this.addWaitingLocks(graph, execution, failed);
    this.refuseUnorderedFrees(graph, execution, replayed, firstAbsorbed);
    // the first run is every shard's: the first shard counts it
    const counts = this.shard === undefined || this.shard.index === 1 || replayed > 0;
    if (this.pastFailures !== 0) {
      // no execution of the harness: what it adds past the failure is explored below the
      // failing run's graph; where the failing run was past the bound, a schedule of this
      // graph that fails with as many preemptions as the bound is run and shown (showPath;
      // with fewer: shown in an earlier iteration)
      this.runPastBound = true;
      const failing = this.failingRunNext;
      if (failing.thread !== NONE) this.frame.failures.add(failing.thread, failing.outcome, failing.ran, failing.threads, this.itemsFrom);
      failing.thread = NONE;
      if (!this.bounded || !this.showPastFailure) return false;
      // a failure no thread can be parked at (a fault in libc) ended this run as it ended the
      // failing one: that is shown now, a bug all the same, of more preemptions
      if (!execution.threadState.includes(ThreadState.PARKED) && !execution.raceAt.some((step) => step >= 0)) {
        this.runPastBound = false;
        return counts;
      }
      const end = this.noteRunEnd(graph, execution, failed, lastEvent);
      this.noteRaces(graph, execution, end, replayed, firstAbsorbed);
      if (this.preemptions.fewestOfRun(graph, this.bound, end) === this.bound) this.showPath(graph);
      return false;
    }
    // A failure that stopped threads able to go on hides the graphs their later events lead
    // to: the same item runs again next, its failing thread parked there and the others going
    // on; at a race, the failing thread goes on as well (RunFlags.RACES_GO_ON, noteRaces). A
    // failing run the frame's graph holds as it ran (FailingPrefixes) is not counted or shown
    // again, but is explored past all the same: what this graph holds past it may differ.
    const racesGoOn = failed >= 0 && execution.outcome === Outcome.RACE;
    const parks = racesGoOn || (failed >= 0 && othersCouldGoOn(execution, failed));
    const repeated = failed >= 0 && this.repeatsFailingRun(execution, failed);
    this.showPastFailure = false;
    if (parks) {
      // the run past it replays its events as they ran: held below it
      if (!repeated) this.failingRunNext.note(graph, failed, execution.outcome, this.runEnd.ran);
      this.runAgainPastFailure(racesGoOn ? RunFlags.PARK_FAILING | RunFlags.RACES_GO_ON : RunFlags.PARK_FAILING);
    }
    this.runPastBound = repeated;
    if (!this.bounded) return counts && !repeated;
    // the run is a schedule of its graph: what it spent bounds what the graph needs
    const spent = countSpent('preemption', execution);
    const fewest = spent < this.bound ? spent : this.preemptions.fewestOfRun(graph, this.bound, this.noteRunEnd(graph, execution, failed, lastEvent), spent);
    if (failed >= 0 && fewest === this.bound && spent > this.bound) {
      // it fails within the bound in another order: run and shown in that one
      if (!repeated) this.showPath(graph);
      this.runPastBound = true;
      return false;
    }
    if (fewest > this.bound) {
      this.pastBound = this.runPastBound = true;
      this.showPastFailure = parks;
    }
    return counts && fewest === this.bound && !repeated;
  }

  /**
   * Whether a run that `failed` in is a failing run the frame's graph holds (FailingPrefixes):
   * it stopped after as many events of each thread as that one, the same thread failing in
   * the same way.
   */
  private repeatsFailingRun(execution: ExecutionView, failed: number): boolean {
    return this.frame.failures.holds(failed, execution.outcome, this.runEnd.ran, this.frame.graph.threads);
  }

  /** Whether a shown run that `failed` in, after `ran` events of each thread, counts: not when the frame's graph holds it; else held from now on. */
  private countFailingRun(execution: ExecutionView, failed: number, ran: Int32Array): boolean {
    const graph = this.frame.graph;
    if (this.frame.failures.holds(failed, execution.outcome, ran, graph.threads)) {
      this.runPastBound = true;
      return false;
    }
    this.frame.failures.add(failed, execution.outcome, ran, graph.threads, this.itemsFrom);
    return true;
  }

  /** Per thread, the events a shown run ran: a schedule of the frame's graph, a step each. */
  private shownRan(execution: ExecutionView): Int32Array {
    const ran = this.shownEvents;
    ran.fill(0, 0, this.frame.graph.threads);
    for (let step = 0; step < execution.steps; step++) ran[execution.thread[step]!]!++;
    return ran;
  }

  /**
   * Where a run past its failures may end at a race: a schedule ends at a racing access once the
   * other access ran (it ran right after `raceAfter`'s step of its thread). A data race is there
   * whichever access runs second, and its thread went on past it (RunFlags.RACES_GO_ON), so a
   * schedule may also end at the other access, once this one ran: with the racing thread's later
   * events in the graph (and below it, what they read), that order may need fewer preemptions.
   * A thread parked at its race (at its own end, or a function's return: a use after it in the
   * other order) has the first only.
   */
  private noteRaces(graph: Graph, execution: ExecutionView, end: RunEnd, replayed: number, firstAbsorbed: number): void {
    for (let thread = 0; thread < graph.threads; thread++) {
      const at = execution.raceAt[thread]!;
      if (at < 0) continue;
      if (execution.threadState[thread] !== ThreadState.PARKED) end.failsAt[thread] = this.eventOf(at, replayed, firstAbsorbed);
      const after = execution.raceAfter[thread]!;
      if (after >= 0) end.needs[thread] = this.eventOf(after, replayed, firstAbsorbed);
    }
    for (let thread = 0; thread < graph.threads; thread++) {
      const after = execution.raceAfter[thread]!;
      if (execution.raceAt[thread]! < 0 || after < 0 || execution.threadState[thread] === ThreadState.PARKED) continue;
      const other = execution.thread[after]!;
      if (end.failsAt[other] !== NONE) continue;
      end.failsAt[other] = end.needs[thread]!;
      end.needs[other] = end.failsAt[thread]!;
    }
  }

  /** The event step `step` of the run ran: one of the `replayed` steps, or absorbed in order from `firstAbsorbed`. */
  private eventOf(step: number, replayed: number, firstAbsorbed: number): number {
    return step < replayed ? this.lineariser.stepEvent[step]! : firstAbsorbed + step - replayed;
  }

  /** The run's item (or the iteration's first run) runs again next, past the failure it met, with `flags` (RunFlags.PARK_FAILING, ...). */
  private runAgainPastFailure(flags: number): void {
    this.pastFailuresNext = flags;
    if (this.ranItem) {
      this.retryLastItem(this.lastItem[3]!);
      // an order shown before it runs again is held where the item waits, for what it pushes
      this.itemsFrom = this.lastItemPosition;
      return;
    }
    this.depth = 0;
    this.frames[0]!.items = 0;
    this.frames[0]!.graph.clear(this.locations.count);
    this.frames[0]!.failures.clear();
    this.started = false;
  }

  /**
   * The schedule GraphPreemptions.fewestOfRun found becomes the next run: its events in order,
   * the choices right after a step made with it (no scheduling point between).
   */
  private showPath(graph: Graph): void {
    const { path, pathLength } = this.preemptions;
    if (this.showDecisions.length < graph.count) this.showDecisions = new Uint16Array(graph.count * 2);
    this.nextOf.fill(0, 0, graph.threads);
    this.aheadOf.fill(0, 0, graph.threads);
    let steps = 0;
    for (let at = 0; at < pathLength; at++) {
      const thread = path[at]!;
      // a choice already made with its step
      if (this.aheadOf[thread]! > 0) {
        this.aheadOf[thread]!--;
        continue;
      }
      this.nextOf[thread]!++;
      this.showDecisions[steps++] = thread;
      for (let event = graph.eventAt(thread, this.nextOf[thread]!); event !== NONE && graph.isGluedChoice(event); event = graph.eventAt(thread, this.nextOf[thread]!)) {
        this.showDecisions[steps++] = graph.valueLow[event]!;
        this.nextOf[thread]!++;
        this.aheadOf[thread]!++;
      }
    }
    this.showLength = steps;
  }

  /**
   * The last item goes back on its frame's worklist, with `cut`, in place of what applying it
   * pushed: the run showed what that application had to guess, or it runs again past a failure.
   */
  private retryLastItem(cut: number): void {
    this.depth = this.lastItemDepth;
    this.frame.items = this.lastItemPosition;
    this.push(this.frame, this.lastItem[0]!, this.lastItem[1]!, this.lastItem[2]!, cut);
  }

  /**
   * A run that ends with threads waiting on held locks (a deadlock): each waiting attempt
   * becomes a lock read of the held lock, newest, for its alternatives alone: reading an
   * earlier free lock breaks atomicity, but its revisits give that thread the lock before
   * the holder took it (GenMC adds such blocked lock reads; without them the orders where
   * a waiting thread goes first are lost). They are never replayed: every item of the
   * graph below them cuts them off first. Only a thread that ran all its events waits there:
   * a failing run may stop others before the end of the graph it replays, and the thread
   * that `failed` while running waits for nothing (its pending step is the one it ran: a race
   * right after a barrier leave, say).
   */
  private addWaitingLocks(graph: Graph, execution: ExecutionView, failed: number): void {
    for (let thread = 0; thread < graph.threads; thread++) {
      const op = execution.pendingOp[thread]!;
      if (execution.threadState[thread] !== ThreadState.RUNNABLE || thread === failed || this.runEnd.ran[thread]! < graph.threadLength[thread]!) continue;
      if (op === Op.BARRIER_LEAVE) {
        const location = this.locations.barrier(execution.pendingObject[thread]!);
        const arrivals = this.leaveTarget(graph, thread, location);
        if (graph.units(graph.coLast[location]!, location) < arrivals) this.addRead(this.frame, thread, Role.LEAVE, op, location, arrivals);
        continue;
      }
      if (op === Op.ONCE) {
        const location = this.locations.onceControl(execution.pendingObject[thread]!);
        const claim = this.latestClaim(graph, location);
        if (claim !== NONE && graph.routineEnd(claim) === NONE) this.addRead(this.frame, thread, Role.ONCE, op, location);
        continue;
      }
      if (!isAcquisition(op)) continue;
      // a semaphore nothing ran on yet is at its initial count: 0 when a wait on it waited
      const location = this.lockLocation(graph, op, execution.pendingObject[thread]!, enabledAtEnd(execution, lastSchedulingPoint(execution), thread) ? NONE : 0);
      const units = unitsTakenBy(op);
      if (this.locations.knowsInit(location) && graph.units(graph.coLast[location]!, location) < units) this.addRead(this.frame, thread, Role.LOCK, op, location, units);
    }
  }

  /**
   * Once call `event` ran at step `step`: a claim (it read the initial value) learns where its
   * routine ended (OnceRoutines), and the runtime must have claimed it too. `known`: the steps
   * whose event the graph held as the run began.
   */
  private noteOnce(graph: Graph, event: number, execution: ExecutionView, step: number, known: number): void {
    const recorded = execution.value[step]!;
    const claims = graph.rf[event] === INIT;
    if (claims !== (recorded !== 0)) throw this.divergence(`the once call at step ${step} ${claims ? 'found the routine done' : 'claimed the routine'}, not as the graph has it`);
    if (claims) this.onceRoutines.noteClaim(graph, event, step, recorded, this.lineariser.stepEvent, known);
  }

  /** The co-latest once call on `location` when it claimed the routine (a call now waits for the routine's end), else NONE. */
  private latestClaim(graph: Graph, location: number): number {
    const last = location < graph.coLast.length ? graph.coLast[location]! : NONE;
    return last !== NONE && graph.isOnceClaim(last) ? last : NONE;
  }

  /** Per thread, how many of its events in the graph the run ran: a failing run may stop before the end of the graph it replays. */
  private noteRan(graph: Graph, replayed: number): void {
    const ran = this.runEnd.ran;
    if (replayed === this.replayed) {
      ran.set(graph.threadLength.subarray(0, graph.threads));
      return;
    }
    ran.fill(0, 0, graph.threads);
    for (let step = 0; step < replayed; step++) ran[graph.thread[this.lineariser.stepEvent[step]!]!]!++;
  }

  /**
   * How the run left its threads (GraphPreemptions.fewestOfRun): what each runnable one
   * needed to go on past its events, from the step it was about to take, and the event the
   * run failed in while running. A lock, barrier or thread the graph holds nothing of stays
   * as it was at the end.
   */
  private noteRunEnd(graph: Graph, execution: ExecutionView, failed: number, lastEvent: number): RunEnd {
    const end = this.runEnd;
    end.pastFailures = this.pastFailures !== 0;
    for (let thread = 0; thread < graph.threads; thread++) {
      end.next[thread] = Next.NEVER;
      end.needs[thread] = NONE;
      // a thread parked where it failed (RunFlags.PARK_FAILING), or the one running at the run's failure
      end.failsAt[thread] = execution.threadState[thread] === ThreadState.PARKED ? graph.lastOf(thread) : thread === failed ? lastEvent : NONE;
      // its next event is in the graph (one the run did not reach, or a lock it waits for at the end)
      if (end.ran[thread]! < graph.threadLength[thread]!) continue;
      if (thread === failed || execution.threadState[thread] !== ThreadState.RUNNABLE) continue;
      const last = graph.lastOf(thread);
      if (last !== NONE && graph.spins[last] === 1) {
        const waker = graph.spinWaker(last);
        end.next[thread] = waker === NONE ? Next.NEVER : Next.AFTER;
        end.at[thread] = waker;
        continue;
      }
      const op = execution.pendingOp[thread]!;
      const object = execution.pendingObject[thread]!;
      let location = NONE;
      if (isAcquisition(op)) {
        location = this.lockLocation(graph, op, object, NONE);
        end.next[thread] = Next.UNITS;
        end.needed[thread] = unitsTakenBy(op);
      } else if (op === Op.BARRIER_LEAVE) {
        location = this.locations.barrier(object);
        end.next[thread] = Next.UNITS;
        end.needed[thread] = this.leaveTarget(graph, thread, location);
      } else if (op === Op.ONCE) {
        // the claim's routine has returned where the graph holds its end (then it had run)
        const claim = this.latestClaim(graph, this.locations.onceControl(object));
        end.at[thread] = claim === NONE ? NONE : graph.routineEnd(claim);
        end.next[thread] = claim === NONE ? Next.NOW : end.at[thread] === NONE ? Next.NEVER : Next.AFTER;
        continue;
      } else if (op === Op.THREAD_JOIN) {
        const exit = graph.lastOf(object);
        end.next[thread] = exit !== NONE && graph.op[exit] === Op.THREAD_EXIT ? Next.AFTER : Next.NEVER;
        end.at[thread] = exit;
        continue;
      } else {
        end.next[thread] = Next.NOW;
        continue;
      }
      end.at[thread] = location;
      // nothing in the graph changes it: as at the end
      if (location >= graph.coLast.length || graph.coLast[location] === NONE) end.next[thread] = enabledAtEnd(execution, lastSchedulingPoint(execution), thread) ? Next.NOW : Next.NEVER;
    }
    return end;
  }

  /** Whether step `step` ran graph event `event` as the graph has it (a create: the thread numbered may differ). */
  private replays(graph: Graph, event: number, execution: ExecutionView, step: number): boolean {
    if (execution.thread[step] !== graph.thread[event] || execution.op[step] !== graph.op[event]) return false;
    const location = graph.location[event]!;
    return location === NONE || graph.op[event] === Op.THREAD_CREATE || execution.object[step] === this.locations.addressOf(location);
  }

  /** Adds step `step`, which ran past the replayed prefix, to the graph as its newest event, with its alternatives. */
  private absorb(graph: Graph, execution: ExecutionView, step: number): void {
    this.addEvent(graph, execution, step);
    const event = graph.count - 1;
    if (graph.op[event] === Op.ONCE) this.noteOnce(graph, event, execution, step, step);
    this.onceRoutines.absorbed(graph, step, event);
    this.noteSpin(graph, event, execution, step);
    const spin = graph.spinBefore(event);
    // the wait ends with a write to the turn's location, which the thread's next access reads (after its yields)
    if (spin !== NONE && graph.op[event] !== Op.YIELD && (graph.location[event] !== graph.location[spin] || !graph.isRead(event) || graph.blockedReading(event, graph.rf[event]!)))
      throw new UnsupportedHarnessError('graph', `a spin loop whose thread went on without a write to what it read (thread ${execution.thread[step]}, step ${step})`);
  }

  /**
   * Notes whether step `step` (event `event`) ended a spinning turn (spin.c). A turn back to
   * where its thread was spins only if every location it read still holds what it read, which
   * the graph decides only when the turn read one location, one value: any other is refused,
   * whether it spun in this run or not (in another order of the same graph it may).
   */
  private noteSpin(graph: Graph, event: number, execution: ExecutionView, step: number): void {
    const aside = execution.aside[step]!;
    graph.spins[event] = (aside & Aside.SPIN) !== 0 ? 1 : 0;
    if ((aside & Aside.TURN) === 0) return;
    const thread = execution.thread[step]!;
    if (!graph.isRead(event)) throw spinLoop(thread, step);
    // the turn: the thread's steps after its previous one at the same place in the code (its yields read nothing)
    for (let before = step - 1; before >= 0; before--) {
      if (execution.thread[before] !== thread || execution.op[before] === Op.YIELD) continue;
      if (execution.pc[before] === execution.pc[step]) return;
      if (execution.object[before] !== execution.object[step] || execution.bits[before] !== execution.bits[step]) throw spinLoop(thread, step);
    }
    throw spinLoop(thread, step);
  }

  /** Adds step `step` to the graph as its newest event, with its alternatives. */
  private addEvent(graph: Graph, execution: ExecutionView, step: number): void {
    const frame = this.frame;
    const thread = execution.thread[step]!;
    const op = execution.op[step]!;
    switch (op) {
      case Op.THREAD_START: {
        const event = graph.add(thread, Role.OTHER, op, NONE);
        graph.dependsOn[event] = thread === 0 ? NONE : this.creatorOf(graph, thread);
        graph.valueLow[event] = execution.value[step] === 0 ? 0 : 1;
        return;
      }
      case Op.THREAD_EXIT:
      case Op.YIELD:
      // ordered by its thread alone: refuseUnorderedFrees checks that nothing needs more
      case Op.FREE:
        graph.add(thread, Role.OTHER, op, NONE);
        return;
      // after every other thread's end, nothing they do can come after it: its order with their steps is fixed
      case Op.MAIN_RETURN:
      case Op.PROCESS_EXIT:
      case Op.DESTROY:
        if (!this.othersJoined(graph, graph.add(thread, Role.OTHER, op, NONE))) throw new UnsupportedHarnessError('graph', `${endingWhat(op)} before every other thread's end happens before it (join them first)`);
        return;
      case Op.THREAD_JOIN: {
        const event = graph.add(thread, Role.OTHER, op, NONE);
        const exit = graph.lastOf(execution.object[step]!);
        if (exit === NONE || graph.op[exit] !== Op.THREAD_EXIT) throw this.divergence(`a join at step ${step} of a thread the graph has not finished`);
        graph.dependsOn[event] = exit;
        return;
      }
      case Op.CHOOSE: {
        const event = graph.add(thread, Role.OTHER, op, NONE);
        const value = execution.value[step]!;
        graph.valueLow[event] = value;
        graph.size[event] = execution.object[step]!;
        for (let other = execution.object[step]! - 1; other >= 0; other--) if (other !== value) this.push(frame, Item.CHOOSE, event, other, 0);
        return;
      }
      case Op.THREAD_CREATE: {
        const event = this.addRead(frame, thread, Role.UPDATE, op, this.locations.threadNumbering());
        graph.valueLow[event] = execution.object[step]!;
        this.createOf[execution.object[step]!] = event;
        this.addWrite(frame, event);
        return;
      }
      case Op.MUTEX_LOCK:
      case Op.SPIN_LOCK:
      case Op.SEM_WAIT:
      case Op.RWLOCK_READ:
      case Op.RWLOCK_WRITE:
      case Op.SEM_POST:
      // a reader's unlock gives back its unit (the lock's other readers may still hold theirs)
      case Op.RWLOCK_READ_UNLOCK: {
        const location = this.lockLocation(graph, op, execution.object[step]!, execution.value[step]!);
        const holder = graph.coLast[location]!;
        if (isMutexOp(op) && holder !== NONE && graph.units(holder, location) === 0) throw new UnsupportedHarnessError('graph', 'a recursive mutex locked twice');
        const posts = op === Op.SEM_POST || op === Op.RWLOCK_READ_UNLOCK;
        this.addWrite(frame, this.addRead(frame, thread, posts ? Role.POST : Role.LOCK, op, location, unitsTakenBy(op)));
        return;
      }
      // a timed one is an attempt after a yield of its own (a step before it): it never waits
      case Op.MUTEX_TRYLOCK:
      case Op.MUTEX_TIMEDLOCK:
      case Op.SPIN_TRYLOCK:
      case Op.SEM_TRYWAIT:
      case Op.SEM_TIMEDWAIT:
      case Op.RWLOCK_TRY_READ:
      case Op.RWLOCK_TRY_WRITE: {
        const location = this.lockLocation(graph, op, execution.object[step]!, execution.value[step]!);
        // a mutex attempt records whether it took the lock; one that did on a held mutex is a recursive one's
        if (isMutexOp(op) && execution.value[step] !== 0 && graph.units(graph.coLast[location]!, location) === 0) throw new UnsupportedHarnessError('graph', 'a recursive mutex locked twice');
        this.addWrite(frame, this.addRead(frame, thread, Role.TRY, op, location, unitsTakenBy(op)));
        return;
      }
      case Op.MUTEX_UNLOCK:
      case Op.SPIN_UNLOCK:
      case Op.RWLOCK_UNLOCK: {
        const location = this.lockLocation(graph, op, execution.object[step]!, NONE);
        const event = graph.add(thread, Role.UNLOCK, op, location);
        graph.valueLow[event] = graph.units(INIT, location);
        this.addWrite(frame, event);
        return;
      }
      case Op.SEM_GETVALUE:
        this.addRead(frame, thread, Role.LOAD, op, this.lockLocation(graph, op, execution.object[step]!, execution.value[step]!));
        return;
      case Op.ONCE:
        this.addWrite(frame, this.addRead(frame, thread, Role.ONCE, op, this.locations.onceControl(execution.object[step]!)));
        return;
      case Op.BARRIER_ARRIVE: {
        const location = this.locations.barrier(execution.object[step]!);
        const count = execution.value[step]!;
        const last = graph.coLast[location]!;
        // the runtime's count is what the rounds are made of: one barrier, one count
        if (last !== NONE && graph.op[last] === Op.BARRIER_ARRIVE && graph.size[last] !== count) throw new UnsupportedHarnessError('graph', 'a barrier initialised again with another count');
        const event = this.addRead(frame, thread, Role.POST, op, location);
        graph.size[event] = count;
        this.addWrite(frame, event);
        return;
      }
      case Op.BARRIER_LEAVE: {
        const location = this.locations.barrier(execution.object[step]!);
        this.addWrite(frame, this.addRead(frame, thread, Role.LEAVE, op, location, this.leaveTarget(graph, thread, location)));
        return;
      }
      case Op.ATOMIC_LOAD:
      case Op.PLAIN_READ:
      case Op.ATOMIC_CAS_FAIL: {
        const event = this.addRead(frame, thread, op === Op.ATOMIC_CAS_FAIL ? Role.CAS : Role.LOAD, op, this.dataLocation(execution, step));
        this.noteValues(graph, event, execution, step);
        return;
      }
      case Op.ATOMIC_STORE:
      case Op.PLAIN_WRITE: {
        const event = graph.add(thread, Role.STORE, op, this.dataLocation(execution, step));
        this.noteValues(graph, event, execution, step);
        this.addWrite(frame, event);
        return;
      }
      // an add (or, and, xor) whose result nothing uses is an update like any other here: the graph does not commute them
      case Op.ATOMIC_RMW:
      case Op.ATOMIC_ADD_UNUSED:
      case Op.ATOMIC_OR_UNUSED:
      case Op.ATOMIC_AND_UNUSED:
      case Op.ATOMIC_XOR_UNUSED:
      case Op.ATOMIC_CAS: {
        const event = this.addRead(frame, thread, op === Op.ATOMIC_CAS ? Role.CAS : Role.UPDATE, op, this.dataLocation(execution, step));
        this.noteValues(graph, event, execution, step);
        this.addWrite(frame, event);
        return;
      }
      default:
        throw new UnsupportedHarnessError('graph', `${opNames[op]} (thread ${thread}, step ${step})`);
    }
  }

  private dataLocation(execution: ExecutionView, step: number): number {
    return this.locations.data(execution.object[step]!, execution.size[step]!);
  }

  /**
   * A new read of the co-latest write, with the other writes it may read as items (an
   * acquisition or barrier leave: those it could run after). `units`: what an acquisition or
   * attempt takes, or the arrivals a barrier leave waits for (leaveTarget).
   */
  private addRead(frame: Frame, thread: number, role: number, op: number, location: number, units = 0): number {
    const graph = frame.graph;
    const event = graph.add(thread, role, op, location);
    graph.kind[event] = Kind.READ;
    graph.expectedLow[event] = units;
    const last = graph.coLast[location]!;
    graph.readsFrom(event, last === NONE ? INIT : last);
    this.reserveCandidates(graph.count);
    const count = this.revisits.coherentWrites(graph, event, this.candidates);
    for (let i = 0; i < count - 1; i++) {
      const write = this.candidates[i]!;
      if (!graph.blockedReading(event, write)) this.push(frame, Item.READ_FROM, event, write, 0);
    }
    this.noteUnits(graph, event);
    return event;
  }

  /**
   * The units an acquisition (a trylock: if they are there), post or barrier leave leaves,
   * from those of the write it reads; what a once call writes, and the routine it waits for.
   */
  private noteUnits(graph: Graph, event: number): void {
    const role = graph.role[event]!;
    if (role === Role.ONCE) {
      const rf = graph.rf[event]!;
      // one that waits (waitsAtEnd) writes nothing; a new claim's routine ends where its run shows (noteOnce)
      if (graph.blockedReading(event, rf)) return;
      graph.valueLow[event] = rf === INIT ? ONCE_CLAIMED : ONCE_DONE;
      graph.dependsOn[event] = graph.isOnceClaim(rf) ? graph.routineEnd(rf) : NONE;
      if (rf === INIT) graph.expectedLow[event] = 0;
      return;
    }
    if (role !== Role.LOCK && role !== Role.POST && role !== Role.LEAVE && role !== Role.TRY) return;
    const units = graph.units(graph.rf[event]!, graph.location[event]!);
    const wanted = graph.expectedLow[event]!;
    if (role === Role.TRY) {
      graph.valueLow[event] = units >= wanted ? units - wanted : units;
      return;
    }
    // one that cannot run waits (waitsAtEnd): it writes nothing
    if (graph.blockedReading(event, graph.rf[event]!)) return;
    // a read unlock where no reader holds the lock is the runtime's misuse: it gives nothing back
    const posts = role === Role.POST && (graph.op[event] !== Op.RWLOCK_READ_UNLOCK || (units > 0 && units < READ_WRITE_LOCK_UNITS));
    graph.valueLow[event] = posts ? units + 1 : role === Role.LOCK ? units - wanted : units;
  }

  /**
   * The arrivals a barrier leave of `thread` waits for: its round's, the round of its arrival
   * (its thread's last event), which read the arrivals before it and recorded the barrier's count.
   */
  private leaveTarget(graph: Graph, thread: number, location: number): number {
    const arrival = graph.lastOf(thread);
    if (arrival === NONE || graph.op[arrival] !== Op.BARRIER_ARRIVE || graph.location[arrival] !== location)
      throw this.divergence(`thread ${thread} leaves a barrier it did not arrive at`);
    const count = graph.size[arrival]!;
    return (Math.floor(graph.units(graph.rf[arrival]!, location) / count) + 1) * count;
  }

  /** The location of the lock a step works on; a semaphore's initial count is noted by its first step (`found`: the count that step found; NONE: not known). */
  private lockLocation(graph: Graph, op: number, object: number, found: number): number {
    if (isReadWriteLockOp(op)) return this.locations.readWriteLock(object);
    if (!isSemaphoreOp(op)) return this.locations.mutex(object);
    const location = this.locations.semaphore(object);
    if (found !== NONE && !this.locations.knowsInit(location) && graph.coLast[location] === NONE) this.locations.noteInit(location, found, 0);
    return location;
  }

  /**
   * Makes the newest event a write, placed co-last: a store with its other co slots as
   * items, a read-modify-write right after what it read; then its backward revisits.
   */
  private addWrite(frame: Frame, event: number): void {
    const graph = frame.graph;
    const location = graph.location[event]!;
    if (graph.kind[event] === Kind.READ) graph.kind[event] = Kind.RMW;
    else {
      graph.kind[event] = Kind.WRITE;
      this.reserveCandidates(graph.count);
      const count = this.revisits.coherentPlacings(graph, event, this.candidates);
      for (let i = 0; i < count - 1; i++) this.push(frame, Item.CO_AFTER, event, this.candidates[i]!, 0);
    }
    const last = graph.coLast[location]!;
    graph.placeAfter(event, last === NONE ? INIT : last);
    this.pushRevisits(frame, event);
  }

  /** Takes from the step what an event wrote or expected, and an initial value it read. */
  private noteValues(graph: Graph, event: number, execution: ExecutionView, step: number): void {
    const role = graph.role[event]!;
    if (role !== Role.LOAD && role !== Role.STORE && role !== Role.UPDATE && role !== Role.CAS) return;
    if (graph.op[event] === Op.THREAD_CREATE) return;
    graph.size[event] = execution.size[step]!;
    if (graph.isRead(event)) this.refuseUnseenWrite(graph, event, execution, step);
    if (graph.isRead(event) && graph.rf[event] === INIT) this.locations.noteInit(graph.location[event]!, this.bits[2 * step]!, this.bits[2 * step + 1]!);
    if (role === Role.STORE) {
      graph.valueLow[event] = this.bits[2 * step]!;
      graph.valueHigh[event] = this.bits[2 * step + 1]!;
    } else if (role !== Role.LOAD) {
      graph.valueLow[event] = this.written[2 * step]!;
      graph.valueHigh[event] = this.written[2 * step + 1]!;
      // an update keeps the value it read, and how what it writes follows from it
      const expected = role === Role.UPDATE ? this.bits : this.expected;
      graph.expectedLow[event] = expected[2 * step]!;
      graph.expectedHigh[event] = expected[2 * step + 1]!;
      if (role === Role.UPDATE) noteOperand(graph, event, execution.rmw[step]!, execution.value[step]!, this.bits[2 * step]!, this.bits[2 * step + 1]!, graph.valueLow[event]!, graph.valueHigh[event]!);
    }
  }

  /**
   * Refuses a read that found another value than the write the graph has it read: memory
   * changed by no event of the graph, a plain write in drf mode (no step there) to a location
   * atomics access, or the C library's. The graph cannot order such a write, so it would take
   * a compare-exchange as failing where it succeeds (a nondeterminism error) or count wrongly.
   * An initial value not known yet is what the read finds.
   */
  private refuseUnseenWrite(graph: Graph, event: number, execution: ExecutionView, step: number): void {
    const rf = graph.rf[event]!;
    const location = graph.location[event]!;
    if (rf === INIT && !this.locations.knowsInit(location)) return;
    const low = rf === INIT ? this.locations.initLowOf(location) : graph.valueLow[rf]!;
    const high = rf === INIT ? this.locations.initHighOf(location) : graph.valueHigh[rf]!;
    if (sameValue(execution.size[step]!, low, high, this.bits[2 * step]!, this.bits[2 * step + 1]!)) return;
    throw new UnsupportedHarnessError('graph', `memory that atomics access written by no step of the graph: a plain write in drf mode, or the C library's (thread ${execution.thread[step]} read another value than the graph's write at step ${step})`);
  }

  /**
   * Refuses a run where a thread was left out of the enabled set while its next step could
   * always run, other than after a spinning turn (its wait is in the graph: spinWaker): in an
   * atomic section, where schedules that linearise graphs would ask for it.
   */
  private refuseAtomicSections(execution: ExecutionView): void {
    this.lastStep.fill(-1);
    for (let step = 0; step < execution.steps; step++) {
      const thread = execution.thread[step]!;
      const op = execution.op[step]!;
      const previous = this.lastStep[thread]!;
      this.lastStep[thread] = step;
      if (previous < 0 || hasFlag(op, OpFlag.WAITS) || (execution.aside[previous]! & Aside.SPIN) !== 0) continue;
      // a choice is no scheduling point: its step's set holds its own thread alone
      for (let between = previous + 1; between < step; between++)
        if (execution.op[between] !== Op.CHOOSE && !has(execution.enabled, between * WORDS, thread)) throw new UnsupportedHarnessError('graph', `atomic sections (thread ${thread} was set aside before step ${step})`);
    }
  }

  /**
   * Refuses a run where a free's order with another thread's use of its block is no fact of
   * the graph: the graph orders a free by its thread alone, so its order with the block's
   * uses must follow from po and rf (and create and join). A step on the block (an atomic, a
   * lock in it, sc mode's plain accesses) must be porf-ordered with the free; a plain access
   * that is not ordered with it races, and so does a use after it: a race or memory bug in a
   * run that frees is refused too (which of the free and the use comes first decides where
   * the run fails, and with how few preemptions).
   */
  private refuseUnorderedFrees(graph: Graph, execution: ExecutionView, replayed: number, firstAbsorbed: number): void {
    for (let free = 0; free < execution.steps; free++) {
      if (execution.op[free] !== Op.FREE) continue;
      if (execution.outcome === Outcome.RACE || execution.outcome === Outcome.MEMORY) throw new UnsupportedHarnessError('graph', `a race or memory bug in a run that frees memory (thread ${execution.thread[free]}, step ${free})`);
      const start = execution.object[free]!;
      const end = start + Math.max(execution.value[free]!, 1);
      const freer = execution.thread[free]!;
      const freeing = this.eventOf(free, replayed, firstAbsorbed);
      this.prefixView.of(graph, freeing, false);
      for (let step = 0; step < execution.steps; step++) {
        const address = execution.object[step]!;
        if (execution.thread[step] === freer || address < start || address >= end || objectKindOf(execution.op[step]!) !== ObjectKind.ADDRESS) continue;
        const event = this.eventOf(step, replayed, firstAbsorbed);
        if (this.prefixView.has(graph, event) || this.stepView.of(graph, event, false).has(graph, freeing)) continue;
        throw new UnsupportedHarnessError('graph', `a free (thread ${freer}, step ${free}) and thread ${execution.thread[step]}'s step on the freed block (step ${step}) that neither happens before`);
      }
    }
  }

  /**
   * Refuses a run that the step bound ended in a loop that is no spin (its turns write, or
   * change its thread's state) while another thread could go on: the graphs where that one
   * goes on lie below a run that never ends, which the search cannot explore past.
   */
  private refuseEndlessLoop(execution: ExecutionView): void {
    const point = lastSchedulingPoint(execution);
    const looper = execution.thread[point]!;
    if (execution.threadState[looper] !== ThreadState.RUNNABLE || (execution.aside[point]! & Aside.SPIN) !== 0 || hasFlag(execution.pendingOp[looper]!, OpFlag.WAITS)) return;
    if (othersCouldGoOn(execution, looper)) throw new UnsupportedHarnessError('graph', `a loop that runs to the step bound without being a spin (its turns write or change its state) while other threads could go on (thread ${looper})`);
  }

  /**
   * Whether every other thread's exit happens before `end` (main's return, an exit()): in
   * every execution of the graph, they are done when it runs. Otherwise an execution where the
   * process ends first has other events, which no graph here holds: refused.
   */
  private othersJoined(graph: Graph, end: number): boolean {
    const before = this.prefixView.of(graph, end, false);
    for (let event = 0; event < graph.count; event++) {
      // every thread but main is created, started or not
      if (graph.op[event] !== Op.THREAD_CREATE || graph.valueLow[event] === graph.thread[end]) continue;
      const last = graph.lastOf(graph.valueLow[event]!);
      if (last === NONE || graph.op[last] !== Op.THREAD_EXIT || !before.has(graph, last)) return false;
    }
    // a thread but main ending the process: main is running
    return graph.thread[end] === 0;
  }

  private viewBits(execution: ExecutionView): void {
    this.bits = halves(execution.bits, this.bits);
    this.written = halves(execution.written, this.written);
    this.expected = halves(execution.expected, this.expected);
  }
}

/** A 64-bit array's values as 32-bit halves: `current` when it already is that view (the trace's arrays are reused). */
function halves(array: BigUint64Array, current: Uint32Array<ArrayBufferLike>): Uint32Array<ArrayBufferLike> {
  const same = current.buffer === array.buffer && current.byteOffset === array.byteOffset && current.length === array.length * 2;
  return same ? current : new Uint32Array(array.buffer, array.byteOffset, array.length * 2);
}

/** Whether two values agree in their first `size` bytes (little-endian halves). */
function sameValue(size: number, lowA: number, highA: number, lowB: number, highB: number): boolean {
  if (size >= 8) return lowA === lowB && highA === highB;
  const mask = size >= 4 ? 0xffffffff : (1 << (8 * size)) - 1;
  return ((lowA ^ lowB) & mask) === 0;
}

/** What a step that must follow every other thread's end does, in words. */
function endingWhat(op: number): string {
  return op === Op.MAIN_RETURN ? 'main returning' : op === Op.PROCESS_EXIT ? 'exit()' : 'destroying a synchronisation object';
}

/** A spin whose turn ends back where it was in one order of a graph and not in another: whether its thread waits is no fact of the graph. */
function spinDependsOnOrder(thread: number): UnsupportedHarnessError {
  return new UnsupportedHarnessError('graph', `a spin loop whose turn comes back to where it was in some orders of the same graph and not in others (another thread writes into thread ${thread}'s stack between its turns)`);
}

/** A turn back to where its thread was that read more than one location or value, or no graph event: whether it waits depends on other threads' writes. */
function spinLoop(thread: number, step: number): UnsupportedHarnessError {
  return new UnsupportedHarnessError('graph', `spin loops whose turn reads more than one location or value, or plain memory in drf mode (thread ${thread}, step ${step})`);
}

/**
 * A thread makes a weft_choose right after its read, with no scheduling point between, where
 * a schedule of the graph goes on with another thread (the read must precede another thread's
 * write): no schedule replays that graph.
 */
function choiceAfterRead(thread: number): UnsupportedHarnessError {
  return new UnsupportedHarnessError('graph', `weft_choose right after a read that another thread's write must follow (thread ${thread})`);
}

/**
 * A read-modify-write, given another write to read, that breaks atomicity (so no run makes
 * the choices its thread makes right after it) and whose write an earlier read of another
 * thread may read: that read runs between the two in a schedule, where the harness has no
 * scheduling point. Not modelled yet.
 */
function choiceAfterRevisitingWrite(thread: number): UnsupportedHarnessError {
  return new UnsupportedHarnessError('graph', `weft_choose right after a read-modify-write that an earlier read of another thread may read (thread ${thread})`);
}

/**
 * A choice to be made again with another value, where a write an earlier read reads needs a
 * later step of the choice's own thread: that step may not happen with the other value.
 * Not modelled yet.
 */
function choiceBeforeRevisitingWrite(thread: number): UnsupportedHarnessError {
  return new UnsupportedHarnessError('graph', `weft_choose before a step of its thread that a write an earlier read reads needs (thread ${thread})`);
}

/** Whether `thread` could have taken its next step at the run's last scheduling point `point` (lastSchedulingPoint): only the running thread ran after it. */
function enabledAtEnd(execution: ExecutionView, point: number, thread: number): boolean {
  return point >= 0 && has(execution.enabled, point * WORDS, thread);
}

/** Whether a thread but `failed` could have taken its next step when the run failed. */
function othersCouldGoOn(execution: ExecutionView, failed: number): boolean {
  const point = lastSchedulingPoint(execution);
  for (let thread = 0; thread < execution.threadState.length; thread++)
    if (thread !== failed && execution.threadState[thread] === ThreadState.RUNNABLE && enabledAtEnd(execution, point, thread)) return true;
  return false;
}

/** Whether `op` works on a semaphore (its location's units are a count; a mutex or spin lock has one). */
function isSemaphoreOp(op: number): boolean {
  return op === Op.SEM_WAIT || op === Op.SEM_TRYWAIT || op === Op.SEM_TIMEDWAIT || op === Op.SEM_POST || op === Op.SEM_GETVALUE;
}

function isReadWriteLockOp(op: number): boolean {
  return op === Op.RWLOCK_READ || op === Op.RWLOCK_WRITE || op === Op.RWLOCK_TRY_READ || op === Op.RWLOCK_TRY_WRITE || op === Op.RWLOCK_UNLOCK || op === Op.RWLOCK_READ_UNLOCK;
}

/** A step on a mutex or spin lock, which holds one unit. */
function isMutexOp(op: number): boolean {
  return !isSemaphoreOp(op) && !isReadWriteLockOp(op);
}

/** An acquisition that waits while the units it takes are not left. */
function isAcquisition(op: number): boolean {
  return op === Op.MUTEX_LOCK || op === Op.SPIN_LOCK || op === Op.SEM_WAIT || op === Op.RWLOCK_READ || op === Op.RWLOCK_WRITE;
}

/** The units of its lock an acquisition or attempt takes: a write lock's every one, else one. */
function unitsTakenBy(op: number): number {
  return op === Op.RWLOCK_WRITE || op === Op.RWLOCK_TRY_WRITE ? READ_WRITE_LOCK_UNITS : 1;
}

/** A revisit's keep mark (graph.copyInto keeps every non-zero one) for a choice kept to be made again. */
const CHOSEN_AGAIN = 2;

/** A failing run, as FailingPrefixes keeps it (thread NONE: none). */
class FailingRun {
  thread = NONE;
  outcome = 0;
  threads = 0;
  readonly ran = new Int32Array(MAX_THREADS);

  note(graph: Graph, thread: number, outcome: number, ran: Int32Array): void {
    this.thread = thread;
    this.outcome = outcome;
    this.threads = graph.threads;
    this.ran.set(ran.subarray(0, graph.threads));
  }
}
