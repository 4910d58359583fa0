// Text to lines no wider than a width: words joined by spaces, a longer word on a line of its own.
// A width counts what a terminal shows: colour codes in the words take no room.

/** Output that goes to no terminal (a file, a pipe, a CI log) is read in an editor or a browser: 100 columns. */
const NO_TERMINAL_WIDTH = 100;

/** The width lines written to `stream` fit: its terminal's columns, else 100. */
export function terminalWidth(stream: { columns?: number } = process.stdout): number {
  return stream.columns || NO_TERMINAL_WIDTH;
}

/** A test's line (`✓ name  …`) goes on indented past the lines under it (a warning, at 2): it reads as one line. */
export const TEST_LINE_HANGING = 4;

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The columns a text takes on a terminal: its length without colour codes. */
export function visibleLength(text: string): number {
  return text.replace(ansi, '').length;
}

/** A space no line breaks at, as between a number and its unit ("3.05 s"): a plain space in the lines. */
export const UNBREAKABLE_SPACE = '\u00a0';

/** Words joined by `separator` into lines of at most `width`, after the first `restWidth` (a longer word stands alone). */
export function wrapWords(words: readonly string[], width: number, separator = ' ', restWidth = width): string[] {
  const lines: string[] = [];
  let line = '';
  let shown = 0; // visibleLength(line)
  for (const word of words) {
    const size = visibleLength(word);
    if (line && shown + separator.length + size > (lines.length ? restWidth : width)) {
      lines.push(line);
      line = word;
      shown = size;
    } else {
      shown = line ? shown + separator.length + size : size;
      line = line ? `${line}${separator}${word}` : word;
    }
  }
  return [...lines, line].map((done) => done.replaceAll(UNBREAKABLE_SPACE, ' '));
}

/** A text in lines of at most `width`, the lines after the first indented by `hanging` spaces. */
export function wrapText(text: string, width: number, hanging = 2): string[] {
  return wrapWords(text.split(' '), width, ' ', width - hanging).map((line, at) => (at ? `${' '.repeat(hanging)}${line}` : line));
}

/**
 * A line of output as `stream`'s reader sees it: wrapped to its width, the lines after the
 * first indented by `hanging` spaces so that they read as one item.
 */
export function fitLine(text: string, hanging: number, stream: { columns?: number } = process.stdout): string {
  return wrapText(text, terminalWidth(stream), hanging).join('\n');
}
