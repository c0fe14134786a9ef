#include "CColor.h"

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A matrix/shaper RGB profile to another, 8- or 16-bit RGBA: decoded through each channel's
// curve by table, the 3x3 matrix that takes one profile's linear RGB to the other's (both through
// the D50 PCS, as Little CMS does for these profiles and the perceptual or relative intent), and
// encoded by a table of the destination's inverse curves. Little CMS's own optimised path does
// the same in fixed point, one pixel at a time through its packing routines; this loop is several
// times faster, and within one level of Little CMS's unoptimised float transform of the same
// profiles (tested). 16-bit output interpolates a float table with 256 entries an octave of
// linear light, from 2^-40 to 1: a pure power's inverse is too steep near black for any table of
// even linear steps (from 0 to 1/65535 linear, gamma 2.2 climbs 425 of 65535 levels), and in
// octaves it is smooth. A sampled inverse curve is the exception: Little CMS evaluates one at the
// nearest of 65536 linear inputs, and so does its table here (65536 entries, the nearest taken).
enum { FAST_OUT = 65536, FAST_OCTAVES = 40, FAST_OCTAVE_STEPS = 256 };
#define FAST_LOWEST 0x1p-40f
#define FAST_LOWEST_BITS ((uint32_t)(127 - FAST_OCTAVES) << 23)
_Static_assert(FAST_OCTAVE_STEPS == 1 << (23 - 15), "an octave's entries are the top 8 bits of the mantissa");

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

typedef struct {
    int sixteen;
    /// 8-bit input: each channel's value already through its curve and its column of the matrix,
    /// so that a pixel's linear output is three vector loads and two adds.
    v4f columns[3][256];
    float matrix[9];
    float *in[3];        // 256 or 65536 entries: encoded sample to linear 0...1
    uint16_t *out[3];    // 8-bit output: FAST_OUT entries, linear 0...1 to encoded 0...255
    float *out16[3];     // 16-bit output: to encoded 0...65535 (in octaves: value and rise pairs)
    cmsToneCurve *reverse[3];  // the inverse curves
    /// 16-bit output: whether the inverse curve is sampled, not parametric. Little CMS then
    /// evaluates it at the nearest of 65536 inputs, even in float: so does the table.
    int sampled[3];
} fast_path;

// Grey in, RGB out: the whole domain is 256 or 65536 codes, so the transform is a table of every
// code's output, each computed by Little CMS's unoptimised float transform. (Its default 8-bit
// grey path samples the curves at a few dozen points: 10 levels off near black for a linear grey.)
typedef struct {
    int sixteen;
    void *table;  // levels x 3 samples: uint8_t or uint16_t
} gray_path;

struct imgtool_color_transform {
    cmsHTRANSFORM transform;
    fast_path *fast;
    gray_path *gray;
};

static void fast_free(fast_path *fast) {
    if (fast == NULL) return;
    for (int c = 0; c < 3; c++) {
        free(fast->in[c]);
        free(fast->out[c]);
        free(fast->out16[c]);
        if (fast->reverse[c] != NULL) cmsFreeToneCurve(fast->reverse[c]);
    }
    free(fast);
}

static void gray_free(gray_path *gray) {
    if (gray == NULL) return;
    free(gray->table);
    free(gray);
}

static gray_path *gray_new(cmsHPROFILE input, cmsHPROFILE output, int sixteen) {
    size_t levels = sixteen ? 65536 : 256;
    float maximum = sixteen ? 65535 : 255;
    gray_path *gray = calloc(1, sizeof *gray);
    float *codes = malloc(levels * sizeof(float));
    float *rgb = malloc(levels * 3 * sizeof(float));
    void *table = malloc(levels * 3 * (sixteen ? 2 : 1));
    cmsHTRANSFORM transform = cmsCreateTransform(input, TYPE_GRAY_FLT, output, TYPE_RGB_FLT, INTENT_PERCEPTUAL,
                                                 cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    if (gray == NULL || codes == NULL || rgb == NULL || table == NULL || transform == NULL) {
        free(gray);
        free(codes);
        free(rgb);
        free(table);
        if (transform != NULL) cmsDeleteTransform(transform);
        return NULL;
    }
    for (size_t i = 0; i < levels; i++) codes[i] = (float)i / maximum;
    cmsDoTransform(transform, codes, rgb, (cmsUInt32Number)levels);
    cmsDeleteTransform(transform);
    for (size_t i = 0; i < levels * 3; i++) {
        float value = rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i];
        if (sixteen) {
            ((uint16_t *)table)[i] = (uint16_t)(value * maximum + 0.5f);
        } else {
            ((uint8_t *)table)[i] = (uint8_t)(value * maximum + 0.5f);
        }
    }
    free(codes);
    free(rgb);
    gray->sixteen = sixteen;
    gray->table = table;
    return gray;
}

