// libavif (BSD-2-Clause) reports errors by return value, never by longjmp, so a module map is all
// Swift needs. Debian 12 ships 0.11.1 (libavif-dev), decoding with dav1d and encoding with aom.
#include <avif/avif.h>
