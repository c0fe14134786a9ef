#ifndef IMGTOOL_CCOLOR_H
#define IMGTOOL_CCOLOR_H

// Colour management through Little CMS 2 (lcms2, MIT). lcms reports errors through a handler and
// return values, never by longjmp; this shim keeps every lcms type out of Swift: profiles are
// bytes in, transforms are opaque handles, and every failure is a return value with a message.

#include <stddef.h>
#include <stdint.h>

/// An ICC colour space, as the profile header's data colour space says.
typedef enum {
    IMGTOOL_ICC_SPACE_OTHER = 0,
    IMGTOOL_ICC_SPACE_RGB = 1,
    IMGTOOL_ICC_SPACE_GRAY = 2,
    IMGTOOL_ICC_SPACE_CMYK = 3,
} imgtool_icc_space;

/// What a profile says about itself.
typedef struct {
    /// The profile's data colour space.
    imgtool_icc_space space;
    /// The four-character data colour space signature (`RGB `, `GRAY`, `CMYK`, `Lab ` ...).
    char space_signature[5];
    /// The four-character device class (`mntr`, `prtr`, `scnr`, `spac` ...).
    char device_class[5];
    /// The version, e.g. 2.1 or 4.3.
    double version;
    /// 1 when the profile is sRGB in all but its bytes (matrix/shaper, sRGB's colorants and curves).
    int is_srgb;
    /// The English description (`desc`), ASCII (lcms 2.14 has no UTF-8 reader), "" when there is none.
    char description[256];
} imgtool_icc_info;

/// Parses a profile with lcms. Returns 1 when lcms accepts it, 0 (with a reason in `error`) when
/// it does not.
int imgtool_icc_inspect(const uint8_t *data, size_t length, imgtool_icc_info *info, char *error, size_t error_size);

/// An RGB matrix/shaper profile from a white point and primaries (CIE xy) and one transfer curve:
/// `gamma` > 0 a pure power (decoded = encoded^gamma), `gamma` == 0 the sRGB curve. Returns the
/// serialised profile (free it with `imgtool_icc_free`) or NULL.
uint8_t *imgtool_icc_make_rgb(const double white[2], const double red[2], const double green[2],
                              const double blue[2], double gamma, const char *description, size_t *length);

/// As `imgtool_icc_make_rgb`, with the curve `table` (`count` values 0...1, evenly spaced
/// encoded 0...1 to linear) when it is not NULL.
uint8_t *imgtool_icc_make_rgb_curve(const double white[2], const double red[2], const double green[2],
                                    const double blue[2], double gamma, const float *table, size_t count,
                                    const char *description, size_t *length);

/// A grey profile (D50 white, as `cmsCreateGrayProfile` makes them) whose curve is `table`
/// (`count` values 0...1, evenly spaced encoded 0...1 to linear) when it is not NULL, else
/// `gamma` as for `imgtool_icc_make_rgb`. Returns the serialised profile (free it with
/// `imgtool_icc_free`) or NULL.
uint8_t *imgtool_icc_make_gray(double gamma, const float *table, size_t count, size_t *length);

/// The built-in sRGB profile, serialised (free it with `imgtool_icc_free`), or NULL.
uint8_t *imgtool_icc_make_srgb(size_t *length);

void imgtool_icc_free(uint8_t *data);

/// The pixel layouts transforms take. Every layout is four samples a pixel; the fourth is alpha
/// (RGBA) and is never written, so it is kept when the transform runs in place.
typedef enum {
    /// 8-bit R, G, B, A.
    IMGTOOL_PIXELS_RGBA8 = 0,
    /// 16-bit R, G, B, A in native byte order.
    IMGTOOL_PIXELS_RGBA16 = 1,
    /// 8-bit grey in the first sample of four (R of an RGBA pixel whose R = G = B), in; RGBA8 out.
    IMGTOOL_PIXELS_GRAY_IN_RGBA8 = 2,
    /// 16-bit grey in the first sample of four, in; RGBA16 out.
    IMGTOOL_PIXELS_GRAY_IN_RGBA16 = 3,
    /// 8-bit C, M, Y, K as Adobe stores them (inverted: 255 is no ink), in; RGBA8 out (alpha not written).
    IMGTOOL_PIXELS_CMYK8_INVERTED = 4,
    /// 8-bit C, M, Y, K (255 is full ink), in; RGBA8 out (alpha not written).
    IMGTOOL_PIXELS_CMYK8 = 5,
} imgtool_pixels;

typedef struct imgtool_color_transform imgtool_color_transform;

/// A transform from pixels described by `source` to pixels described by `destination` (each a
/// serialised profile, or NULL/0 for sRGB), the output always RGB (or RGBA with the alpha sample
/// untouched), perceptual intent. Safe to run from several threads at once. NULL with a reason in
/// `error` when lcms refuses a profile or the pair.
imgtool_color_transform *imgtool_color_transform_new(const uint8_t *source, size_t source_length,
                                                     const uint8_t *destination, size_t destination_length,
                                                     imgtool_pixels pixels, char *error, size_t error_size);

/// Transforms `count` pixels from `input` to `output` (which may be the same memory: in place).
void imgtool_color_transform_apply(const imgtool_color_transform *transform, const void *input, void *output,
                                   size_t count);

/// For a CMYK transform: transforms `count` pixels in place and sets every alpha sample to 255.
void imgtool_color_transform_cmyk_rows(const imgtool_color_transform *transform, uint8_t *pixels, size_t count);

void imgtool_color_transform_free(imgtool_color_transform *transform);

/// Converts `count` pixels with Little CMS's unoptimised transform in double precision
/// (`cmsFLAGS_NOOPTIMIZE`, perceptual intent): the reference the transforms above are held to.
/// `input` holds `channels` samples 0...1 a pixel (1: grey, 3: RGB, 4: CMYK with 1 full ink) in
/// the space of `source`; `output` gets 3 samples 0...1 a pixel (unclamped) in `destination`
/// (NULL/0: sRGB). Returns 1, or 0 when Little CMS refuses the profiles.
int imgtool_color_reference(const uint8_t *source, size_t source_length, const uint8_t *destination,
                            size_t destination_length, int channels, const double *input, double *output,
                            size_t count);

/// Evaluates a matrix/shaper RGB or grey profile's transfer curves (encoded 0...1 to linear 0...1)
/// at `count` evenly spaced points from 0 to 1, into `out[channel * count + i]` for 3 channels
/// (grey: the one curve copied three times). Returns 1, or 0 when the profile has no such curves.
int imgtool_icc_sample_curves(const uint8_t *data, size_t length, float *out, size_t count);

#endif