static void gray_apply(const gray_path *gray, const void *input, void *output, size_t count) {
    if (gray->sixteen) {
        const uint16_t *in = input, *table = gray->table;
        uint16_t *out = output;
        for (size_t i = 0; i < count; i++) {
            const uint16_t *rgb = table + (size_t)in[4 * i] * 3;
            out[4 * i] = rgb[0];
            out[4 * i + 1] = rgb[1];
            out[4 * i + 2] = rgb[2];
            out[4 * i + 3] = in[4 * i + 3];
        }
    } else {
        const uint8_t *in = input, *table = gray->table;
        uint8_t *out = output;
        for (size_t i = 0; i < count; i++) {
            const uint8_t *rgb = table + (size_t)in[4 * i] * 3;
            out[4 * i] = rgb[0];
            out[4 * i + 1] = rgb[1];
            out[4 * i + 2] = rgb[2];
            out[4 * i + 3] = in[4 * i + 3];
        }
    }
}

// The profile's colorant matrix (linear RGB to D50 XYZ), and its three curves; 0 when it is not
// a matrix/shaper RGB profile Little CMS would use as one for `intent`.
static int matrix_shaper(cmsHPROFILE profile, int as_output, double m[9], cmsToneCurve *curves[3]) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)) return 0;
    if (cmsIsCLUT(profile, INTENT_PERCEPTUAL, as_output ? LCMS_USED_AS_OUTPUT : LCMS_USED_AS_INPUT)) return 0;
    const cmsCIEXYZ *r = cmsReadTag(profile, cmsSigRedColorantTag);
    const cmsCIEXYZ *g = cmsReadTag(profile, cmsSigGreenColorantTag);
    const cmsCIEXYZ *b = cmsReadTag(profile, cmsSigBlueColorantTag);
    curves[0] = cmsReadTag(profile, cmsSigRedTRCTag);
    curves[1] = cmsReadTag(profile, cmsSigGreenTRCTag);
    curves[2] = cmsReadTag(profile, cmsSigBlueTRCTag);
    if (r == NULL || g == NULL || b == NULL || curves[0] == NULL || curves[1] == NULL || curves[2] == NULL) return 0;
    const cmsCIEXYZ *columns[3] = {r, g, b};
    for (int col = 0; col < 3; col++) {
        m[0 * 3 + col] = columns[col]->X;
        m[1 * 3 + col] = columns[col]->Y;
        m[2 * 3 + col] = columns[col]->Z;
    }
    return 1;
}

// Whether two curves are one (the same tag) or give the same values at 1024 points.
static int same_curve(const cmsToneCurve *a, const cmsToneCurve *b) {
    if (a == b) return 1;
    for (int i = 0; i < 1024; i++) {
        cmsFloat32Number x = (cmsFloat32Number)i / 1023;
        if (cmsEvalToneCurveFloat(a, x) != cmsEvalToneCurveFloat(b, x)) return 0;
    }
    return 1;
}

