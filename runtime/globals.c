/* The bounds of the harness's global objects, from the symbol table of its library
 * (every object the compiler emits has a symbol with a size, static ones included). An
 * access inside the data segment must stay inside one object: a write past the end of a
 * global array is reported as an out-of-bounds memory bug, like one past a heap block,
 * instead of silently overwriting the next global. Padding between objects and the bytes
 * past the last one up to the end of its page belong to no object. Without a symbol table (a stripped library) the whole segment counts as
 * one object: only the end of the segment is checked then. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define EXTENT_MAX 255u

static int map_symbol_table(const char *path, struct symbol_table *table) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat status;
  void *file = MAP_FAILED;
  if (fstat(fd, &status) == 0 && (size_t)status.st_size >= sizeof(ElfW(Ehdr)))
    file = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED) return -1;
  const char *bytes = file;
  size_t size = (size_t)status.st_size;
  const ElfW(Ehdr) *header = file;
  if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_shentsize != sizeof(ElfW(Shdr)) ||
      header->e_shoff + (size_t)header->e_shnum * sizeof(ElfW(Shdr)) > size)
    return -1;
  const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(bytes + header->e_shoff);
  results_open(file, size);
  for (size_t i = 0; i < header->e_shnum; i++) {
    const ElfW(Shdr) *symtab = &sections[i];
    if (symtab->sh_type != SHT_SYMTAB || symtab->sh_link >= header->e_shnum) continue;
    const ElfW(Shdr) *strtab = &sections[symtab->sh_link];
    if (symtab->sh_offset + symtab->sh_size > size || strtab->sh_offset + strtab->sh_size > size) return -1;
    table->symbols = bytes + symtab->sh_offset;
    table->count = symtab->sh_size / sizeof(ElfW(Sym));
    table->names = bytes + strtab->sh_offset;
    table->names_size = strtab->sh_size;
    return 0;
  }
  return -1;
}

/* A harness global: a sized data object in the writable segment (the runtime keeps none there). */
static int harness_object(const struct runtime *r, const ElfW(Sym) *symbol, uintptr_t *start) {
  if (ELF64_ST_TYPE(symbol->st_info) != STT_OBJECT || symbol->st_size == 0 || symbol->st_shndx == SHN_UNDEF) return 0;
  *start = r->library_base + symbol->st_value;
  return *start >= r->data_start && *start + symbol->st_size <= r->data_end;
}

static void mark(uint8_t *extent, size_t offset, size_t size) {
  for (size_t i = 0; i < size; i++) {
    size_t left = size - i;
    extent[offset + i] = (uint8_t)(left < EXTENT_MAX ? left : EXTENT_MAX);
  }
}

int globals_open(const char *library_path, char *error, uint32_t error_size) {
  struct runtime *r = weft_rt;
  long page = sysconf(_SC_PAGESIZE);
  size_t size = ((r->data_end + (uintptr_t)page - 1) & ~((uintptr_t)page - 1)) - r->data_start;
  uint8_t *extent = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (extent == MAP_FAILED) {
    snprintf(error, error_size, "cannot map the bounds of the harness's globals: %s", strerror(errno));
    return -1;
  }
  if (map_symbol_table(library_path, &r->symbol_table) == 0) {
    const ElfW(Sym) *symbols = r->symbol_table.symbols;
    for (size_t i = 0; i < r->symbol_table.count; i++) {
      uintptr_t start;
      if (harness_object(r, &symbols[i], &start)) mark(extent, start - r->data_start, symbols[i].st_size);
    }
  } else {
    r->symbol_table.count = 0;
    mark(extent, 0, r->data_end - r->data_start);
  }
  r->global_extent = extent;
  r->globals_size = size;
  return 0;
}

/* The object that holds `address`, or the nearest one below it: what the access ran off. */
static const ElfW(Sym) *object_near(const struct runtime *r, uintptr_t address) {
  const ElfW(Sym) *symbols = r->symbol_table.symbols, *best = NULL;
  uintptr_t best_start = 0;
  for (size_t i = 0; i < r->symbol_table.count; i++) {
    uintptr_t start;
    if (!harness_object(r, &symbols[i], &start) || start > address || start < best_start) continue;
    if (symbols[i].st_name >= r->symbol_table.names_size) continue;
    best = &symbols[i];
    best_start = start;
  }
  return best;
}

void globals_check_range(uintptr_t address, size_t size, int write, uintptr_t pc) {
  const struct runtime *r = weft_rt;
  size_t offset = address - r->data_start, left = size ? size : 1;
  for (;;) {
    uint8_t extent = offset < r->globals_size ? r->global_extent[offset] : 0;
    if (extent && left <= extent) return;
    if (extent < EXTENT_MAX) break;
    offset += EXTENT_MAX - 1; /* still inside the object: it has at least EXTENT_MAX bytes from here */
    left -= EXTENT_MAX - 1;
  }
  const char *access = write ? "write" : "read";
  const ElfW(Sym) *object = object_near(r, address);
  if (!object)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "global access out of bounds: %zu-byte %s at %p, outside every global",
                   size, access, (void *)address);
  uintptr_t start = r->library_base + object->st_value;
  const char *name = r->symbol_table.names + object->st_name;
  if (address < start + object->st_size)
    execution_fail(WEFT_OUTCOME_MEMORY, pc,
                   "global access out of bounds: %zu-byte %s at offset %zu of '%s' runs past its end (%zu bytes)",
                   size, access, (size_t)(address - start), name, (size_t)object->st_size);
  size_t past = (size_t)(address - start - object->st_size);
  if (past == 0)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "global access out of bounds: %zu-byte %s just past the end of '%s' (%zu bytes)",
                   size, access, name, (size_t)object->st_size);
  execution_fail(WEFT_OUTCOME_MEMORY, pc,
                 "global access out of bounds: %zu-byte %s at %p, %zu bytes past the end of '%s' (%zu bytes)", size,
                 access, (void *)address, past, name, (size_t)object->st_size);
}
