// CVPX: libvpx's VP9 encoder for WebM output, linked (libvpx is BSD-licensed; Debian 12's libvpx7).
//
// libvpx reports errors by return value, never by longjmp. Every libvpx type and pointer stays in
// vpx_shim.c: Swift hands in RGBA rows and takes out compressed packets as bytes. The shim converts
// RGBA to YUV itself (BT.709, limited range, 4:2:0; or RGB kept as GBR 4:4:4 for lossless) so the
// conversion and the colour the stream declares cannot disagree.
#ifndef CVPX_H
#define CVPX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How to encode.
typedef struct {
    /// The picture's size (any size from 1; the shim pads odd sizes to even for 4:2:0 by repeating
    /// the last column and row: `coded_width`/`coded_height` say the result).
    int width;
    int height;
    /// The constant-quality level, 0 (best) to 63, libvpx's `cq-level` in its Q mode.
    int cq_level;
    /// The alpha stream's constant-quality level.
    int alpha_cq_level;
    /// libvpx's `cpu-used`, 0 (slowest, best) to 9.
    int cpu_used;
    /// 1: VP9 lossless, 4:4:4, RGB kept as GBR (profile 1): every sample comes back.
    int lossless;
    /// 1: a second encoder for the alpha plane (WebM's BlockAdditions, alpha mode 1).
    int alpha;
    /// The threads libvpx may use.
    int threads;
    /// A key frame every this many frames on both encoders (with alpha, so that they agree); 0:
    /// libvpx places them (at most every `key_interval_max` frames).
    int key_interval;
    /// The longest distance between key frames libvpx may choose.
    int key_interval_max;
} imgtool_vpx_settings;

typedef struct imgtool_vpx imgtool_vpx;

/// Creates the encoders. NULL on failure, with a message in `error` (`error_size` bytes).
imgtool_vpx *imgtool_vpx_create(const imgtool_vpx_settings *settings, char *error, size_t error_size);

/// The coded size (even for 4:2:0).
int imgtool_vpx_coded_width(const imgtool_vpx *vpx);
int imgtool_vpx_coded_height(const imgtool_vpx *vpx);

/// Encodes one frame of `width` x `height` RGBA samples (`stride` bytes a row), shown at `pts`
/// for `duration` (in milliseconds); `rgba` NULL drains the encoders at the end. `force_key`
/// makes it a key frame. Returns 1, or 0 with a message in `error`. The packets made are taken
/// with `imgtool_vpx_next_packet` before the next call.
int imgtool_vpx_encode(imgtool_vpx *vpx, const uint8_t *rgba, size_t stride, int64_t pts, unsigned long duration,
                       int force_key, char *error, size_t error_size);

/// The next packet of `stream` (0 colour, 1 alpha) made by the last `imgtool_vpx_encode`: its
/// bytes (valid until the next encode call), time and whether it is a key frame. Returns 0 when
/// there is none.
int imgtool_vpx_next_packet(imgtool_vpx *vpx, int stream, const uint8_t **data, size_t *size, int64_t *pts,
                            int *key);

/// Frees the encoders.
void imgtool_vpx_destroy(imgtool_vpx *vpx);

/// The shim's RGBA to YUV conversion on its own (for the H.264 encoder): `width` x `height` RGBA
/// samples into 4:2:0 planes of the even size (the last column and row repeated), BT.709 limited
/// range.
void imgtool_rgba_to_i420(const uint8_t *rgba, size_t stride, int width, int height, uint8_t *const planes[3],
                          const int strides[3]);

/// libvpx's version ("v1.12.0").
const char *imgtool_vpx_version(void);

#ifdef __cplusplus
}
#endif

#endif
