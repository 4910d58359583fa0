// The README's quick start, as a new user follows it: in an empty folder, every command of it
// run as written (the package from its packed tarball instead of the registry), the files it
// shows compared with what `npx weft init` wrote, a first failing and a first passing test.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { packageRoot } from '../src/paths.js';
import { removeAfterAll } from './support/harness.js';
import { type CommandResult, packWeft, runCommand } from './support/packed-package.js';

interface QuickStart {
  commands: string[];
  /** the code blocks that name their file on their first line: `// queue.test.c: …` */
  files: Map<string, string>;
  /** the block that replaces the consumer */
  fix: string;
}

function quickStart(): QuickStart {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const section = /<!-- quick-start[^>]*-->([\s\S]*?)<!-- end quick-start -->/.exec(readme)?.[1];
  if (section === undefined) throw new Error('the README has no quick-start section between its markers');
  const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, language, text]) => ({ language: language!, text: text! }));
  const files = new Map<string, string>();
  let fix = '';
  for (const { language, text } of blocks) {
    const named = /^\/\/ ([\w.-]+)[:\n]/.exec(text)?.[1];
    if (named) files.set(named, text);
    else if (language === 'c') fix = text;
  }
  const commands = blocks.filter((block) => block.language === 'sh').flatMap((block) => block.text.trim().split('\n'));
  return { commands, files, fix };
}

/** A command as a user's shell runs it, in `folder`: CI=1 makes `npx vitest` run once instead of watching. */
function shell(command: string, folder: string): Promise<CommandResult> {
  return runCommand('sh', ['-c', command], folder, { ...process.env, CI: '1', NO_COLOR: '1', npm_config_loglevel: 'error' }, 300_000);
}

describe("the README's quick start, in a fresh folder", () => {
  const readme = quickStart();
  let folder: string;
  let tarball: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'weft-quick-start-'));
    removeAfterAll(folder);
    tarball = await packWeft(folder);
  }, 300_000);

  it('is four commands, two files and a fix', () => {
    expect(readme.commands).toEqual(['npm init -y', 'npm install -D weft vitest', 'npx weft init', 'npx vitest']);
    expect([...readme.files.keys()]).toEqual(['vitest.config.mts', 'queue.test.c']);
    expect(readme.fix).toMatch(/^static void \*consumer\(void \*unused\) \{\n[\s\S]*\n\}\n$/);
  });

  it('ends in a first failing test, then, with the fix, two passing ones', async () => {
    const [init, install, weftInit, vitest] = readme.commands as [string, string, string, string];
    expect((await shell(init, folder)).status).toBe(0);
    // the package as packed here, not the registry's
    const installed = await shell(`${install.replace(/\bweft\b/, `./${tarball}`)} --prefer-offline --no-audit --no-fund`, folder);
    expect(installed.status, installed.output).toBe(0);

    const written = await shell(weftInit, folder);
    expect(written.status, written.output).toBe(0);
    for (const [file, text] of readme.files) expect(readFileSync(join(folder, file), 'utf8'), file).toBe(text);
    expect((await shell('npx weft example', folder)).output.trimEnd()).toBe(readme.files.get('queue.test.c')!.trimEnd());

    const failing = await shell(vitest, folder);
    expect(failing.status, failing.output).toBe(1);
    expect(failing.output).not.toMatch(/warn|deprecated/i);
    expect(failing.output).toMatch(/✓ two_producers/);
    expect(failing.output).toContain('FAIL  queue.test.c > two_consumers');
    expect(failing.output).toContain('assertion failed: pop(&item)\nat queue.test.c:50 in thread T1 · 1 preemption');
    expect(failing.output).toMatch(/Tests {2}1 failed \| 1 passed \(2\)/);

    const test = readFileSync(join(folder, 'queue.test.c'), 'utf8');
    const fixed = test.replace(/static void \*consumer\(void \*unused\) \{\n[\s\S]*?\n\}\n/, readme.fix);
    expect(fixed).not.toBe(test);
    writeFileSync(join(folder, 'queue.test.c'), fixed);
    const passing = await shell(vitest, folder);
    expect(passing.status, passing.output).toBe(0);
    expect(passing.output).toMatch(/Tests {2}2 passed \(2\)/);
  }, 600_000);
});
