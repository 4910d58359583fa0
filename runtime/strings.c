/* The string functions: each checks the bytes it will read and write against the heap (use
 * after free, out of bounds) and for races, as memcpy does, before libc does the work — so
 * that strcpy or sprintf past the end of a block is a reported bug, not silent corruption,
 * and strlen of a freed block or memcmp past the end of one is not a silent pass. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "runtime.h"

static size_t bounded_length(const char *text, size_t limit) {
  const char *end = memchr(text, 0, limit);
  return end ? (size_t)(end - text) : limit;
}

char *checked_copy(char *destination, const char *source, size_t n, uintptr_t pc) {
  copy_access(destination, source, n, pc);
  return memcpy(destination, source, n);
}

WEFT_HIDDEN char *weft_strcpy(char *destination, const char *source) {
  return checked_copy(destination, source, strlen(source) + 1, WEFT_CALLER_PC());
}

WEFT_HIDDEN char *weft_stpcpy(char *destination, const char *source) {
  size_t length = strlen(source);
  checked_copy(destination, source, length + 1, WEFT_CALLER_PC());
  return destination + length;
}

char *checked_strcat(char *destination, const char *source, uintptr_t pc) {
  size_t end = strlen(destination);
  memory_access(0, destination, end + 1, pc);
  checked_copy(destination + end, source, strlen(source) + 1, pc);
  return destination;
}

WEFT_HIDDEN char *weft_strcat(char *destination, const char *source) { return checked_strcat(destination, source, WEFT_CALLER_PC()); }

char *checked_strncpy(char *destination, const char *source, size_t n, uintptr_t pc) {
  size_t length = bounded_length(source, n);
  memory_access(0, source, length < n ? length + 1 : n, pc);
  memory_access(1, destination, n, pc); /* strncpy pads with zeros up to n */
  return strncpy(destination, source, n);
}

WEFT_HIDDEN char *weft_strncpy(char *destination, const char *source, size_t n) { return checked_strncpy(destination, source, n, WEFT_CALLER_PC()); }

char *checked_strncat(char *destination, const char *source, size_t n, uintptr_t pc) {
  size_t end = strlen(destination);
  size_t length = bounded_length(source, n);
  memory_access(0, destination, end + 1, pc);
  memory_access(0, source, length, pc);
  memory_access(1, destination + end, length + 1, pc);
  return strncat(destination, source, n);
}

WEFT_HIDDEN char *weft_strncat(char *destination, const char *source, size_t n) { return checked_strncat(destination, source, n, WEFT_CALLER_PC()); }

/* The harness's memory a printf-style call reads or writes through its arguments: each %s
 * string (up to its 0, or its precision) and each %n target, checked as one access each; the
 * other arguments are taken off a copy of the list by their types. Positional arguments
 * (%1$s) and a conversion not known here stop the walk: what follows is not checked. */
void format_accesses(const char *format, va_list args, uintptr_t pc) {
  va_list walk;
  va_copy(walk, args);
  for (const char *at = format; *at; at++) {
    if (*at != '%') continue;
    at++;
    while (*at && strchr("-+ #0'I", *at)) at++;
    if (*at == '*') {
      (void)va_arg(walk, int);
      at++;
    }
    while (*at >= '0' && *at <= '9') at++;
    if (*at == '$') break;
    long precision = -1;
    if (*at == '.') {
      at++;
      if (*at == '*') {
        precision = va_arg(walk, int);
        at++;
      } else for (precision = 0; *at >= '0' && *at <= '9'; at++) precision = precision * 10 + (*at - '0');
    }
    int longs = 0, shorts = 0, wide = 0;
    for (;; at++) {
      if (*at == 'l') longs++;
      else if (*at == 'h') shorts++;
      else if (*at == 'j' || *at == 'z' || *at == 't' || *at == 'q') longs = 1;
      else if (*at == 'L') wide = 1;
      else break;
    }
    switch (*at) {
      case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'b': case 'B':
        if (longs || wide) (void)va_arg(walk, long long);
        else (void)va_arg(walk, int);
        break;
      case 'c': case 'C':
        (void)va_arg(walk, int);
        break;
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
        if (wide) (void)va_arg(walk, long double);
        else (void)va_arg(walk, double);
        break;
      case 'p':
        (void)va_arg(walk, void *);
        break;
      case 'S':
      case 's': {
        if (longs || *at == 'S') {
          const wchar_t *text = va_arg(walk, const wchar_t *);
          if (text) memory_access(0, text, (wcslen(text) + 1) * sizeof(wchar_t), pc);
          break;
        }
        const char *text = va_arg(walk, const char *);
        if (!text) break;
        size_t length = precision >= 0 ? strnlen(text, (size_t)precision) : strlen(text);
        memory_access(0, text, precision >= 0 && length == (size_t)precision ? length : length + 1, pc);
        break;
      }
      case 'n': {
        void *target = va_arg(walk, void *);
        memory_access(1, target, shorts == 2 ? sizeof(char) : shorts ? sizeof(short) : longs ? sizeof(long long) : sizeof(int), pc);
        break;
      }
      case '%':
      case 'm':
        break;
      default: /* a lone % at the end, or a conversion not known here: where the arguments go next is not known */
        va_end(walk);
        return;
    }
  }
  va_end(walk);
}

/* what vsnprintf would write for the format, without the 0 (negative: an error), on a copy of the list */
int formatted_length(const char *format, va_list args) {
  va_list measure;
  va_copy(measure, args);
  int length = vsnprintf(NULL, 0, format, measure);
  va_end(measure);
  return length;
}

