// The coordinator of a parallel exploration: which worker holds which subtree (subtree.ts),
// where a subtree's backtracking above it and its end go (the subtree it came from), and
// who gives work to an idle worker. It holds no search state of its own: a worker asked to
// give work away gives the choice nearest the root of one of its subtrees (graph: the oldest
// pending item).
import type { SentError } from '../errors.js';
import { type CoordinatorMessage, type HostMessage, LOW_ALLOWANCE } from './subtree-host.js';
import type { Subtree } from './subtree.js';
import type { Shard } from './shard.js';

export interface HostPort {
  post(message: CoordinatorMessage): void;
}

interface Placement {
  /** the worker holding it (-1: not placed yet) */
  host: number;
  /** the subtree it was given away from (-1: the whole iteration), and the node there */
  parent: number;
  node: number;
  /** the parent waits for its end (bpor's does; a graph item's subtree owes its parent nothing) */
  awaited: boolean;
}

export class Coordinator {
  private readonly placed = new Map<number, Placement>();
  private readonly idle = new Set<number>();
  private readonly unplaced: { id: number; subtree: Subtree }[] = [];
  private nextId = 0;
  /** the worker asked to give work away, awaiting its answer (-1: none) */
  private asking = -1;
  private nextAsked = 0;
  /** the last worker asked had nothing to give: ask again only once something else happened */
  private emptyHanded = false;
  executions = 0;
  redundantRuns = 0;
  /** subtrees given away, over all iterations */
  given = 0;
  /** the iteration's whole search is done */
  finished = false;
  /** a subtree of the iteration left choices that need more preemptions than its bound */
  beyondBound = false;
  bug: number[] | undefined;
  unexplorable: { outcome: number; message: string } | undefined;
  /** a worker's search refused the harness */
  refused: SentError | undefined;
  /** the execution budget not yet allowed to a worker, and per worker what it was allowed and counted */
  private unallowed: number;
  private readonly allowed: number[];
  private readonly counted: number[];
  /** workers that asked for more allowance and did not get it yet (the budget had none left) */
  private readonly wanting = new Set<number>();
  /** per worker, the messages sent to it: an idle report from before the last of them is out of date */
  private readonly sent: number[];

  /**
   * `budget`: the executions all workers together may count (maxExecutions), so that they stop at it exactly;
   * `shard`: the part of the search the workers explore (shard.ts), if only a part
   */
  constructor(private readonly hosts: HostPort[], budget = Number.POSITIVE_INFINITY, private readonly shard?: Shard) {
    this.unallowed = budget;
    this.allowed = hosts.map(() => 0);
    this.counted = hosts.map(() => 0);
    this.sent = hosts.map(() => 0);
  }

  /**
   * Starts the iteration of `bound` of a search up to `maxBound`: its whole search, as one
   * subtree. An unbounded search (graph's) is one iteration, its subtrees unbounded.
   */
  start(bound: number, maxBound: number): void {
    this.finished = false;
    this.beyondBound = false;
    for (let host = 0; host < this.hosts.length; host++) this.idle.add(host);
    const iteration = Number.isFinite(maxBound) ? bound : Number.POSITIVE_INFINITY;
    this.place(-1, { prefix: [], bound: iteration, covered: [], ...(this.shard ? { shard: this.shard } : {}) });
    this.balance();
  }

  /** Whether the iteration ended: done, a bug, or a harness that cannot be explored. */
  get over(): boolean {
    return this.finished || this.bug !== undefined || this.unexplorable !== undefined || this.refused !== undefined;
  }

