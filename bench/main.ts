// npm run bench: every benchmark section, printed as tables. Numbers, not assertions.
import { coreBench } from './core.js';

const sections: [string, () => Promise<void>][] = [['core', coreBench]];

const only = process.argv[2];
for (const [name, run] of sections) if (!only || only === name) await run();