/* vsnprintf, the bytes it will write into a buffer of `size` (at most size, with the 0) checked first */
int format_into(char *destination, size_t size, uintptr_t pc, const char *format, va_list args) {
  format_accesses(format, args, pc);
  int length = formatted_length(format, args);
  if (length >= 0) {
    size_t written = (size_t)length + 1;
    memory_access(1, destination, written < size ? written : size, pc);
  }
  return vsnprintf(destination, size, format, args);
}

WEFT_HIDDEN int weft_vsnprintf(char *destination, size_t size, const char *format, va_list args) {
  return format_into(destination, size, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_vsprintf(char *destination, const char *format, va_list args) {
  return format_into(destination, SPRINTF_SIZE, WEFT_CALLER_PC(), format, args);
}

WEFT_HIDDEN int weft_snprintf(char *destination, size_t size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = format_into(destination, size, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

WEFT_HIDDEN int weft_sprintf(char *destination, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = format_into(destination, SPRINTF_SIZE, WEFT_CALLER_PC(), format, args);
  va_end(args);
  return length;
}

/* The string and memory functions that read: each checks the bytes its result depends on
 * (up to the terminating 0, the first difference, the byte found) as one read, before libc
 * reads them again for the result, so a read of a freed or too short block, or one racing
 * with a write, is a reported bug, not a silent pass. */
static void read_access(const void *source, size_t n, uintptr_t pc) { memory_access(0, source, n, pc); }

WEFT_HIDDEN size_t weft_strlen(const char *text) {
  read_access(text, strlen(text) + 1, WEFT_CALLER_PC());
  return strlen(text);
}

WEFT_HIDDEN size_t weft_strnlen(const char *text, size_t limit) {
  size_t length = strnlen(text, limit);
  read_access(text, length < limit ? length + 1 : limit, WEFT_CALLER_PC());
  return strnlen(text, limit);
}

/* the bytes of each side a comparison of at most `limit` bytes reads: up to the first that differs, or a 0 when `strings` */
static size_t compared(const unsigned char *a, const unsigned char *b, size_t limit, int strings) {
  size_t i = 0;
  while (i < limit && a[i] == b[i] && !(strings && a[i] == 0)) i++;
  return i < limit ? i + 1 : limit;
}

static void compare_access(const void *a, const void *b, size_t limit, int strings, uintptr_t pc) {
  size_t n = compared(a, b, limit, strings);
  read_access(a, n, pc);
  read_access(b, n, pc);
}

WEFT_HIDDEN int weft_strcmp(const char *a, const char *b) {
  compare_access(a, b, (size_t)-1, 1, WEFT_CALLER_PC());
  return strcmp(a, b);
}

WEFT_HIDDEN int weft_strncmp(const char *a, const char *b, size_t limit) {
  compare_access(a, b, limit, 1, WEFT_CALLER_PC());
  return strncmp(a, b, limit);
}

WEFT_HIDDEN int weft_memcmp(const void *a, const void *b, size_t n) {
  compare_access(a, b, n, 0, WEFT_CALLER_PC());
  return memcmp(a, b, n);
}

WEFT_HIDDEN void *weft_memchr(const void *source, int c, size_t n) {
  const unsigned char *found = memchr(source, c, n);
  read_access(source, found ? (size_t)(found - (const unsigned char *)source) + 1 : n, WEFT_CALLER_PC());
  return memchr(source, c, n);
}

WEFT_HIDDEN char *weft_strchr(const char *text, int c) {
  const char *found = strchr(text, c);
  read_access(text, found && *found ? (size_t)(found - text) + 1 : strlen(text) + 1, WEFT_CALLER_PC());
  return strchr(text, c);
}

WEFT_HIDDEN char *weft_strrchr(const char *text, int c) {
  read_access(text, strlen(text) + 1, WEFT_CALLER_PC());
  return strrchr(text, c);
}

WEFT_HIDDEN char *weft_strstr(const char *haystack, const char *needle) {
  uintptr_t pc = WEFT_CALLER_PC();
  size_t length = strlen(needle);
  const char *found = strstr(haystack, needle);
  read_access(needle, length + 1, pc);
  read_access(haystack, found ? (size_t)(found - haystack) + length : strlen(haystack) + 1, pc);
  return strstr(haystack, needle);
}

/* qsort moves the elements itself: the whole array is read and written (the comparisons, the harness's code, are checked as they run) */
WEFT_HIDDEN void weft_qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *)) {
  memory_access(1, base, count * size, WEFT_CALLER_PC());
  qsort(base, count, size, compare);
}

/* reading from a stream into the harness's memory: the bytes written, once libc wrote them */
char *checked_fgets(char *into, int size, FILE *stream, uintptr_t pc) {
  char *line = fgets(into, size, stream);
  if (line) memory_access(1, into, strlen(into) + 1, pc);
  return line;
}

WEFT_HIDDEN char *weft_fgets(char *into, int size, FILE *stream) { return checked_fgets(into, size, stream, WEFT_CALLER_PC()); }

size_t checked_fread(void *into, size_t size, size_t count, FILE *stream, uintptr_t pc) {
  size_t read = fread(into, size, count, stream);
  memory_access(1, into, read * size, pc);
  return read;
}

WEFT_HIDDEN size_t weft_fread(void *into, size_t size, size_t count, FILE *stream) { return checked_fread(into, size, count, stream, WEFT_CALLER_PC()); }
