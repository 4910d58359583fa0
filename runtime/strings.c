/* The string functions that write: each checks the bytes it will read and write against
 * the heap (use after free, out of bounds) and for races, as memcpy does, before libc does
 * the work — so that strcpy or sprintf past the end of a block is a reported bug, not
 * silent corruption. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static size_t bounded_length(const char *text, size_t limit) {
  const char *end = memchr(text, 0, limit);
  return end ? (size_t)(end - text) : limit;
}

static char *copy(char *destination, const char *source, size_t n, uintptr_t pc) {
  memory_access(0, source, n, pc);
  memory_access(1, destination, n, pc);
  return memcpy(destination, source, n);
}

WEFT_HIDDEN char *weft_strcpy(char *destination, const char *source) {
  return copy(destination, source, strlen(source) + 1, WEFT_CALLER_PC());
}

WEFT_HIDDEN char *weft_stpcpy(char *destination, const char *source) {
  size_t length = strlen(source);
  copy(destination, source, length + 1, WEFT_CALLER_PC());
  return destination + length;
}

WEFT_HIDDEN char *weft_strcat(char *destination, const char *source) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t end = strlen(destination);
  memory_access(0, destination, end + 1, pc);
  copy(destination + end, source, strlen(source) + 1, pc);
  return destination;
}

WEFT_HIDDEN char *weft_strncpy(char *destination, const char *source, size_t n) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = bounded_length(source, n);
  memory_access(0, source, length < n ? length + 1 : n, pc);
  memory_access(1, destination, n, pc); /* strncpy pads with zeros up to n */
  return strncpy(destination, source, n);
}

WEFT_HIDDEN char *weft_strncat(char *destination, const char *source, size_t n) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t end = strlen(destination);
  size_t length = bounded_length(source, n);
  memory_access(0, destination, end + 1, pc);
  memory_access(0, source, length, pc);
  memory_access(1, destination + end, length + 1, pc);
  return strncat(destination, source, n);
}

/* the bytes vsnprintf will write into a buffer of `size` (at most size, with the 0) */
static int formatted(char *destination, size_t size, uintptr_t pc, const char *format, va_list args) {
  va_list measure;
  va_copy(measure, args);
  int length = vsnprintf(NULL, 0, format, measure);
  va_end(measure);
  if (length >= 0) {
    size_t written = (size_t)length + 1;
    memory_access(1, destination, written < size ? written : size, pc);
  }
  return vsnprintf(destination, size, format, args);
}

WEFT_HIDDEN int weft_vsnprintf(char *destination, size_t size, const char *format, va_list args) {
  return formatted(destination, size, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_vsprintf(char *destination, const char *format, va_list args) {
  return formatted(destination, (size_t)-1 >> 1, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_snprintf(char *destination, size_t size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = formatted(destination, size, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft_sprintf(char *destination, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = formatted(destination, (size_t)-1 >> 1, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}
