#ifndef CRESAMPLE_H
#define CRESAMPLE_H

// The resampler's two passes on 256-bit vectors (AVX), chosen at run time. The Swift resampler
// keeps one 128-bit vector per pixel; here a 256-bit vector holds two pixels (vertical pass) or
// two taps of one pixel (horizontal pass: the Swift loop's partial sums 0 and 1, or 2 and 3), each
// lane doing exactly the Swift loop's arithmetic in the same order (multiplies and adds kept
// separate: no fused multiply-add), so the results are the same to the bit on every machine, with
// or without AVX.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Whether `imgtool_resample_filter_row` can run here: an x86-64 processor and operating system
/// with AVX. 0 elsewhere.
int imgtool_resample_has_avx(void);

/// One row of premultiplied RGBA float pixels (`in`, 4 floats each) filtered horizontally into
/// `count` output pixels (`out`, 4 floats each); `firsts` and `tap_counts` hold `count` 64-bit
/// integers each (Swift `Int`s), `weights` floats (Swift `SIMD4<Float>`s, the weight in every lane): output pixel `x` is the sum over `t` in
/// `0 ..< tap_counts[x]` of pixel `firsts[x] + t` times weight `t` of row `x` of `weights`
/// (`stride` weights a row, each weight 4 equal floats), summed in four partial sums (taps 0, 4,
/// 8, ...; 1, 5, ...; ...) added as `(s0 + s1) + (s2 + s3)`, leftover taps into `s0`. Only call it
/// when `imgtool_resample_has_avx()` is 1.
void imgtool_resample_filter_row(const void *in, const void *firsts, const void *tap_counts, const void *weights,
                                 int64_t stride, void *out, int64_t count);

/// `imgtool_resample_filter_row` of two rows at once (`in_a` to `out_a`, `in_b` to `out_b`),
/// with the same arithmetic for each, the weights read once. Only call it when
/// `imgtool_resample_has_avx()` is 1.
void imgtool_resample_filter_rows2(const void *in_a, const void *in_b, const void *firsts, const void *tap_counts,
                                   const void *weights, int64_t stride, void *out_a, void *out_b, int64_t count);

/// The vertical pass of one output row: `out` (`width` pixels of 4 floats) set to the sum of the
/// `row_count` rows (`row_pointers`, each `width` pixels) times `weights`, as the Swift loop
/// sums them (rows four at a time, in order). Only call it when `imgtool_resample_has_avx()` is 1.
/// 8-bit straight RGBA pixels to premultiplied float pixels (r a, g a, b a, a), needs AVX.
void imgtool_resample_load_rgba8(const uint8_t *in, int64_t count, void *out);

/// Premultiplied float pixels (`count`, 4 floats each) to 8-bit straight RGBA, as the Swift
/// store does it with no background and no transfer curve: alpha clamped to `0...maximum`; a
/// pixel with alpha under 0.5 becomes 0; otherwise each colour is clamped to `0...alpha *
/// maximum`, divided by alpha, clamped to `0...maximum`, and `x + 0.5` truncated. The same bytes
/// as the Swift loop. Only call it when `imgtool_resample_has_avx()` is 1.
void imgtool_resample_store_rgba8(const void *pixels, int64_t count, uint8_t *out, float maximum);

void imgtool_resample_accumulate(const void *const *row_pointers, const float *weights, int64_t row_count,
                                 void *out_pixels, int64_t width);

#ifdef __cplusplus
}
#endif

#endif
