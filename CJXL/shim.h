// libjxl (BSD-3-Clause) reports errors by status codes, never by longjmp, so a module map is all
// Swift needs. Debian 12 ships 0.7 (libjxl-dev): the decoder, the encoder and its thread pool.
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
