// Addresses -> names a user recognises: a global variable down to the struct field and
// array element (bank.acct[3].lock, from the library's debug info), a heap block by what it
// holds and its place in address order (node#2.next, block#1+8), a local in a thread's
// stack frame (b.z in main's frame), or a thread; from the library's symbol table and debug
// info (debug-data.ts reads them).
import type { StackFrame } from '../addon/addon.js';
import { MAX_THREADS } from '../addon/ops.js';
import type { CodeLocation } from './locations.js';
import { type DebugInfo, type Variable, nameOfType, resolve, sizeOf, typedefName } from './dwarf.js';

export interface DataSymbol {
  /** a global's offset in the library, a thread-local variable's in a thread's block */
  start: number;
  size: number;
  name: string;
  /** a thread-local variable (__thread, _Thread_local): every thread has its copy */
  threadLocal?: boolean;
}

/** A heap block of the failing execution. */
export interface HeapBlock {
  address: number;
  size: number;
  /** where it was allocated */
  allocated?: CodeLocation;
}

export interface NamedAddress {
  name: string;
  /** the debug-info type of the object the address starts, when one does */
  type?: number;
}

/** The function WEFT_TEST(name) defines (include/weft.h): its frame is named by the test's name. */
const testBody = /^weft_test_body_/;

/** Objects that synchronisation operations take as a whole: naming stops at them. */
const synchronisationTypes = /^(pthread_\w+_t|sem_t|mtx_t|cnd_t|once_flag)$/;

export class AddressNamer {
  private readonly symbols: readonly DataSymbol[];
  readonly info: DebugInfo;

  constructor(
    library: { symbols: readonly DataSymbol[]; info: DebugInfo }, private readonly libraryBase: number,
    /** the heap arena */
    private readonly heap: { base: number; size: number },
    /** the execution's heap blocks, by address */
    private readonly heapBlocks: readonly HeapBlock[] = [],
    /** the frames of the stacks the runtime walked (a race, an assertion), each thread's innermost first */
    private readonly stackFrames: readonly StackFrame[] = [],
    /** the threads' thread-local blocks: one of blockSize bytes per thread from base (blockSize 0: none) */
    private readonly threadLocals: { base: number; blockSize: number } = { base: 0, blockSize: 0 },
  ) {
    this.symbols = library.symbols;
    this.info = library.info;
  }

  /** heap block address -> the type a typed pointer to it points to */
  private readonly blockTypes = new Map<number, number>();

  /**
   * A pointer value seen in the trace: a typed pointer to the start of a heap block says
   * what the block holds, so its cells are named by field (node#1.next).
   */
  notePointer(value: number, pointerType: number | undefined): void {
    const pointer = resolve(this.info, pointerType);
    if (pointer?.kind !== 'pointer' || pointer.target === undefined || !resolve(this.info, pointer.target)) return;
    const block = lastAtOrBefore(this.heapBlocks, value);
    if (block?.address === value && !this.blockTypes.has(value)) this.blockTypes.set(value, pointer.target);
  }

  /** the blocks a name was given to, for the legend of where each was allocated */
  readonly named = new Set<HeapBlock>();

  /**
   * A heap block's name: what it holds (its type, once a typed pointer to it was seen, else
   * "block") numbered in address order among the blocks of that name: node#1, node#2. The
   * arena has a region per thread, T0's first, each filled in allocation order: the numbers
   * go thread by thread, and a block has the same one whichever thread allocated first.
   */
  label(block: HeapBlock): string {
    const base = (block: HeapBlock) => {
      const type = this.blockTypes.get(block.address);
      return (type === undefined ? undefined : nameOfType(this.info, type)) ?? 'block';
    };
    const own = base(block);
    let number = 1;
    for (const other of this.heapBlocks) {
      if (other.address >= block.address) break;
      if (base(other) === own) number++;
    }
    return `${own}#${number}`;
  }

  name(address: number, accessSize = 0): string {
    return this.locate(address, accessSize).name;
  }

  /** The name of the object at the address and, when it starts there, its type. */
  locate(address: number, accessSize = 0): NamedAddress {
    const offset = address - this.libraryBase;
    const variable = this.variableAt(offset);
    if (variable) return this.within(variable.name, variable.type, offset - variable.address, accessSize);
    const symbol = this.symbols.find((s) => !s.threadLocal && offset >= s.start && offset < s.start + Math.max(s.size, 1));
    if (symbol) return { name: withOffset(symbol.name, offset - symbol.start) };
    const threadLocal = this.threadLocal(address);
    if (threadLocal) return threadLocal;
    const block = lastAtOrBefore(this.heapBlocks, address);
    if (block && address < block.address + Math.max(block.size, 1)) {
      this.named.add(block);
      const label = this.label(block);
      const type = this.blockTypes.get(block.address);
      if (type === undefined) return { name: withOffset(label, address - block.address) };
      // elements of an array of the type when the block holds several
      const size = Math.max(sizeOf(this.info, type), 1);
      const inner = address - block.address;
      const element = Math.floor(inner / size);
      return this.within(`${label}${block.size >= 2 * size ? `[${element}]` : ''}`, type, inner - element * size, accessSize);
    }
    if (address >= this.heap.base && address < this.heap.base + this.heap.size) return { name: `heap+0x${(address - this.heap.base).toString(16)}` };
    const local = this.onStack(address, accessSize);
    if (local) return local;
    return { name: `0x${address.toString(16)}` };
  }

