// libjxl (BSD-3-Clause) reports errors by status codes, never by longjmp. Debian 12 ships 0.7
// (libjxl-dev): the decoder, the encoder and its thread pool. The library is not linked: the
// functions ImgToolKit calls are defined in jxl_loader.c (scripts/make-lazy-loaders.py writes
// it), which loads libjxl.so.0.7 and libjxl_threads.so.0.7 on first use, so that commands which
// never touch JPEG XL do not pay for loading libjxl, libhwy and brotli at start-up.
#ifndef IMGTOOL_CJXL_H
#define IMGTOOL_CJXL_H

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

/// Loads libjxl once per process: 1 when it is loaded, else 0 with `*error` (when not NULL) set
/// to the reason (which library, what to install). Every forwarded function loads it too, and
/// returns its failure value when it cannot be loaded.
int imgtool_jxl_load(const char **error);

#endif
