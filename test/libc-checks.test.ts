// The C library functions that read or write the harness's memory inside libc, where no
// instrumentation sees it (the scanf family, the number parsers, strspn, strsep, read, …): a
// misuse of each is a reported bug, and their correct use passes.
import { describe, expect, it } from 'vitest';

import { type TestResult, checkAllInterleavings } from '../src/index.js';
import { refusalReason } from '../src/compile/symbols.js';
import { fixture } from './support/harness.js';

const file = 'detectors/libc_checks.c';
let all: Promise<Map<string, TestResult>> | undefined;

/** every test of the fixture, checked once */
function results(): Promise<Map<string, TestResult>> {
  all ??= checkAllInterleavings(fixture(file)).then((result) => new Map(result.tests.map((test) => [test.name, test])));
  return all;
}

const useAfterFree = /use after free/;
const outOfBounds = /out of bounds/;

describe('the scanf family checks what it writes through its arguments, and sscanf its text', () => {
  it.each([
    ['sscanf_into_a_freed_block', useAfterFree],
    ['sscanf_string_past_a_block', outOfBounds],
    ['sscanf_of_a_freed_text', useAfterFree],
    ['sscanf_characters_past_a_block', outOfBounds],
    ['sscanf_scan_set_past_a_block', outOfBounds],
    ['sscanf_count_into_a_freed_block', useAfterFree],
    ['sscanf_long_past_a_block', outOfBounds],
    ['vsscanf_into_a_freed_block', useAfterFree],
    ['fscanf_string_past_a_block', outOfBounds],
    ['vfscanf_into_a_freed_block', useAfterFree],
    ['sscanf_allocated_freed_twice', /double free/],
  ])('%s', async (name, message) => {
    const test = (await results()).get(name)!;
    expect(test.bug).toMatchObject({ kind: 'memory', message: expect.stringMatching(message) });
  });

  it.each(['sscanf_races', 'sscanf_text_races', 'fscanf_races'])('%s: a race with the other thread', async (name) => {
    expect((await results()).get(name)!.bug?.kind).toBe('race');
  });

  it('exactly the bytes written are checked: a conversion that fails writes nothing, and %10s of "abc" writes 4 bytes; %m\'s block is weft\'s', async () => {
    expect((await results()).get('correct_scans')).toMatchObject({ status: 'pass', complete: true });
  });
});

describe('built with -std=gnu89, glibc\'s pre-C99 scanf (plain sscanf, where %as allocates) is checked the same way', () => {
  it.each([
    ['sscanf_into_a_freed_block', useAfterFree],
    ['fscanf_string_past_a_block', outOfBounds],
    ['sscanf_allocated_freed_twice', /double free/],
  ])('%s', async (name, message) => {
    const result = await checkAllInterleavings(fixture(file), { test: name, cflags: '-std=gnu89' });
    expect(result.tests[0]!.bug).toMatchObject({ kind: 'memory', message: expect.stringMatching(message) });
  });

  it('its correct use passes, and %as\'s block is weft\'s', async () => {
    const result = await checkAllInterleavings(fixture(file), { cflags: '-std=gnu89' });
    for (const name of ['correct_scans', 'pre_c99_allocation'])
      expect(result.tests.find((test) => test.name === name)).toMatchObject({ status: 'pass', complete: true });
  });
});

describe('the other string and memory functions libc leaves unchecked', () => {
  it.each<readonly [string, RegExp]>([
    ...['atoi', 'atol', 'atoll', 'strtol', 'strtoul', 'strtoll', 'strtoull', 'strtod', 'strtof', 'strtold', 'strspn', 'strcspn', 'strpbrk',
      'strcasecmp', 'strncasecmp', 'strcoll', 'index', 'rindex', 'strsep', 'strtok_r'].map((name) => [`${name}_of_a_freed_text`, useAfterFree] as const),
    ['strtol_end_into_a_freed_block', useAfterFree],
    ['explicit_bzero_of_a_freed_block', useAfterFree],
    ['read_into_a_freed_block', useAfterFree],
    ...['memmem', 'mempcpy', 'stpncpy', 'memccpy', 'bzero', 'strerror_r', 'strxfrm', 'pread'].map((name) => [`${name}_past_a_block`, outOfBounds] as const),
  ])('%s', async (name, message) => {
    const test = (await results()).get(name)!;
    expect(test.bug).toMatchObject({ kind: 'memory', message: expect.stringMatching(message) });
  });

  it.each(['strtol_races', 'strcasecmp_races', 'strsep_races', 'read_races'])('%s: a race with the other thread', async (name) => {
    expect((await results()).get(name)!.bug?.kind).toBe('race');
  });

  it('their correct use passes: a parse or comparison reads only as far as it looked, a short read writes what it read', async () => {
    expect((await results()).get('correct_string_functions')).toMatchObject({ status: 'pass', complete: true });
  });

  it('every one of them is redirected to the runtime, in each of glibc\'s scanf dialects', () => {
    for (const name of ['__isoc99_sscanf', '__isoc23_vfscanf', 'sscanf', 'strtok_r', 'read', '__read_chk', '__xpg_strerror_r'])
      expect(refusalReason(name)).toBeUndefined();
  });
});

describe('built with -D_FORTIFY_SOURCE, their checked variants are checked the same way', () => {
  it.each([
    ['mempcpy_past_a_block', /buffer overflow: 10 bytes written into an object of 4 bytes/],
    ['stpncpy_past_a_block', /buffer overflow: 10 bytes written into an object of 4 bytes/],
    ['explicit_bzero_of_a_freed_block', useAfterFree],
    ['read_into_a_freed_block', useAfterFree],
    ['pread_past_a_block', /buffer overflow: 8 bytes written into an object of 4 bytes/],
  ])('%s', async (name, message) => {
    const result = await checkAllInterleavings(fixture(file), { test: name, cflags: '-O2 -D_FORTIFY_SOURCE=2' });
    expect(result.tests[0]!.bug).toMatchObject({ kind: 'memory', message: expect.stringMatching(message) });
  });
});
