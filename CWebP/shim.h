// libwebp reports errors by return code (VP8StatusCode, WebPEncodingError, a NULL handle), never
// by longjmp, so Swift can call it directly; this header only brings its declarations into the
// CWebP module. The version-checked initialisers (WebPInitDecoderConfig, WebPConfigInit,
// WebPPictureInit, WebPAnimEncoderOptionsInit, WebPAnimDecoderOptionsInit, ...) are static
// inline functions, which Swift imports like any other function.
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>
