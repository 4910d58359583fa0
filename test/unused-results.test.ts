// Atomic adds and subtracts whose result the program drops commute (ops.h: ADD): the build
// lists them from the library's code (src/compile/unused-results.ts), the runtime steps
// them as ATOMIC_ADD_UNUSED, and every reducing strategy takes two of them as independent.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { unusedResultSites } from '../src/compile/unused-results.js';
import { fixture } from './support/harness.js';

/** objdump -d --no-show-raw-insn -w text of one function, its instructions from address 0x10 on, 4 bytes apart */
function listing(...instructions: string[]): string {
  const lines = instructions.map((text, i) => `    ${(0x10 + 4 * i).toString(16)}:\t${text}`);
  return `\nDisassembly of section .text:\n\n0000000000000010 <worker>:\n${lines.join('\n')}\n\n0000000000000200 <next>:\n   200:\tret\n`;
}
const ADD = 'call   4dd0 <__tsan_atomic32_fetch_add>';
/** the return address of the call at index 1 of `listing` */
const AFTER_CALL = 0x18;

describe('finding the adds whose result nothing reads', () => {
  it('lists a call whose result register the next call or a whole write replaces', () => {
    expect(unusedResultSites(listing('mov    $0x1,%esi', ADD, 'call   1b880 <__tsan_func_exit>', 'ret'))).toEqual([AFTER_CALL]);
    expect(unusedResultSites(listing('mov    $0x1,%esi', ADD, 'mov    $0x0,%eax', 'ret'))).toEqual([AFTER_CALL]);
    expect(unusedResultSites(listing('mov    $0x1,%esi', ADD, 'xor    %eax,%eax', 'ret'))).toEqual([AFTER_CALL]);
    expect(unusedResultSites(listing('nop', 'call   4dd0 <__tsan_atomic64_fetch_sub>', 'lea    0x8(%rbx),%rdi', 'movq   $0x0,(%rdi)', 'pop    %rax', 'ret'))).toEqual([AFTER_CALL]);
  });

  it('leaves a call whose result is read, returned, or reaches what it cannot follow', () => {
    for (const after of [
      ['mov    %eax,%r12d'], ['test   %eax,%eax'], ['ret'], ['movzbl %al,%eax', 'ret'], ['mov    %dl,%al', 'mov    $0x0,%edx', 'ret'],
      ['lea    0x1(%rax),%eax', 'ret'], ['cltq', 'mov    $0x0,%eax'], ['jmp    *%rdx'], ['jmp    200 <next>'], ['call   *%rax'], ['rep stos %rax,%es:(%rdi)'], ['cpuid'],
    ])
      expect(unusedResultSites(listing('nop', ADD, ...after)), after.join('; ')).toEqual([]);
    // the call at the end of a function: what follows is another's
    expect(unusedResultSites(listing('nop', ADD))).toEqual([]);
  });

  it('follows both ways of a branch, and a loop back to the call', () => {
    const branch = (taken: string) => listing('nop', ADD, 'cmp    $0x3,%ebx', 'je     28 <worker+0x18>', 'mov    $0x0,%eax', 'ret', taken, 'ret');
    expect(unusedResultSites(branch('mov    $0x1,%eax'))).toEqual([AFTER_CALL]);
    expect(unusedResultSites(branch('mov    %eax,(%rbx)'))).toEqual([]);
    const loop = listing('mov    $0x1,%esi', ADD, 'add    $0x1,%ebx', 'cmp    $0xa,%ebx', 'jne    10 <worker>', 'call   1b880 <__tsan_func_exit>', 'ret');
    expect(unusedResultSites(loop)).toEqual([AFTER_CALL]);
  });

  it('lists ors, ands and xors too, and leaves the read-modify-writes that do not commute with their kind', () => {
    for (const kind of ['or', 'and', 'xor', 'sub'])
      expect(unusedResultSites(listing('nop', `call   4dd0 <__tsan_atomic64_fetch_${kind}>`, 'mov    $0x0,%eax', 'ret')), kind).toEqual([AFTER_CALL]);
    for (const kind of ['exchange', 'fetch_nand', 'compare_exchange_strong'])
      expect(unusedResultSites(listing('nop', `call   4dd0 <__tsan_atomic32_${kind}>`, 'mov    $0x0,%eax', 'ret')), kind).toEqual([]);
  });
});

describe('adds whose result nothing uses', () => {
  const file = fixture('por/unused_adds.c');
  const check = async (test: string, options: Parameters<typeof checkAllInterleavings>[1] = {}) =>
    (await checkAllInterleavings(file, { mode: 'sc', test, ...options })).tests[0]!;

  it('forty threads bumping one counter, or setting a bit each, are one class for every reducing strategy, and 255 threads too', async () => {
    for (const test of ['counter_bumped_by_every_thread', 'bits_set_by_every_thread']) {
      for (const strategy of ['auto', 'optimal', 'bpor'])
        expect(await check(test, { strategy }), `${test} ${strategy}`).toMatchObject({ status: 'pass', executions: 1, complete: true });
      const wide = (await checkAllInterleavings(file, { mode: 'sc', test, cflags: '-DTHREADS=255' })).tests[0]!;
      expect(wide, test).toMatchObject({ status: 'pass', executions: 1, complete: true });
    }
  });

  it('an or and an add to one object are ordered: (0 | 1) + 1 is not (0 + 1) | 1', async () => {
    for (const strategy of ['auto', 'optimal', 'bpor', 'dfs'])
      expect(await check('or_then_add', { strategy }), strategy).toMatchObject({ status: 'fail', bug: { kind: 'assertion', preemptions: 0 } });
  });

  it('a read still sees the counter between two threads\' adds, with the fewest preemptions', async () => {
    for (const strategy of ['auto', 'optimal', 'bpor', 'hbcache', 'graph', 'dfs']) {
      const test = await check('reader_between_adds', { strategy });
      expect(test, strategy).toMatchObject({ status: 'fail', bug: { kind: 'assertion' } });
      expect(test.bug!.preemptions, strategy).toBe(2);
    }
  });

  it('an add whose result is kept or tested is ordered as any read-modify-write', async () => {
    for (const strategy of ['auto', 'optimal', 'bpor'])
      expect(await check('result_kept', { strategy }), strategy).toMatchObject({ status: 'fail', bug: { kind: 'assertion', preemptions: 0 } });
    // two threads' two adds in each of their C(4, 2) orders, one execution each
    expect(await check('result_tested', { strategy: 'optimal' })).toMatchObject({ status: 'pass', executions: 6, complete: true });
  });
});
