// One error type: whatever weft refuses — an option, a file it cannot build, a replay
// string, a library the binding cannot load — is a WeftError with a code and the exit
// status the CLI ends with; the CLI prints its message alone.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { BuildError } from '../src/compile/errors.js';
import { checkAllInterleavings } from '../src/check.js';
import { ExitStatus, WeftError } from '../src/errors.js';
import { openHarness } from '../src/addon/addon.js';
import { ReplayFormatError } from '../src/report/replay.js';
import { packageRoot } from '../src/paths.js';
import { fixture, runCli, writeHarness } from './support/harness.js';

async function refusal(promise: Promise<unknown>): Promise<WeftError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(WeftError);
  return error as WeftError;
}

describe('WeftError', () => {
  it.each([
    ['a missing file', () => checkAllInterleavings(fixture('does_not_exist.c')), 'missing-file', BuildError],
    ['a compile error', () => checkAllInterleavings(fixture('core/compile_error.c')), 'compile', BuildError],
    ['an unsupported function', () => checkAllInterleavings(fixture('core/uses_fork.c')), 'unsupported-symbol', BuildError],
    ['a malformed replay string', () => checkAllInterleavings(fixture('lost_update.c'), { replay: 'weft1:x' }), 'replay-format', ReplayFormatError],
    ['an unknown test', () => checkAllInterleavings(fixture('lost_update.c'), { test: 'nope' }), 'option', WeftError],
  ])('%s is a WeftError with its code and exit status 2', async (_, check, code, type) => {
    const error = await refusal(check());
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.exitStatus).toBe(ExitStatus.INPUT);
  });
});

describe('the binding throws WeftErrors', () => {
  it('for a shared library that is not a weft harness', () => {
    const source = writeHarness('int plain_library_function(void) { return 1; }\n', 'plain.c');
    const library = join(dirname(source), 'plain.so');
    const built = spawnSync('cc', ['-shared', '-fPIC', '-o', library, source], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    let error: unknown;
    try {
      openHarness(library);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: 'addon', exitStatus: 2, message: `not a weft harness (no weft_runtime_open): ${library}` });
  });

  it('for a file the dynamic loader cannot load', () => {
    const file = join(dirname(writeHarness('', 'unused.c')), 'not-elf.so');
    writeFileSync(file, 'this is not an ELF file');
    expect(() => openHarness(file)).toThrow(WeftError);
    expect(() => openHarness(file)).toThrow(/^cannot load harness: .*not-elf\.so/);
  });

  it('are WeftErrors of every copy of weft in the process (the Vitest runtime is a bundle of its own)', async () => {
    const loader = (await import(join(packageRoot, 'dist', 'src', 'vitest', 'runtime-loader.js'))) as typeof import('../src/vitest/runtime-loader.js');
    const bundled = await loader.loadRuntime(join(dirname(writeHarness('', 'unused.c')), 'cache'));
    // the bundle's copy of the loader registers its own error class with the binding
    expect((await bundled.listTests(fixture('lost_update.c'), {})).length).toBeGreaterThan(0);
    const file = join(dirname(writeHarness('', 'unused.c')), 'not-elf.so');
    writeFileSync(file, 'this is not an ELF file');
    expect(() => openHarness(file)).toThrow(WeftError);
    const missing = await bundled.listTests(fixture('does_not_exist.c'), {}).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(BuildError);
    expect(missing).toBeInstanceOf(WeftError);
    expect(missing).not.toBeInstanceOf(ReplayFormatError);
    expect(new Error('not weft')).not.toBeInstanceOf(WeftError);
  });

  it('keeps weft-internal misuse a TypeError (a bug, shown with its stack)', () => {
    expect(() => openHarness(42 as unknown as string)).toThrow(TypeError);
    expect(() => openHarness(42 as unknown as string)).not.toThrow(WeftError);
  });
});

describe('the CLI prints a WeftError as one line and exits with its status', () => {
  it.each([
    ['a bad file comment', () => [writeHarness('// weft: frob=1\nint main(void) { return 0; }\n')], /^weft: .*harness\.c:1: unknown weft option 'frob'\n$/],
    ['a malformed replay string', () => ['--schedule', 'weft1:x', fixture('lost_update.c')], /^weft: not a weft replay string \(expected weft1:TEST:MODE:DECISIONS\[:BUILD\]\): weft1:x\n$/],
    ['a missing file', () => [fixture('does_not_exist.c')], /^weft: no such file: .*does_not_exist\.c\n$/],
  ])('%s', (_, args, message) => {
    const argv = args();
    const run = runCli([argv.includes('--schedule') ? 'replay' : 'check', ...argv]);
    expect(run.status).toBe(ExitStatus.INPUT);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
