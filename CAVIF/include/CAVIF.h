// libavif (BSD-2-Clause) reports errors by return value, never by longjmp. Debian 12 ships
// 0.11.1 (libavif-dev): dav1d decodes, aom encodes. The library is not linked: the functions
// ImgToolKit calls are defined in avif_loader.c (scripts/make-lazy-loaders.py writes it), which
// loads libavif.so.15 on first use, so that commands which never touch AVIF do not pay for
// loading libavif and its six AV1 codecs at start-up.
#ifndef IMGTOOL_CAVIF_H
#define IMGTOOL_CAVIF_H

#include <avif/avif.h>

/// Loads libavif once per process: 1 when it is loaded, else 0 with `*error` (when not NULL) set
/// to the reason. Every forwarded function loads it too, and returns its failure value when it
/// cannot be loaded.
int imgtool_avif_load(const char **error);

#endif