  /** A thread's copy of a thread-local variable: `calls (T1's thread-local copy)`. */
  private threadLocal(address: number): NamedAddress | undefined {
    const { base, blockSize } = this.threadLocals;
    const offset = address - base;
    if (blockSize === 0 || offset < 0 || offset >= blockSize * MAX_THREADS) return undefined;
    const within = offset % blockSize;
    const symbol = this.symbols.find((s) => s.threadLocal && within >= s.start && within < s.start + Math.max(s.size, 1));
    const name = symbol ? withOffset(symbol.name, within - symbol.start) : `thread-local+${within}`;
    return { name: `${name} (T${Math.floor(offset / blockSize)}'s thread-local copy)` };
  }

  /**
   * In the walked stacks: the frame that holds the address (below its canonical frame
   * address, at or above the next inner frame's of its thread), and the local there,
   * named with its function.
   */
  private onStack(address: number, accessSize: number): NamedAddress | undefined {
    const frames = this.stackFrames;
    const frame = frames.find((f, k) => k > 0 && frames[k - 1]!.thread === f.thread && frames[k - 1]!.cfa <= address && address < f.cfa);
    if (!frame) return undefined;
    const stack = `T${frame.thread}'s stack`;
    // a frame's pc is a return address: the call is before it
    const found = lastAtOrBefore(this.info.functions, frame.pc - 1);
    if (!found || frame.pc - 1 >= found.end) return { name: stack };
    const inner = address - frame.cfa;
    const local = found.locals.find((v) => v.frameOffset <= inner && inner < v.frameOffset + Math.max(sizeOf(this.info, v.type), 1));
    const named = local ? this.within(local.name, local.type, inner - local.frameOffset, accessSize) : { name: stack };
    return { ...named, name: `${named.name} in ${found.name.replace(testBody, '')}'s frame` };
  }

  private variableAt(offset: number): Variable | undefined {
    const found = lastAtOrBefore(this.info.variables, offset);
    return found && offset < found.address + Math.max(sizeOf(this.info, found.type), 1) ? found : undefined;
  }

  /** Down through struct members and array elements to the object the access is about. */
  private within(start: string, startType: number | undefined, inner: number, accessSize: number): NamedAddress {
    const info = this.info;
    let path = start;
    let type = startType;
    for (let depth = 0; depth < 32; depth++) {
      const typedef = typedefName(info, type);
      if (accessSize === 0 && inner === 0 && typedef !== undefined && synchronisationTypes.test(typedef)) break;
      const resolved = resolve(info, type);
      if (!resolved) break;
      if (resolved.kind === 'struct' || resolved.kind === 'union') {
        const member = resolved.members.filter((m) => m.offset <= inner && inner < m.offset + Math.max(sizeOf(info, m.type), 1)).at(-1);
        // an access wider than the member is about the whole aggregate (a struct copy)
        if (!member || (inner === member.offset && sizeOf(info, member.type) < accessSize)) break;
        if (member.name !== undefined) path += `.${member.name}`;
        inner -= member.offset;
        type = member.type;
      } else if (resolved.kind === 'array') {
        const stride = sizeOf(info, resolved.element) * resolved.counts.slice(1).reduce<number>((p, n) => p * (n ?? 0), 1);
        if (stride <= 0 || (inner % stride === 0 && stride < accessSize)) break;
        // a multi-dimensional array: one index per dimension
        let elementStride = stride;
        for (let dimension = 0; dimension < resolved.counts.length; dimension++) {
          const index = Math.floor(inner / elementStride);
          path += `[${index}]`;
          inner -= index * elementStride;
          const next = resolved.counts[dimension + 1];
          if (next) elementStride /= next;
        }
        type = resolved.element;
      } else break;
    }
    return inner === 0 ? { name: path, ...(type !== undefined ? { type } : {}) } : { name: withOffset(path, inner) };
  }
}

/**
 * The user's variables in a library's symbol table (readelf --syms: a tenth of nm's time,
 * which loads binutils' plugins first), those with a size: what nm -S lists as data, but
 * weft's own and the instrumentation's.
 */
export function dataSymbolsOf(listing: string): DataSymbol[] {
  const symbols: DataSymbol[] = [];
  let table = '';
  for (const line of listing.split('\n')) {
    const heading = /^Symbol table '([^']+)'/.exec(line);
    if (heading) table = heading[1]!;
    // `  29: 0000000000004010     4 OBJECT  LOCAL  DEFAULT   24 counter_0` (sizes past 99999 in hex)
    const entry = table === '.symtab' && /^\s*\d+:\s+([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+(OBJECT|TLS)\s+\w+\s+\w+\s+\d+\s+(\S+)$/.exec(line);
    if (!entry || Number(entry[2]) <= 0) continue;
    const name = entry[4]!;
    if (name.startsWith('weft_') || name.startsWith('__')) continue;
    symbols.push({ start: parseInt(entry[1]!, 16), size: Number(entry[2]), name, ...(entry[3] === 'TLS' ? { threadLocal: true } : {}) });
  }
  return symbols;
}

function withOffset(name: string, offset: number): string {
  return offset === 0 ? name : `${name}+${offset}`;
}

/** In a list sorted by address: the last entry at or before `address`. */
function lastAtOrBefore<T extends { address: number }>(sorted: readonly T[], address: number): T | undefined {
  let low = 0;
  let high = sorted.length - 1;
  let found: T | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]!.address <= address) {
      found = sorted[middle];
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
