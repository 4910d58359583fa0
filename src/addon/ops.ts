// Operation kinds and outcomes as the runtime numbers them, and what each operation
// means: all generated from runtime/ops.h (src/addon/op-table.ts). Partial-order
// reduction, happens-before, deadlock analysis and bug descriptions read these columns
// instead of listing ops of their own.
import {
  Access, Aside, BEFORE_ANY_STEP, MAX_THREADS, MemoryOrder, ObjectKind, Op, OpFlag, Outcome, THREAD_NUMBERING, TRACE_CAPACITY, ThreadState, accessCommutes, memoryOrderNames,
  opColumns, outcomeNames, RmwFunction, rmwFunctionNames,
} from './op-table.js';

export {
  Access, Aside, BEFORE_ANY_STEP, MAX_THREADS, MemoryOrder, ObjectKind, Op, OpFlag, Outcome, THREAD_NUMBERING, TRACE_CAPACITY, ThreadState, memoryOrderNames, outcomeNames,
  RmwFunction, rmwFunctionNames,
};
export type Op = (typeof Op)[keyof typeof Op];
export type Access = (typeof Access)[keyof typeof Access];
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

const column = (index: 0 | 1 | 2 | 3 | 4) => opColumns.map((row) => row[index]);
export const opNames: readonly string[] = column(0) as string[];
const accesses = Uint8Array.from(column(1) as number[]);
const potentials = Uint8Array.from(column(2) as number[]);
const objectKinds = Uint8Array.from(column(3) as number[]);
const flags = Uint16Array.from(column(4) as number[]);

/** What the step did to its object in the execution where it ran. */
export const accessOf = (op: number): Access => (accesses[op] ?? Access.WRITE) as Access;
/** What the step may do when reordered (a failed compare-exchange may then succeed and write). */
export const potentialAccessOf = (op: number): Access => (potentials[op] ?? Access.WRITE) as Access;
export const objectKindOf = (op: number): number => objectKinds[op] ?? ObjectKind.ADDRESS;
export const hasFlag = (op: number, flag: number): boolean => ((flags[op] ?? 0) & flag) !== 0;
/** Whether two accesses of this kind to one object commute: reads, and updates of one kind whose results nothing uses (ops.h). */
export const commutesWithItself = (access: Access): boolean => accessCommutes[access] === true;

/** Ops whose pc is a function's address rather than the return address of a call. */
export function pcIsFunctionStart(op: number): boolean {
  return hasFlag(op, OpFlag.STARTS_THREAD | OpFlag.ENDS_THREAD);
}