static int invert3(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                 m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (det > -1e-12 && det < 1e-12) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

static fast_path *fast_new(cmsHPROFILE input, cmsHPROFILE output, int sixteen) {
    double source[9], destination[9], inverse[9];
    cmsToneCurve *in_curves[3], *out_curves[3];
    if (!matrix_shaper(input, 0, source, in_curves) || !matrix_shaper(output, 1, destination, out_curves)) {
        return NULL;
    }
    if (!invert3(destination, inverse)) return NULL;
    fast_path *fast = calloc(1, sizeof *fast);
    if (fast == NULL) return NULL;
    fast->sixteen = sixteen;
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += inverse[row * 3 + k] * source[k * 3 + col];
            fast->matrix[row * 3 + col] = (float)sum;
        }
    }
    size_t levels = sixteen ? 65536 : 256;
    double maximum = sixteen ? 65535 : 255;
    for (int c = 0; c < 3; c++) {
        fast->in[c] = malloc(levels * sizeof(float));
        if (sixteen) {
            // One entry more, a copy of the last: interpolating at 1 reads it.
            fast->out16[c] = malloc((FAST_OUT + 1) * sizeof(float));
        } else {
            fast->out[c] = malloc(FAST_OUT * sizeof(uint16_t));
        }
        // The inverse as Little CMS's own transforms make it (4096 points for a sampled curve).
        fast->reverse[c] = cmsReverseToneCurveEx(4096, out_curves[c]);
        if (fast->in[c] == NULL || (sixteen ? (void *)fast->out16[c] : (void *)fast->out[c]) == NULL ||
            fast->reverse[c] == NULL) {
            fast_free(fast);
            return NULL;
        }
        for (size_t i = 0; i < levels; i++) {
            fast->in[c][i] = cmsEvalToneCurveFloat(in_curves[c], (cmsFloat32Number)(i / maximum));
        }
        fast->sampled[c] = cmsGetToneCurveParametricType(fast->reverse[c]) == 0;
        // Channels usually share one curve: its inverse table is then made once.
        int same = -1;
        for (int earlier = 0; earlier < c && same < 0; earlier++) {
            if (same_curve(out_curves[earlier], out_curves[c])) same = earlier;
        }
        if (same >= 0 && sixteen) {
            memcpy(fast->out16[c], fast->out16[same], (FAST_OUT + 1) * sizeof(float));
        } else if (same >= 0) {
            memcpy(fast->out[c], fast->out[same], FAST_OUT * sizeof(uint16_t));
        } else {
            // 16-bit, parametric: entry j is 2^(j / 256 - 40) x (1 + (j % 256) / 256), up to 1.
            int octaves = sixteen && !fast->sampled[c];
            size_t entries = octaves ? FAST_OCTAVES * FAST_OCTAVE_STEPS + 1 : FAST_OUT;
            for (size_t i = 0; i < entries; i++) {
                double at = octaves ? ldexp(1 + (double)(i % FAST_OCTAVE_STEPS) / FAST_OCTAVE_STEPS,
                                            (int)(i / FAST_OCTAVE_STEPS) - FAST_OCTAVES)
                                    : i / (double)(FAST_OUT - 1);
                double value = cmsEvalToneCurveFloat(fast->reverse[c], (cmsFloat32Number)at);
                value = value < 0 ? 0 : value > 1 ? 1 : value;
                if (sixteen) {
                    fast->out16[c][i] = (float)(value * maximum);
                } else {
                    fast->out[c][i] = (uint16_t)(value * maximum + 0.5);
                }
            }
            if (sixteen) fast->out16[c][entries] = fast->out16[c][entries - 1];
            // In octaves, entry j becomes a pair: the value, and the rise to the next per 1/32768.
            for (size_t j = octaves ? entries : 0; j-- > 0;) {
                float value = fast->out16[c][j], rise = (fast->out16[c][j + 1] - value) / 32768;
                fast->out16[c][2 * j] = value;
                fast->out16[c][2 * j + 1] = rise;
            }
        }
        if (!sixteen) {
            for (size_t i = 0; i < 256; i++) {
                float linear = fast->in[c][i];
                fast->columns[c][i] = (v4f){fast->matrix[0 * 3 + c] * linear, fast->matrix[1 * 3 + c] * linear,
                                            fast->matrix[2 * 3 + c] * linear, 0};
            }
        }
    }
    return fast;
}

static inline uint16_t fast_round16(float encoded) {
    encoded = encoded < 0 ? 0 : encoded > 65535 ? 65535 : encoded;
    return (uint16_t)(encoded + 0.5f);
}

// A 16-bit output sample through a table over linear light in octaves (the float's exponent and
// the top 8 bits of its mantissa give the entry, the other 15 bits the interpolation).
static inline uint16_t fast_out16_octaves(const float *pairs, float linear) {
    linear = linear > FAST_LOWEST ? linear : FAST_LOWEST;  // NaN too
    linear = linear < 1 ? linear : 1;
    uint32_t bits;
    memcpy(&bits, &linear, sizeof bits);
    uint32_t position = bits - FAST_LOWEST_BITS;
    const float *pair = pairs + 2 * (position >> 15);
    // The table's values are 0...65535, and so is what lies between two of them.
    return (uint16_t)(int)(pair[0] + pair[1] * (float)(int)(position & 0x7fff) + 0.5f);
}

