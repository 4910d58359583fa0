// Addresses -> names a user recognises: a global variable (from the library's symbol
// table), a heap block, or a thread.
import { runTool } from '../build/toolchain.js';

interface DataSymbol {
  start: number;
  size: number;
  name: string;
}

export class AddressNamer {
  private readonly symbols: DataSymbol[];

  constructor(library: string, private readonly libraryBase: number, private readonly heapBase: number) {
    this.symbols = runTool('nm', ['-S', '--defined-only', library]).stdout
      .split('\n')
      .map((line) => /^([0-9a-f]+) ([0-9a-f]+) [bBdDrRgGsS] (\S+)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ start: parseInt(match[1]!, 16), size: parseInt(match[2]!, 16), name: match[3]! }))
      .filter((symbol) => !symbol.name.startsWith('weft_') && !symbol.name.startsWith('__'));
  }

  name(address: number): string {
    const offset = address - this.libraryBase;
    for (const symbol of this.symbols) {
      if (offset >= symbol.start && offset < symbol.start + Math.max(symbol.size, 1)) {
        const inner = offset - symbol.start;
        return inner === 0 ? symbol.name : `${symbol.name}+${inner}`;
      }
    }
    if (address >= this.heapBase && address < this.heapBase + 2 ** 30) return `heap+0x${(address - this.heapBase).toString(16)}`;
    return `0x${address.toString(16)}`;
  }
}
