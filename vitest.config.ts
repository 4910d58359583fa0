import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the scratch Vitest projects that test/vitest.test.ts writes and runs itself
    exclude: ['test/projects/**', '**/node_modules/**'],
    // exploration tests compile C and run many executions: give them room, not a race
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // a fork per core (Vitest leaves one idle by default): most tests wait on compilers and
    // child processes, and on 2 cores the suite takes some 4 minutes instead of 8
    maxWorkers: '100%',
  },
});
