#ifndef CMALLOC_TUNING_H
#define CMALLOC_TUNING_H

#include <stddef.h>

// glibc's malloc parameters, set once at start-up by the imgtool command (glibc's mallopt, which
// Swift's Glibc module does not export). Returns 1 when both were set, 0 when malloc refused one
// or the C library is not glibc.
//
// mmap_threshold: blocks of this size and larger get a mapping of their own (freed at once to
// the kernel); smaller ones come from the heap. trim_threshold: how much free memory may stay at
// the top of the heap before malloc gives it back.
int cmalloc_tune(size_t mmap_threshold, size_t trim_threshold);

#endif