// A 16-bit output sample through a table over linear, the nearest entry.
static inline uint16_t fast_out16_nearest(const float *table, float linear) {
    linear = linear > 0 ? linear : 0;  // NaN too
    linear = linear < 1 ? linear : 1;
    return fast_round16(table[(int)(linear * (FAST_OUT - 1) + 0.5f)]);
}

static inline uint16_t fast_out16(const fast_path *fast, int c, float linear) {
    return fast->sampled[c] ? fast_out16_nearest(fast->out16[c], linear)
                            : fast_out16_octaves(fast->out16[c], linear);
}

static void fast_apply(const fast_path *fast, const void *input, void *output, size_t count) {
    const float *m = fast->matrix;
    if (fast->sixteen) {
        const uint16_t *in = input;
        uint16_t *out = output;
        if (!fast->sampled[0] && !fast->sampled[1] && !fast->sampled[2]) {
            for (size_t i = 0; i < count; i++) {
                float r = fast->in[0][in[4 * i]], g = fast->in[1][in[4 * i + 1]], b = fast->in[2][in[4 * i + 2]];
                uint16_t alpha = in[4 * i + 3];
                out[4 * i] = fast_out16_octaves(fast->out16[0], m[0] * r + m[1] * g + m[2] * b);
                out[4 * i + 1] = fast_out16_octaves(fast->out16[1], m[3] * r + m[4] * g + m[5] * b);
                out[4 * i + 2] = fast_out16_octaves(fast->out16[2], m[6] * r + m[7] * g + m[8] * b);
                out[4 * i + 3] = alpha;
            }
            return;
        }
        for (size_t i = 0; i < count; i++) {
            float r = fast->in[0][in[4 * i]], g = fast->in[1][in[4 * i + 1]], b = fast->in[2][in[4 * i + 2]];
            uint16_t alpha = in[4 * i + 3];
            out[4 * i] = fast_out16(fast, 0, m[0] * r + m[1] * g + m[2] * b);
            out[4 * i + 1] = fast_out16(fast, 1, m[3] * r + m[4] * g + m[5] * b);
            out[4 * i + 2] = fast_out16(fast, 2, m[6] * r + m[7] * g + m[8] * b);
            out[4 * i + 3] = alpha;
        }
    } else {
        const uint8_t *in = input;
        uint8_t *out = output;
        const v4f zero = {0, 0, 0, 0}, one = {1, 1, 1, 1}, scale = {FAST_OUT - 1, FAST_OUT - 1, FAST_OUT - 1, 0},
                  half = {0.5f, 0.5f, 0.5f, 0.5f};
        for (size_t i = 0; i < count; i++) {
            v4f linear = fast->columns[0][in[4 * i]] + fast->columns[1][in[4 * i + 1]] + fast->columns[2][in[4 * i + 2]];
            v4i below = linear < zero, above = linear > one;  // lanes of all ones where true
            linear = (v4f)((((v4i)linear & ~below) & ~above) | ((v4i)one & above));
            v4f at = linear * scale + half;
            uint8_t alpha = in[4 * i + 3];
            out[4 * i] = (uint8_t)fast->out[0][(int)at[0]];
            out[4 * i + 1] = (uint8_t)fast->out[1][(int)at[1]];
            out[4 * i + 2] = (uint8_t)fast->out[2][(int)at[2]];
            out[4 * i + 3] = alpha;
        }
    }
}

static void set_error(char *error, size_t error_size, const char *message) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "%s", message);
}

// lcms's messages go nowhere by default; each call here reports its own failure.
static cmsHPROFILE open_profile(const uint8_t *data, size_t length) {
    if (data == NULL || length == 0) return cmsCreate_sRGBProfile();
    if (length < 132 || length > 0x7fffffff) return NULL;  // shorter than the header and tag count
    return cmsOpenProfileFromMem(data, (cmsUInt32Number)length);
}

