// Writes the generated blocks of docs/cli.md — the CLI synopsis and the options table — from
// the options schema (src/options.ts, through dist/). `npm run docs` after changing an option;
// test/options.test.ts fails while the page differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const block = /(<!-- generated: (\w+) \(npm run docs\) -->\n)[\s\S]*?(\n<!-- end generated -->)/g;

/** The page with every generated block replaced by `blocks[name]`. */
export function replaceGenerated(page, blocks) {
  return page.replace(block, (_, start, name, end) => {
    if (!(name in blocks)) throw new Error(`docs/cli.md: no generator for block '${name}'`);
    return `${start}${blocks[name]}${end}`;
  });
}

/** The blocks, from the schema's code. */
export function generatedBlocks({ optionsTable, synopsis }) {
  return {
    cli: `\`\`\`\n${synopsis('check')}\n${synopsis('replay')}\n${synopsis('merge')}\n\`\`\``,
    options: optionsTable(),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pagePath = new URL('../docs/cli.md', import.meta.url);
  const { optionsTable } = await import('../dist/src/options.js');
  const { synopsis } = await import('../dist/src/cli/args.js');
  writeFileSync(pagePath, replaceGenerated(readFileSync(pagePath, 'utf8'), generatedBlocks({ optionsTable, synopsis })));
}
