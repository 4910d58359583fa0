// What an update writes once it reads another value (src/explore/graph/update-values.ts),
// against C's read-modify-writes on signed integers of every size, computed here with BigInt:
// the operand taken from one run's read and written values (or its argument), applied to
// another read value, gives what the runtime would record.
import { describe, expect, it } from 'vitest';

import { RmwFunction } from '../src/addon/ops.js';
import { Graph } from '../src/explore/graph/graph.js';
import { Locations } from '../src/explore/graph/locations.js';
import { noteOperand, updateWrites } from '../src/explore/graph/update-values.js';

const functions = ['EXCHANGE', 'FETCH_ADD', 'FETCH_SUB', 'FETCH_AND', 'FETCH_OR', 'FETCH_XOR', 'FETCH_NAND'] as const;

/** A value of `size` bytes as the runtime records it: sign-extended to 64 bits. */
function recorded(value: bigint, size: number): bigint {
  return BigInt.asIntN(8 * size, value);
}

function apply(name: (typeof functions)[number], read: bigint, operand: bigint, size: number): bigint {
  const result = {
    EXCHANGE: operand, FETCH_ADD: read + operand, FETCH_SUB: read - operand, FETCH_AND: read & operand,
    FETCH_OR: read | operand, FETCH_XOR: read ^ operand, FETCH_NAND: ~(read & operand),
  }[name];
  return recorded(result, size);
}

const low = (value: bigint) => Number(BigInt.asUintN(32, value));
const high = (value: bigint) => Number(BigInt.asUintN(32, value >> 32n));

/** A small deterministic generator (xorshift32) of 64-bit values, some near the edges. */
function values(seed: number): () => bigint {
  let state = seed;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return BigInt(state >>> 0);
  };
  const edges = [0n, 1n, -1n, 0x7fn, 0x80n, 0x7fffn, 0x8000n, 0x7fff_ffffn, 0x8000_0000n, 0xffff_ffffn, (1n << 63n) - 1n, 1n << 63n];
  let taken = 0;
  return () => (taken++ % 3 === 0 ? edges[Number(next() % BigInt(edges.length))]! : (next() << 32n) | next());
}

describe('update-values: what an update writes after it reads another value', () => {
  const graph = new Graph(new Locations());
  graph.reserve(1, 1);

  it.each([1, 2, 4, 8])('size %i: every function, as C computes it', (size) => {
    const draw = values(size * 7919);
    for (const name of functions) {
      for (let trial = 0; trial < 200; trial++) {
        const operand = recorded(draw(), size);
        const firstRead = recorded(draw(), size);
        const secondRead = recorded(draw(), size);
        const written = apply(name, firstRead, operand, size);
        graph.size[0] = size;
        // the runtime's argument: the operand as a double (exact below 2^53)
        noteOperand(graph, 0, RmwFunction[name], Number(operand), low(firstRead), high(firstRead), low(written), high(written));
        const known = updateWrites(graph, 0, low(secondRead), high(secondRead));
        const exact = Number.isSafeInteger(Number(operand)) || !['FETCH_AND', 'FETCH_OR', 'FETCH_NAND'].includes(name);
        expect(known).toBe(exact);
        if (!known) continue;
        const expected = apply(name, secondRead, operand, size);
        expect([graph.valueLow[0], graph.valueHigh[0]], `${name} size ${size}: ${secondRead} with ${operand}`).toEqual([low(expected), high(expected)]);
        expect([graph.expectedLow[0], graph.expectedHigh[0]]).toEqual([low(secondRead), high(secondRead)]);
      }
    }
  });
});