static void signature_text(cmsUInt32Number signature, char out[5]) {
    for (int i = 0; i < 4; i++) {
        char c = (char)((signature >> (24 - 8 * i)) & 0xff);
        out[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    out[4] = 0;
}

static int matrix_shaper(cmsHPROFILE profile, int as_output, double m[9], cmsToneCurve *curves[3]);

// Whether a profile is sRGB in all but its bytes: matrix/shaper RGB with sRGB's colorants and
// curves (to 1/500 and half a level), as most "sRGB IEC61966-2.1" profiles cameras embed are.
static int is_srgb(cmsHPROFILE profile) {
    double m[9], reference[9];
    cmsToneCurve *curves[3], *reference_curves[3];
    if (!matrix_shaper(profile, 0, m, curves) || !matrix_shaper(profile, 1, m, curves)) return 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (srgb == NULL) return 0;
    int same = matrix_shaper(srgb, 0, reference, reference_curves);
    for (int i = 0; same && i < 9; i++) {
        if (m[i] - reference[i] > 0.002 || reference[i] - m[i] > 0.002) same = 0;
    }
    for (int c = 0; same && c < 3; c++) {
        for (int i = 0; same && i < 256; i++) {
            float x = (float)i / 255;
            float d = cmsEvalToneCurveFloat(curves[c], x) - cmsEvalToneCurveFloat(reference_curves[c], x);
            if (d > 0.5f / 255 || d < -0.5f / 255) same = 0;
        }
    }
    cmsCloseProfile(srgb);
    return same;
}

int imgtool_icc_inspect(const uint8_t *data, size_t length, imgtool_icc_info *info, char *error, size_t error_size) {
    memset(info, 0, sizeof *info);
    if (data == NULL || length < 132) {
        set_error(error, error_size, "shorter than an ICC header");
        return 0;
    }
    cmsHPROFILE profile = open_profile(data, length);
    if (profile == NULL) {
        set_error(error, error_size, "Little CMS cannot read it");
        return 0;
    }
    cmsColorSpaceSignature space = cmsGetColorSpace(profile);
    switch (space) {
        case cmsSigRgbData: info->space = IMGTOOL_ICC_SPACE_RGB; break;
        case cmsSigGrayData: info->space = IMGTOOL_ICC_SPACE_GRAY; break;
        case cmsSigCmykData: info->space = IMGTOOL_ICC_SPACE_CMYK; break;
        default: info->space = IMGTOOL_ICC_SPACE_OTHER; break;
    }
    signature_text((cmsUInt32Number)space, info->space_signature);
    signature_text((cmsUInt32Number)cmsGetDeviceClass(profile), info->device_class);
    info->version = cmsGetProfileVersion(profile);
    info->is_srgb = is_srgb(profile);
    cmsUInt32Number got =
        cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", info->description, sizeof info->description);
    if (got == 0) info->description[0] = 0;
    info->description[sizeof info->description - 1] = 0;
    cmsCloseProfile(profile);
    return 1;
}

static uint8_t *serialise(cmsHPROFILE profile, size_t *length) {
    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(profile, NULL, &size) || size == 0) return NULL;
    uint8_t *bytes = malloc(size);
    if (bytes == NULL) return NULL;
    if (!cmsSaveProfileToMem(profile, bytes, &size)) {
        free(bytes);
        return NULL;
    }
    *length = size;
    return bytes;
}

static void describe(cmsHPROFILE profile, const char *description) {
    cmsMLU *text = cmsMLUalloc(NULL, 1);
    if (text == NULL) return;
    cmsMLUsetASCII(text, "en", "US", description);
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, text);
    cmsMLUfree(text);
}

static cmsToneCurve *transfer_curve(double gamma) {
    if (gamma > 0) return cmsBuildGamma(NULL, gamma);
    const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    return cmsBuildParametricToneCurve(NULL, 4, srgb);
}

// `table` (count values) when it is not NULL, else `gamma` as transfer_curve takes it.
static cmsToneCurve *curve_from(double gamma, const float *table, size_t count) {
    if (table == NULL) return transfer_curve(gamma);
    if (count < 2 || count > 65536) return NULL;
    return cmsBuildTabulatedToneCurveFloat(NULL, (cmsUInt32Number)count, table);
}

uint8_t *imgtool_icc_make_rgb(const double white[2], const double red[2], const double green[2],
                              const double blue[2], double gamma, const char *description, size_t *length) {
    return imgtool_icc_make_rgb_curve(white, red, green, blue, gamma, NULL, 0, description, length);
}

uint8_t *imgtool_icc_make_rgb_curve(const double white[2], const double red[2], const double green[2],
                                    const double blue[2], double gamma, const float *table, size_t count,
                                    const char *description, size_t *length) {
    cmsCIExyY white_point = {white[0], white[1], 1};
    cmsCIExyYTRIPLE primaries = {{red[0], red[1], 1}, {green[0], green[1], 1}, {blue[0], blue[1], 1}};
    cmsToneCurve *curve = curve_from(gamma, table, count);
    if (curve == NULL) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white_point, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (profile == NULL) return NULL;
    if (description != NULL) describe(profile, description);
    uint8_t *bytes = serialise(profile, length);
    cmsCloseProfile(profile);
    return bytes;
}

