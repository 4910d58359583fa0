// One of n shards of a bounded search (`--shard i/n`): a fixed part of the search tree that a
// machine explores without talking to the others, merged afterwards (report/merge.ts).
//
// The partition. A run follows the runtime's default policy except where the search decided
// otherwise: its *deviations*, (node, decision) pairs. The runs that share their first two
// deviations make one subtree, and a stable hash of those pairs names the shard that owns it.
// A run with fewer deviations is a unit of its own, owned by the hash of those it has; every
// shard runs such runs (the subtrees below them start from their nodes), and only the owner
// counts them. A shard knows whose a subtree is before it runs any of it, so nothing else is
// run by more than one shard.
//
// Why each subtree is explored as in one search. `dfs` takes every choice at every node: a
// subtree's runs are the same wherever it is explored. `bpor` finds a node's choices through
// races in the runs below it, and a node that runs of several subtrees pass through (fewer
// than two deviations before it) belongs to no one subtree. So a sharded `bpor` takes every
// thread at such nodes (within the bound): what any subtree could add there is taken
// already, and inside a subtree only its own runs backtrack. Every shard explores its
// subtrees as that one search would — a search that takes more choices than `bpor` alone,
// so the shards together may run more executions than one `bpor` (as many on the
// work-stealing queue; twice as many on 4 readers and a writer), never fewer behaviours.
// Optimal DPOR cannot be split this way: its wakeup sequences carry work from one subtree
// into another.
import { OptionError } from '../errors.js';

export interface Shard {
  /** 1 … count */
  index: number;
  count: number;
}

/**
 * Subtrees share their first two deviations. One alone leaves the work uneven (measured, 4
 * shards of dfs on 3 × 3 locked increments at bound 4: the largest shard ran 48% of it;
 * with two 31%, with three 28%), and every split level makes the runs of every shard that
 * pass through it more: for `bpor`, all of a node's threads (Deviations.shared).
 */
const SHARD_DEPTH = 2;

/** at most this many shards */
export const MAX_SHARDS = 1024;

/** `i/n`, as `--shard` and Vitest write it. */
export function parseShard(text: string, name: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  return checkShard({ index: match ? Number(match[1]) : Number.NaN, count: match ? Number(match[2]) : Number.NaN }, name, `'${text}'`);
}

/** A shard with 1 ≤ index ≤ count ≤ MAX_SHARDS; `given` is how the user wrote it, for the message. */
export function checkShard(shard: Shard, name: string, given: string): Shard {
  const { index, count } = shard;
  if (!(Number.isInteger(index) && Number.isInteger(count) && count >= 1 && count <= MAX_SHARDS && index >= 1 && index <= count))
    throw new OptionError(`${name} needs i/n with 1 ≤ i ≤ n ≤ ${MAX_SHARDS} (shard i of n), got ${given}`);
  return { index, count };
}

export function shardText(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * A path's first SHARD_DEPTH deviations from the runtime's default policy, and whether what it
 * leads to is this shard's. The runs that share their first SHARD_DEPTH deviations make one
 * subtree, named by a hash of those (node, decision) pairs; a run with fewer deviations is
 * its own unit, but the runs below it may fall to any shard, so every shard runs it (and
 * only its owner counts it). Deeper splits spread the work more evenly (the subtrees of a
 * first deviation near the root hold most runs) and cost more runs made by every shard.
 */
export class Deviations {
  private readonly nodes = new Uint32Array(SHARD_DEPTH);
  private readonly decisions = new Uint16Array(SHARD_DEPTH);
  private count = 0;

  constructor(readonly shard: Shard) {}

  /** A path from the root (none), or from a prefix whose deviations `saved` kept. */
  startFrom(saved?: readonly number[]): void {
    this.count = 0;
    for (let at = 0; saved && at < saved.length; at += 2) this.took(saved[at]!, saved[at + 1]!);
  }

  /** The path takes `decision` at `node` in place of what it took there (the nodes after it are dropped). */
  took(node: number, decision: number): void {
    this.count = this.before(node);
    if (this.count === SHARD_DEPTH) return;
    this.nodes[this.count] = node;
    this.decisions[this.count++] = decision;
  }

  /** The first deviations of the path taken up to `node`, with `decision` there: (node, decision) pairs, for a prefix kept for later. */
  savedWith(node: number, decision: number): number[] {
    const saved: number[] = [];
    const before = this.before(node);
    for (let at = 0; at < before; at++) saved.push(this.nodes[at]!, this.decisions[at]!);
    if (before < SHARD_DEPTH) saved.push(node, decision);
    return saved;
  }

  /** Whether taking `decision` at `node` leads into this shard's part: into a unit every shard runs, or into its own subtree. */
  ownsWith(node: number, decision: number): boolean {
    const before = this.before(node);
    if (before + 1 < SHARD_DEPTH) return true;
    let hash = hashed(this.nodes, this.decisions, Math.min(before, SHARD_DEPTH));
    if (before < SHARD_DEPTH) hash = step(hash, node, decision);
    return this.isMine(hash);
  }

  /** Whether runs through `node` can fall to different shards: fewer than SHARD_DEPTH deviations come before it. */
  shared(node: number): boolean {
    return this.count < SHARD_DEPTH || this.nodes[SHARD_DEPTH - 1]! >= node;
  }

  /** Whether the run the path just took at `node` is to be run here: a unit every shard runs, or this shard's subtree. */
  admits(node: number): boolean {
    return this.count < SHARD_DEPTH || this.nodes[SHARD_DEPTH - 1] !== node || this.owned();
  }

  /** Whether the path's run, or the subtree it lies in, is this shard's. */
  owned(): boolean {
    return this.isMine(hashed(this.nodes, this.decisions, this.count));
  }

  /** How many of the path's first deviations come before `node`. */
  private before(node: number): number {
    let count = this.count;
    while (count > 0 && this.nodes[count - 1]! >= node) count--;
    return count;
  }

  private isMine(hash: number): boolean {
    return hash % this.shard.count === this.shard.index - 1;
  }
}

/** The hash that names the unit of the first `count` deviations: the same on every machine. */
function hashed(nodes: Uint32Array, decisions: Uint16Array, count: number): number {
  let hash = 0x2545f491;
  for (let at = 0; at < count; at++) hash = step(hash, nodes[at]!, decisions[at]!);
  return hash;
}

function step(hash: number, node: number, decision: number): number {
  return mix(hash ^ mix(Math.imul(node + 1, 0x9e3779b1) ^ decision));
}

/** murmur3's 32-bit finaliser: every input bit moves the result. */
function mix(key: number): number {
  let h = key >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
