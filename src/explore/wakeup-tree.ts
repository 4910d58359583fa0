// Wakeup trees (optimal DPOR: Abdulla, Aronis, Jonsson, Sagonas 2014): at a node of the
// explored path, the step sequences still to run from there, merged where they share a
// beginning. A tree is a node whose children are the choices pending at the path node;
// each tree node is one step (its thread, and what that thread does there, to judge
// whether it commutes with a sequence being inserted), or the value a data choice takes
// (a choice is no scheduling point: it follows its thread's step, and a sequence that
// takes another value is another branch). Nodes live in a pool of typed
// arrays reused across executions: nothing is allocated once the pool is large enough.
import { Op } from '../addon/ops.js';
import type { Reversal } from './reversal.js';
import { grown } from './typed-arrays.js';

export class WakeupTrees {
  private thread = new Uint8Array(0);
  private op = new Uint8Array(0);
  private object = new Float64Array(0);
  private value = new Float64Array(0);
  private firstChild = new Int32Array(0);
  private lastChild = new Int32Array(0);
  private nextSibling = new Int32Array(0);
  private free = -1; // released nodes, linked through nextSibling
  private used = 0; // nodes ever handed out (the pool's high-water mark)

  /** An empty tree (its root's own step is never read). */
  createRoot(): number {
    return this.create(0, 0, 0, 0);
  }

  threadOf(node: number): number {
    return this.thread[node]!;
  }

  /** What the run decides at the node's step: its thread, or the value of a data choice. */
  decisionOf(node: number): number {
    return this.op[node] === Op.CHOOSE ? this.value[node]! : this.thread[node]!;
  }

  /** Whether a run that took a step `op` with `decision` followed `node` (-1: none). */
  takes(node: number, op: number, decision: number): boolean {
    return node >= 0 && (this.op[node] === Op.CHOOSE) === (op === Op.CHOOSE) && this.decisionOf(node) === decision;
  }

  /** -1 for none (and for node -1). */
  firstChildOf(node: number): number {
    return node < 0 ? -1 : this.firstChild[node]!;
  }

  /** A new childless node for a step. */
  private create(thread: number, op: number, object: number, value: number): number {
    let node = this.free;
    if (node >= 0) this.free = this.nextSibling[node]!;
    else {
      if (this.used === this.thread.length) this.grow();
      node = this.used++;
    }
    this.thread[node] = thread;
    this.op[node] = op;
    this.object[node] = object;
    this.value[node] = value;
    this.firstChild[node] = -1;
    this.lastChild[node] = -1;
    this.nextSibling[node] = -1;
    return node;
  }

  /** Adds `child` after the other children of `parent`: it is explored after them. */
  private append(parent: number, child: number): void {
    const last = this.lastChild[parent]!;
    if (last < 0) this.firstChild[parent] = child;
    else this.nextSibling[last] = child;
    this.lastChild[parent] = child;
  }

  /** Detaches the first child of `tree` (with its subtree) and returns it; -1 when none. */
  takeFirst(tree: number): number {
    const child = this.firstChild[tree]!;
    if (child < 0) return -1;
    const next = this.nextSibling[child]!;
    this.firstChild[tree] = next;
    if (next < 0) this.lastChild[tree] = -1;
    this.nextSibling[child] = -1;
    return child;
  }

  /**
   * Adds the sequence w under `root`, unless the tree already
   * leads to it: going down from the root, a child whose step can start w is followed
   * (and its step taken off w); reaching a leaf that way, or using w up, means a branch
   * already explores an execution that w extends. Otherwise what is left of w becomes a
   * new last branch where the walk stopped.
   */
  insert(root: number, w: Reversal): void {
    let tree = root;
    descend: for (;;) {
      for (let child = this.firstChild[tree]!; child >= 0; child = this.nextSibling[child]!) {
        const thread = this.thread[child]!;
        if (!w.weakInitial(thread, this.op[child]!, this.object[child]!, this.value[child]!)) continue;
        // the thread's first step in w must be the one the branch takes: a data choice with the same value, or no choice
        if (w.has(thread) && !w.startsLike(thread, this.op[child]!, this.value[child]!)) continue;
        if (this.firstChild[child]! < 0) return;
        if (w.has(thread)) w.remove(thread);
        if (w.empty) return;
        tree = child;
        continue descend;
      }
      break;
    }
    // a data choice is taken at once after its thread's step (or choice): where the walk
    // stopped after one, w's choices of that thread come first, before steps w has ahead of them
    if (tree !== root) {
      const thread = this.thread[tree]!;
      for (let choice = w.leadingChoice(thread); choice >= 0; choice = w.leadingChoice(thread)) {
        tree = this.appendEntry(tree, w, choice);
        w.remove(thread);
      }
    }
    w.forEach((entry) => {
      tree = this.appendEntry(tree, w, entry);
    });
  }

  /** Adds a node for an entry of w as the last child of `parent`, and returns it. */
  private appendEntry(parent: number, w: Reversal, entry: number): number {
    const node = this.create(w.threadAt(entry), w.opAt(entry), w.objectAt(entry), w.valueAt(entry));
    this.append(parent, node);
    return node;
  }

  /** Returns a detached node and its subtree to the pool. */
  release(tree: number): void {
    let pending = tree; // nodes to release, linked through nextSibling
    while (pending >= 0) {
      const node = pending;
      pending = this.nextSibling[node]!;
      const first = this.firstChild[node]!;
      if (first >= 0) {
        this.nextSibling[this.lastChild[node]!] = pending;
        pending = first;
      }
      this.nextSibling[node] = this.free;
      this.free = node;
    }
  }

  private grow(): void {
    const size = Math.max(256, this.thread.length * 2);
    this.thread = grown(this.thread, size);
    this.op = grown(this.op, size);
    this.object = grown(this.object, size);
    this.value = grown(this.value, size);
    this.firstChild = grown(this.firstChild, size);
    this.lastChild = grown(this.lastChild, size);
    this.nextSibling = grown(this.nextSibling, size);
  }
}