uint8_t *imgtool_icc_make_gray(double gamma, const float *table, size_t count, size_t *length) {
    cmsToneCurve *curve = curve_from(gamma, table, count);
    if (curve == NULL) return NULL;
    cmsHPROFILE profile = cmsCreateGrayProfile(cmsD50_xyY(), curve);
    cmsFreeToneCurve(curve);
    if (profile == NULL) return NULL;
    uint8_t *bytes = serialise(profile, length);
    cmsCloseProfile(profile);
    return bytes;
}

uint8_t *imgtool_icc_make_srgb(size_t *length) {
    cmsHPROFILE profile = cmsCreate_sRGBProfile();
    if (profile == NULL) return NULL;
    describe(profile, "sRGB IEC61966-2.1");
    uint8_t *bytes = serialise(profile, length);
    cmsCloseProfile(profile);
    return bytes;
}

void imgtool_icc_free(uint8_t *data) { free(data); }

imgtool_color_transform *imgtool_color_transform_new(const uint8_t *source, size_t source_length,
                                                     const uint8_t *destination, size_t destination_length,
                                                     imgtool_pixels pixels, char *error, size_t error_size) {
    cmsUInt32Number in_format, out_format;
    switch (pixels) {
        case IMGTOOL_PIXELS_RGBA8:
            in_format = TYPE_RGBA_8;
            out_format = TYPE_RGBA_8;
            break;
        case IMGTOOL_PIXELS_RGBA16:
            in_format = TYPE_RGBA_16;
            out_format = TYPE_RGBA_16;
            break;
        case IMGTOOL_PIXELS_GRAY_IN_RGBA8:
            in_format = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
            out_format = TYPE_RGBA_8;
            break;
        case IMGTOOL_PIXELS_GRAY_IN_RGBA16:
            in_format = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(2) | EXTRA_SH(3);
            out_format = TYPE_RGBA_16;
            break;
        case IMGTOOL_PIXELS_CMYK8_INVERTED:
            in_format = TYPE_CMYK_8_REV;
            out_format = TYPE_RGBA_8;
            break;
        case IMGTOOL_PIXELS_CMYK8:
            in_format = TYPE_CMYK_8;
            out_format = TYPE_RGBA_8;
            break;
        default:
            set_error(error, error_size, "unknown pixel layout");
            return NULL;
    }
    cmsHPROFILE input = open_profile(source, source_length);
    if (input == NULL) {
        set_error(error, error_size, "Little CMS cannot read the image's profile");
        return NULL;
    }
    cmsHPROFILE output = open_profile(destination, destination_length);
    if (output == NULL) {
        cmsCloseProfile(input);
        set_error(error, error_size, "Little CMS cannot read the output profile");
        return NULL;
    }
    // NOCACHE: one transform serves several threads at once (the one-pixel cache is not shared
    // safely). The alpha sample is an extra channel that is never written, so it survives in place.
    // Two matrix/shaper profiles take the fast path, grey input a table of every code; Little
    // CMS's transform is made only otherwise.
    fast_path *fast = NULL;
    gray_path *gray = NULL;
    if (pixels == IMGTOOL_PIXELS_RGBA8 || pixels == IMGTOOL_PIXELS_RGBA16) {
        fast = fast_new(input, output, pixels == IMGTOOL_PIXELS_RGBA16);
    } else if (pixels == IMGTOOL_PIXELS_GRAY_IN_RGBA8 || pixels == IMGTOOL_PIXELS_GRAY_IN_RGBA16) {
        gray = gray_new(input, output, pixels == IMGTOOL_PIXELS_GRAY_IN_RGBA16);
    }
    cmsHTRANSFORM transform =
        fast != NULL || gray != NULL
            ? NULL
            : cmsCreateTransform(input, in_format, output, out_format, INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
    cmsCloseProfile(input);
    cmsCloseProfile(output);
    if (transform == NULL && fast == NULL && gray == NULL) {
        set_error(error, error_size, "Little CMS cannot convert between these profiles");
        return NULL;
    }
    imgtool_color_transform *result = malloc(sizeof *result);
    if (result == NULL) {
        if (transform != NULL) cmsDeleteTransform(transform);
        fast_free(fast);
        gray_free(gray);
        set_error(error, error_size, "out of memory");
        return NULL;
    }
    result->transform = transform;
    result->fast = fast;
    result->gray = gray;
    return result;
}

void imgtool_color_transform_apply(const imgtool_color_transform *transform, const void *input, void *output,
                                   size_t count) {
    if (transform->fast != NULL) {
        fast_apply(transform->fast, input, output, count);
        return;
    }
    if (transform->gray != NULL) {
        gray_apply(transform->gray, input, output, count);
        return;
    }
    while (count > 0) {
        cmsUInt32Number chunk = count > 0x10000000 ? 0x10000000 : (cmsUInt32Number)count;
        cmsDoTransform(transform->transform, input, output, chunk);
        count -= chunk;
        input = (const void *)((const uint8_t *)input + (size_t)chunk * 4);
        output = (void *)((uint8_t *)output + (size_t)chunk * 4);
    }
}

void imgtool_color_transform_cmyk_rows(const imgtool_color_transform *transform, uint8_t *pixels, size_t count) {
    imgtool_color_transform_apply(transform, pixels, pixels, count);
    for (size_t i = 0; i < count; i++) pixels[i * 4 + 3] = 255;
}

void imgtool_color_transform_free(imgtool_color_transform *transform) {
    if (transform == NULL) return;
    if (transform->transform != NULL) cmsDeleteTransform(transform->transform);
    fast_free(transform->fast);
    gray_free(transform->gray);
    free(transform);
}

int imgtool_icc_sample_curves(const uint8_t *data, size_t length, float *out, size_t count) {
    cmsHPROFILE profile = open_profile(data, length);
    if (profile == NULL) return 0;
    int ok = 0;
    if (count >= 2 && cmsIsMatrixShaper(profile)) {
        const cmsToneCurve *curves[3] = {NULL, NULL, NULL};
        if (cmsGetColorSpace(profile) == cmsSigGrayData) {
            curves[0] = curves[1] = curves[2] = cmsReadTag(profile, cmsSigGrayTRCTag);
        } else if (cmsGetColorSpace(profile) == cmsSigRgbData) {
            curves[0] = cmsReadTag(profile, cmsSigRedTRCTag);
            curves[1] = cmsReadTag(profile, cmsSigGreenTRCTag);
            curves[2] = cmsReadTag(profile, cmsSigBlueTRCTag);
        }
        if (curves[0] != NULL && curves[1] != NULL && curves[2] != NULL) {
            for (size_t channel = 0; channel < 3; channel++) {
                for (size_t i = 0; i < count; i++) {
                    float value = cmsEvalToneCurveFloat(curves[channel], (float)i / (float)(count - 1));
                    out[channel * count + i] = value < 0 ? 0 : (value > 1 ? 1 : value);
                }
            }
            ok = 1;
        }
    }
    cmsCloseProfile(profile);
    return ok;
}

int imgtool_color_reference(const uint8_t *source, size_t source_length, const uint8_t *destination,
                            size_t destination_length, int channels, const double *input, double *output,
                            size_t count) {
    cmsUInt32Number format;
    switch (channels) {
        case 1: format = TYPE_GRAY_DBL; break;
        case 3: format = TYPE_RGB_DBL; break;
        case 4: format = TYPE_CMYK_DBL; break;
        default: return 0;
    }
    cmsHPROFILE input_profile = open_profile(source, source_length);
    cmsHPROFILE output_profile = open_profile(destination, destination_length);
    cmsHTRANSFORM transform = NULL;
    if (input_profile != NULL && output_profile != NULL) {
        transform = cmsCreateTransform(input_profile, format, output_profile, TYPE_RGB_DBL, INTENT_PERCEPTUAL,
                                       cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
    }
    if (input_profile != NULL) cmsCloseProfile(input_profile);
    if (output_profile != NULL) cmsCloseProfile(output_profile);
    if (transform == NULL) return 0;
    for (size_t i = 0; i < count; i++) {
        double pixel[4];
        // Little CMS takes floating-point ink in percent.
        for (int c = 0; c < channels; c++) pixel[c] = input[i * channels + c] * (channels == 4 ? 100 : 1);
        cmsDoTransform(transform, pixel, output + i * 3, 1);
    }
    cmsDeleteTransform(transform);
    return 1;
}
