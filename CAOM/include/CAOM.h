// CAOM: libaom's AV1 encoder for MP4 output when libavcodec has no H.264 encoder (libaom is
// BSD-2-Clause; Debian 12's libaom3, which libavif already brings; building needs libaom-dev for its
// headers). Loaded with dlopen on first use, never linked, as the other large libraries are: linked,
// it cost every command 0.15 ms of start-up (`imgtool --version`, median 4.51 against 4.36 ms).
// `IMGTOOL_LIBAOM` names another file to load (tests use it to simulate its absence).
//
// libaom reports errors by return value, never by longjmp. Every libaom type and pointer stays in
// aom_shim.c: Swift hands in RGBA rows and takes out temporal units as bytes. The RGBA to YUV
// conversion is CVPX's `imgtool_rgba_to_i420` (BT.709, limited range, 4:2:0), the one the WebM and
// H.264 writers use, and the stream says so in its sequence header.
#ifndef CAOM_H
#define CAOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How to encode.
typedef struct {
    /// The picture's size (any size from 1; odd sides are padded to even by repeating the last
    /// column and row: `imgtool_aom_coded_width`/`_height` say the result).
    int width;
    int height;
    /// The constant-quality level, 0 (best) to 63, libaom's `cq-level` in its Q mode.
    int cq_level;
    /// libaom's `cpu-used`: 0 (slowest, best) to 6 in good-quality mode, 7 to 10 in real-time mode.
    int cpu_used;
    /// 1: real-time mode (no look-ahead), 0: good-quality mode.
    int realtime;
    /// 1: tuned for screen content (flat colours, text, palettes: libaom's palette and intra block
    /// copy tools).
    int screen;
    /// The threads libaom may use.
    int threads;
    /// The longest distance between key frames, in frames.
    int key_interval_max;
} imgtool_aom_settings;

typedef struct imgtool_aom imgtool_aom;

/// Loads libaom (once); NULL when it loaded, else why not, naming the package to install.
const char *imgtool_aom_problem(void);

/// Creates the encoder. NULL on failure, with a message in `error` (`error_size` bytes).
imgtool_aom *imgtool_aom_create(const imgtool_aom_settings *settings, char *error, size_t error_size);

/// The coded size (even for 4:2:0).
int imgtool_aom_coded_width(const imgtool_aom *aom);
int imgtool_aom_coded_height(const imgtool_aom *aom);

/// Encodes one frame of `width` x `height` RGBA samples (`stride` bytes a row), shown at `pts`
/// for `duration` (in milliseconds); `rgba` NULL drains the encoder at the end (call it until
/// `imgtool_aom_next_packet` finds nothing). Returns 1, or 0 with a message in `error`. The
/// packets made are taken with `imgtool_aom_next_packet` before the next call.
int imgtool_aom_encode(imgtool_aom *aom, const uint8_t *rgba, size_t stride, int64_t pts, unsigned long duration,
                       char *error, size_t error_size);

/// The next temporal unit made by the last `imgtool_aom_encode`: its OBUs (valid until the next
/// encode call), time and whether it is a key frame. Returns 0 when there is none.
int imgtool_aom_next_packet(imgtool_aom *aom, const uint8_t **data, size_t *size, int64_t *pts, int *key);

/// The sequence header OBU (libaom's global header), copied into `buffer` of `capacity` bytes.
/// Returns its size (larger than `capacity` when it does not fit: nothing copied), or 0 when
/// libaom gives none.
size_t imgtool_aom_sequence_header(imgtool_aom *aom, uint8_t *buffer, size_t capacity);

/// Frees the encoder.
void imgtool_aom_destroy(imgtool_aom *aom);

/// libaom's version ("3.6.0"), NULL when it does not load.
const char *imgtool_aom_version(void);

#ifdef __cplusplus
}
#endif

#endif