  onMessage(host: number, message: HostMessage): void {
    switch (message.kind) {
      case 'counts':
        this.executions += message.executions;
        this.redundantRuns += message.redundantRuns;
        this.counted[host]! += message.executions;
        if (message.wantsMore) this.wanting.add(host);
        break;
      case 'backtrack-above': {
        const parent = this.placed.get(message.id)!.parent;
        this.post(this.placed.get(parent)!.host, { kind: 'backtrack', id: parent, backtrack: message.backtrack });
        break;
      }
      case 'done': {
        const { parent, node, awaited } = this.placed.get(message.id)!;
        this.placed.delete(message.id);
        if (message.beyondBound) this.beyondBound = true;
        if (awaited) this.post(this.placed.get(parent)!.host, { kind: 'subtree-done', id: parent, node });
        // the whole iteration: bpor's first subtree ends last, graph's may end before those it gave away
        if (this.placed.size === 0) this.finished = true;
        break;
      }
      case 'gave':
        this.asking = -1;
        this.given++;
        this.place(message.id, message.subtree);
        break;
      case 'nothing-to-give':
        this.asking = -1;
        this.emptyHanded = true;
        return;
      case 'idle':
        this.allowed[host]! -= message.returned;
        this.unallowed += message.returned;
        this.wanting.delete(host);
        // sent before it saw what was sent since (a subtree, a choice to take): it says so again if still idle
        if (message.handled === this.sent[host]) this.idle.add(host);
        break;
      case 'bug':
        this.bug ??= message.decisions;
        break;
      case 'unexplorable':
        this.unexplorable ??= { outcome: message.outcome, message: message.message };
        break;
      case 'refused':
        this.refused ??= message.error;
        break;
    }
    this.emptyHanded = false;
    this.balance();
  }

  /** Executions the workers were allowed and have not counted yet: the budget they may still spend. */
  get allowedAhead(): number {
    let ahead = 0;
    // an unlimited budget has no share to keep
    for (let host = 0; host < this.hosts.length; host++) if (this.allowed[host] !== Number.POSITIVE_INFINITY) ahead += this.allowed[host]! - this.counted[host]!;
    return ahead;
  }

  /** Executions spent beside the workers (the default's PCT turns): they come off the budget. */
  spend(executions: number): void {
    if (this.unallowed !== Number.POSITIVE_INFINITY) this.unallowed = Math.max(0, this.unallowed - executions);
  }

  /** Stops every worker. */
  stop(): void {
    for (let host = 0; host < this.hosts.length; host++) this.send(host, { kind: 'stop' });
  }

  private place(parent: number, subtree: Subtree): void {
    const id = this.nextId++;
    this.unplaced.push({ id, subtree });
    this.placed.set(id, { host: -1, parent, node: subtree.prefix.length - 1, awaited: parent >= 0 && subtree.graph === undefined });
  }

  /** Gives unplaced subtrees to idle workers; asks for more while a worker is idle. */
  private balance(): void {
    if (this.over) return;
    for (const host of this.idle) {
      const next = this.unplaced.shift();
      if (!next) break;
      this.placed.get(next.id)!.host = host;
      this.post(host, { kind: 'start', id: next.id, subtree: next.subtree });
    }
    // a worker that runs low asks for more; one that got none waits for what an idle worker gives back
    for (const host of this.wanting) if (this.unallowed > 0) this.allow(host);
    if (this.idle.size === 0 || this.asking >= 0 || this.emptyHanded || this.unplaced.length > 0) return;
    // a busy worker, the next in turn; else an idle one: it may hold choices its waiting subtrees cannot take yet
    const count = this.hosts.length;
    let asked = this.nextAsked;
    for (let turn = 0; turn < count && this.idle.has(asked); turn++) asked = (asked + 1) % count;
    if (this.idle.has(asked)) asked = this.nextAsked;
    this.nextAsked = (asked + 1) % count;
    this.asking = asked;
    this.send(asked, { kind: 'give-away' });
  }

  /**
   * Allows a worker that asked more of the budget: a share of what is left, so that all of
   * it goes out while every worker has some (an idle worker gives its back: HostMessage idle).
   */
  private allow(host: number): void {
    this.wanting.delete(host);
    const more = Math.min(this.unallowed, Math.max(LOW_ALLOWANCE, Math.floor(this.unallowed / (4 * this.hosts.length))));
    if (this.unallowed !== Number.POSITIVE_INFINITY) this.unallowed -= more;
    this.allowed[host]! += more;
    this.send(host, { kind: 'allow', executions: more });
  }

  /** Sends work, or something that may make work: the worker is not idle until it says so again. */
  private post(host: number, message: CoordinatorMessage): void {
    this.idle.delete(host);
    this.send(host, message);
  }

  private send(host: number, message: CoordinatorMessage): void {
    this.sent[host]!++;
    this.hosts[host]!.post(message);
  }
}
