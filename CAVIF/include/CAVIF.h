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

/// Copies an 8-bit alpha plane (`width` x `height`, rows `alpha_row_bytes` apart) into byte 3 of
/// each 8-bit RGBA pixel (rows `rgba_row_bytes` apart), leaving the colour bytes as they are.
void imgtool_avif_copy_alpha8(const uint8_t *alpha, size_t alpha_row_bytes, uint8_t *rgba, size_t rgba_row_bytes,
                              uint32_t width, uint32_t height);

#endif
