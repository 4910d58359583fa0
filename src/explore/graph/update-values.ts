// What a read-modify-write (Role.UPDATE: fetch_add and the like, exchange) writes, as a
// function of what it reads: a revisit or another write to read changes what it reads, and
// what it writes must follow before the graph runs (a compare-exchange reading it decides
// from that value whether it succeeds; a spinning thread whether it is woken). The run that
// added the event shows the operand: exactly from the bits for an add, subtract, xor or
// exchange, from the step's argument for an and, or, nand (not known past 2^53 in magnitude).
import { RmwFunction } from '../../addon/ops.js';
import type { Graph } from './graph.js';

const TWO_32 = 0x1_0000_0000;

/**
 * Notes the operation and operand of update `event`, which read `read` and wrote `written`
 * (32-bit halves) with `function` and the step's argument `argument` (the runtime's double).
 */
export function noteOperand(graph: Graph, event: number, rmw: number, argument: number, readLow: number, readHigh: number, writtenLow: number, writtenHigh: number): void {
  let operation: number = rmw;
  let low = 0;
  let high = 0;
  switch (rmw) {
    case RmwFunction.EXCHANGE:
      low = writtenLow;
      high = writtenHigh;
      break;
    case RmwFunction.FETCH_ADD:
    case RmwFunction.FETCH_SUB: {
      // a subtraction adds what it took: written - read, in 64 bits
      operation = RmwFunction.FETCH_ADD;
      const borrow = writtenLow < readLow ? 1 : 0;
      low = (writtenLow - readLow) >>> 0;
      high = (writtenHigh - readHigh - borrow) >>> 0;
      break;
    }
    case RmwFunction.FETCH_XOR:
      low = (writtenLow ^ readLow) >>> 0;
      high = (writtenHigh ^ readHigh) >>> 0;
      break;
    case RmwFunction.FETCH_AND:
    case RmwFunction.FETCH_OR:
    case RmwFunction.FETCH_NAND:
      if (!Number.isSafeInteger(argument)) operation = RmwFunction.NONE;
      low = argument >>> 0;
      high = Math.floor(argument / TWO_32) >>> 0;
      break;
    default:
      operation = RmwFunction.NONE;
  }
  graph.operation[event] = operation;
  graph.operandLow[event] = low;
  graph.operandHigh[event] = high;
}

/**
 * Sets what update `event` writes once it reads `readLow`/`readHigh` (and that it read it);
 * false when its operand is not known (then what it wrote before stays, marked stale by the
 * value it read: Graph.leavesValue). Values are kept as the runtime records them: sign-extended
 * from the access's size.
 */
export function updateWrites(graph: Graph, event: number, readLow: number, readHigh: number): boolean {
  const low = graph.operandLow[event]!;
  const high = graph.operandHigh[event]!;
  let writtenLow: number;
  let writtenHigh: number;
  switch (graph.operation[event]) {
    case RmwFunction.EXCHANGE:
      writtenLow = low;
      writtenHigh = high;
      break;
    case RmwFunction.FETCH_ADD: {
      const sum = readLow + low;
      writtenLow = sum >>> 0;
      writtenHigh = (readHigh + high + (sum >= TWO_32 ? 1 : 0)) >>> 0;
      break;
    }
    case RmwFunction.FETCH_XOR:
      writtenLow = (readLow ^ low) >>> 0;
      writtenHigh = (readHigh ^ high) >>> 0;
      break;
    case RmwFunction.FETCH_AND:
      writtenLow = (readLow & low) >>> 0;
      writtenHigh = (readHigh & high) >>> 0;
      break;
    case RmwFunction.FETCH_OR:
      writtenLow = (readLow | low) >>> 0;
      writtenHigh = (readHigh | high) >>> 0;
      break;
    case RmwFunction.FETCH_NAND:
      writtenLow = ~(readLow & low) >>> 0;
      writtenHigh = ~(readHigh & high) >>> 0;
      break;
    default:
      return false;
  }
  const size = graph.size[event]!;
  if (size < 8) {
    // sign-extended from the access's size, as the runtime records a value
    const shift = 32 - 8 * Math.min(size, 4);
    writtenLow = ((writtenLow << shift) >> shift) >>> 0;
    writtenHigh = (writtenLow & 0x8000_0000) !== 0 ? 0xffff_ffff : 0;
  }
  graph.valueLow[event] = writtenLow;
  graph.valueHigh[event] = writtenHigh;
  graph.expectedLow[event] = readLow;
  graph.expectedHigh[event] = readHigh;
  return true;
}
