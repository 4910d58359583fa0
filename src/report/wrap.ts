// Text to lines no wider than a width: words joined by spaces, a longer word on a line of its own.

/** Words joined by `separator` into lines of at most `width` (a longer word stands alone). */
export function wrapWords(words: readonly string[], width: number, separator = ' '): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + word.length + separator.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line}${separator}${word}` : word;
  }
  return [...lines, line];
}

/** A text in lines of at most `width`, the lines after the first indented by `hanging` spaces. */
export function wrapText(text: string, width: number, hanging = 2): string[] {
  const [first = '', ...rest] = wrapWords(text.split(' '), width);
  const more = rest.length ? wrapWords(rest.join(' ').split(' '), width - hanging) : [];
  return [first, ...more.map((line) => `${' '.repeat(hanging)}${line}`)];
}
