// The locations a graph's memory events touch, numbered for the graph's per-location arrays:
// memory addresses, locks (mutexes, spin locks and semaphores, apart from data at the same
// address), barriers, once controls, and the runtime's thread numbering (a create takes the next number: creates are
// read-modify-writes of it). Kept for the whole exploration: a location's number and initial
// value never change. A lock's value is the units an acquisition may take: a mutex starts
// with 1, a semaphore with the count sem_init gave it (the first of its steps that ran found it),
// a read-write lock with READ_WRITE_LOCK_UNITS (a read lock takes one, a write lock all).
import { TRACE_CAPACITY } from '../../addon/ops.js';
import { type LocationBases, absoluteLocation, relativeLocation } from '../../report/replay.js';
import { UnsupportedHarnessError } from '../unsupported.js';

/** a read-write lock's units: more than the read locks a run can hold at once (each takes a step) */
export const READ_WRITE_LOCK_UNITS = TRACE_CAPACITY;

const KEY_DATA = 0;
const KEY_LOCK = 1;
const THREAD_NUMBERING_KEY = 2;

/** A location as another process finds it again (graph/task.ts): its address relative to its region. */
export interface LocationEntry {
  /** KEY_DATA, KEY_LOCK, or THREAD_NUMBERING_KEY */
  key: number;
  at: string;
  size: number;
  initKnown: boolean;
  initLow: number;
  initHigh: number;
}

export class Locations {
  private readonly ids = new Map<number, number>();
  /** per location: its address (data and mutexes) and bytes accessed (data) */
  private address: number[] = [];
  private size: number[] = [];
  /** per location: whether its initial value is known (a read of it ran), and the value's low and high 32 bits */
  private initKnown: boolean[] = [];
  private initLow: number[] = [];
  private initHigh: number[] = [];

  get count(): number {
    return this.address.length;
  }

  data(address: number, size: number): number {
    const key = address * 4 + KEY_DATA;
    const known = this.ids.get(key);
    if (known !== undefined) {
      if (this.size[known] === 0) this.size[known] = size;
      else if (size !== 0 && this.size[known] !== size) throw new UnsupportedHarnessError('graph', `accesses of ${this.size[known]} and ${size} bytes to one location (address 0x${address.toString(16)})`);
      return known;
    }
    for (let other = 0; other < this.count; other++) {
      const start = this.address[other]!;
      if (this.size[other]! > 0 && start < address + size && address < start + this.size[other]!)
        throw new UnsupportedHarnessError('graph', `overlapping accesses of different sizes (addresses 0x${start.toString(16)} and 0x${address.toString(16)})`);
    }
    return this.added(key, address, size);
  }

  /** A mutex or spin lock: one unit, free at first. */
  mutex(address: number): number {
    return this.synchronisation(address, 1);
  }

  /** A semaphore: its initial count is noted by the first step of it that runs (`found`, the count that step found, when nothing ran before it). */
  semaphore(address: number): number {
    return this.ids.get(address * 4 + KEY_LOCK) ?? this.added(address * 4 + KEY_LOCK, address, 0);
  }

  /** A read-write lock: every unit free at first. */
  readWriteLock(address: number): number {
    return this.synchronisation(address, READ_WRITE_LOCK_UNITS);
  }

  /** A pthread_once control (call_once's flag): not claimed at first (graph.ts: Role.ONCE). */
  onceControl(address: number): number {
    return this.synchronisation(address, 0);
  }

  /** A barrier: its value is the arrivals so far, none at first. */
  barrier(address: number): number {
    return this.synchronisation(address, 0);
  }

  /** A synchronisation object whose value starts at `initial`. */
  private synchronisation(address: number, initial: number): number {
    const known = this.ids.get(address * 4 + KEY_LOCK);
    if (known !== undefined) return known;
    const id = this.added(address * 4 + KEY_LOCK, address, 0);
    this.noteInit(id, initial, 0);
    return id;
  }

  threadNumbering(): number {
    return this.ids.get(THREAD_NUMBERING_KEY) ?? this.added(THREAD_NUMBERING_KEY, 0, 0);
  }

  addressOf(location: number): number {
    return this.address[location]!;
  }

  knowsInit(location: number): boolean {
    return this.initKnown[location]!;
  }

  noteInit(location: number, low: number, high: number): void {
    this.initKnown[location] = true;
    this.initLow[location] = low;
    this.initHigh[location] = high;
  }

  initLowOf(location: number): number {
    return this.initLow[location]!;
  }

  initHighOf(location: number): number {
    return this.initHigh[location]!;
  }

  /** Every location, in id order, with addresses relative to `bases` (this process's). */
  entries(bases: LocationBases): LocationEntry[] {
    const keys: number[] = [];
    for (const [key, id] of this.ids) keys[id] = key;
    return keys.map((key, id) => ({
      key: key === THREAD_NUMBERING_KEY ? THREAD_NUMBERING_KEY : key % 4,
      at: key === THREAD_NUMBERING_KEY ? '' : relativeLocation(this.address[id]!, bases),
      size: this.size[id]!, initKnown: this.initKnown[id]!, initLow: this.initLow[id]!, initHigh: this.initHigh[id]!,
    }));
  }

  /** Takes the locations of `entries` (made by entries() in another process), with the same ids; this one must be new. */
  restore(entries: readonly LocationEntry[], bases: LocationBases): void {
    if (this.count > 0) throw new Error('weft internal error: locations restored over others');
    for (const entry of entries) {
      const address = entry.key === THREAD_NUMBERING_KEY ? 0 : absoluteLocation(entry.at, bases);
      const id = this.added(entry.key === THREAD_NUMBERING_KEY ? THREAD_NUMBERING_KEY : address * 4 + entry.key, address, entry.size);
      if (entry.initKnown) this.noteInit(id, entry.initLow, entry.initHigh);
    }
  }

  private added(key: number, address: number, size: number): number {
    const id = this.count;
    this.ids.set(key, id);
    this.address.push(address);
    this.size.push(size);
    this.initKnown.push(false);
    this.initLow.push(0);
    this.initHigh.push(0);
    return id;
  }
}
