#include "CMallocTuning.h"

#include <limits.h>  // defines __GLIBC__ on glibc (through features.h)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int cmalloc_tune(size_t mmap_threshold, size_t trim_threshold) {
#if defined(__GLIBC__)
    if (mmap_threshold > INT_MAX || trim_threshold > INT_MAX) return 0;
    int mapped = mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
    int trimmed = mallopt(M_TRIM_THRESHOLD, (int)trim_threshold);
    return mapped == 1 && trimmed == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}
