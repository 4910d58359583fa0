// The plugin as users get it: the packed tarball installed into a fresh `"type": "commonjs"`
// project (npm 11's `npm init -y`), the README's vitest.config.mts copied as written.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { packageRoot } from '../src/paths.js';
import { fixture } from './support/harness.js';
import { createProject, installPackedWeft, testsInReport, withJsonReport } from './support/vitest-project.js';

/** The first ```ts block of the README's "With Vitest" section: the config users copy. */
function readmeConfig(): { file: string; text: string } {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## With Vitest'));
  const block = /```ts\n(\/\/ (\S+)\n[\s\S]*?)```/.exec(section);
  if (!block) throw new Error("README's With Vitest section has no ```ts config block");
  return { file: block[2]!, text: block[1]! };
}

describe('the packed package in a Vitest project', () => {
  let installed: string;
  beforeAll(() => {
    installed = installPackedWeft();
  }, 300_000);

  it("runs with the README's config without warnings and reports a remembered race again as it did first", () => {
    const project = createProject({ 'bugs.test.c': readFileSync(fixture('vitest/every_bug_kind.test.c'), 'utf8') }, { installedIn: installed });
    const config = readmeConfig();
    expect(config.file).toBe('vitest.config.mts');
    rmSync(join(project.dir, 'vitest.config.mjs'));
    writeFileSync(join(project.dir, config.file), config.text);

    const first = project.run([...withJsonReport, '-t', 'race_with_consequence|deadlock']);
    expect(first.status, first.output).toBe(1);
    expect(first.output).not.toMatch(/warn|deprecated/i);
    const before = testsInReport(project);
    const second = project.run([...withJsonReport, '-t', 'race_with_consequence|deadlock']);
    const after = testsInReport(project);
    expect(second.output).not.toMatch(/warn|deprecated/i);
    for (const name of ['race_with_consequence', 'deadlock']) {
      expect(before.get(name)!.status).toBe('failed');
      expect(after.get(name)!.failure).toBe(before.get(name)!.failure.replace('InterleavingError: ', 'InterleavingError: still fails (replayed the last counterexample)\n'));
    }
    expect(before.get('race_with_consequence')!.failure).toContain('what the race breaks');
  });
});
