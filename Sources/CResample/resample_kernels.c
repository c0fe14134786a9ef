#include "CResample.h"

#if defined(__x86_64__)
#include <immintrin.h>

int imgtool_resample_has_avx(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") ? 1 : 0;
}

// One output pixel, four taps to two 256-bit vectors: taps t and t + 1 are adjacent pixels, so
// one load holds the Swift loop's partial sums 0 (low half) and 1 (high half), the next sums 2
// and 3. Leftover taps go to sum 0 alone, and the sums are added as (s0 + s1) + (s2 + s3).
__attribute__((target("avx"))) static inline void filter_one(const float *from, const float *w, int64_t taps,
                                                             float *out) {
    __m256 s01 = _mm256_setzero_ps(), s23 = _mm256_setzero_ps();
    int64_t t = 0;
    for (; t + 3 < taps; t += 4) {
        s01 = _mm256_add_ps(s01, _mm256_mul_ps(_mm256_loadu_ps(from + t * 4), _mm256_loadu_ps(w + t * 4)));
        s23 = _mm256_add_ps(s23, _mm256_mul_ps(_mm256_loadu_ps(from + t * 4 + 8), _mm256_loadu_ps(w + t * 4 + 8)));
    }
    __m128 s0 = _mm256_castps256_ps128(s01);
    for (; t < taps; t++) s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(from + t * 4), _mm_loadu_ps(w + t * 4)));
    const __m128 s1 = _mm256_extractf128_ps(s01, 1), s2 = _mm256_castps256_ps128(s23),
                 s3 = _mm256_extractf128_ps(s23, 1);
    _mm_storeu_ps(out, _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
}

// Two outputs with as many taps, each with its own sums and exactly filter_one's arithmetic:
// one output's four-tap steps alone wait on the adder's latency, and two give the processor
// independent chains to overlap (8 ms of the 4096x4096 JPEG's resize to 512 on one core).
__attribute__((target("avx"))) static inline void filter_two(const float *from_a, const float *w_a,
                                                             const float *from_b, const float *w_b, int64_t taps,
                                                             float *out_a, float *out_b) {
    __m256 a01 = _mm256_setzero_ps(), a23 = _mm256_setzero_ps();
    __m256 b01 = _mm256_setzero_ps(), b23 = _mm256_setzero_ps();
    int64_t t = 0;
    for (; t + 3 < taps; t += 4) {
        a01 = _mm256_add_ps(a01, _mm256_mul_ps(_mm256_loadu_ps(from_a + t * 4), _mm256_loadu_ps(w_a + t * 4)));
        b01 = _mm256_add_ps(b01, _mm256_mul_ps(_mm256_loadu_ps(from_b + t * 4), _mm256_loadu_ps(w_b + t * 4)));
        a23 = _mm256_add_ps(a23, _mm256_mul_ps(_mm256_loadu_ps(from_a + t * 4 + 8), _mm256_loadu_ps(w_a + t * 4 + 8)));
        b23 = _mm256_add_ps(b23, _mm256_mul_ps(_mm256_loadu_ps(from_b + t * 4 + 8), _mm256_loadu_ps(w_b + t * 4 + 8)));
    }
    __m128 a0 = _mm256_castps256_ps128(a01), b0 = _mm256_castps256_ps128(b01);
    for (; t < taps; t++) {
        a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(from_a + t * 4), _mm_loadu_ps(w_a + t * 4)));
        b0 = _mm_add_ps(b0, _mm_mul_ps(_mm_loadu_ps(from_b + t * 4), _mm_loadu_ps(w_b + t * 4)));
    }
    _mm_storeu_ps(out_a, _mm_add_ps(_mm_add_ps(a0, _mm256_extractf128_ps(a01, 1)),
                                    _mm_add_ps(_mm256_castps256_ps128(a23), _mm256_extractf128_ps(a23, 1))));
    _mm_storeu_ps(out_b, _mm_add_ps(_mm_add_ps(b0, _mm256_extractf128_ps(b01, 1)),
                                    _mm_add_ps(_mm256_castps256_ps128(b23), _mm256_extractf128_ps(b23, 1))));
}

__attribute__((target("avx"))) void imgtool_resample_filter_row(const void *in_pixels, const void *first_indices,
                                                                const void *counts, const void *splat_weights,
                                                                int64_t stride, void *out_pixels, int64_t count) {
    const float *in = in_pixels, *weights = splat_weights;
    const int64_t *firsts = first_indices, *tap_counts = counts;
    float *out = out_pixels;
    int64_t x = 0;
    while (x < count) {
        if (x + 1 < count && tap_counts[x] == tap_counts[x + 1]) {
            filter_two(in + firsts[x] * 4, weights + x * stride * 4, in + firsts[x + 1] * 4,
                       weights + (x + 1) * stride * 4, tap_counts[x], out + x * 4, out + x * 4 + 4);
            x += 2;
        } else {
            filter_one(in + firsts[x] * 4, weights + x * stride * 4, tap_counts[x], out + x * 4);
            x += 1;
        }
    }
}

// Two source rows through the same weights: each output pixel of each row with exactly
// filter_one's arithmetic, the weights loaded once for both. A 4096-pixel row reduced eightfold
// reads 49 four-float weights per output, 400 KB a row, more than the pixels themselves: shared
// by two rows, that traffic halves, and the two rows' sums are independent chains to overlap.
__attribute__((target("avx"))) void imgtool_resample_filter_rows2(const void *in_a, const void *in_b,
                                                                  const void *first_indices, const void *counts,
                                                                  const void *splat_weights, int64_t stride,
                                                                  void *out_a, void *out_b, int64_t count) {
    const float *a = in_a, *b = in_b, *weights = splat_weights;
    const int64_t *firsts = first_indices, *tap_counts = counts;
    float *oa = out_a, *ob = out_b;
    for (int64_t x = 0; x < count; x++) {
        const float *fa = a + firsts[x] * 4, *fb = b + firsts[x] * 4, *w = weights + x * stride * 4;
        const int64_t taps = tap_counts[x];
        __m256 a01 = _mm256_setzero_ps(), a23 = _mm256_setzero_ps();
        __m256 b01 = _mm256_setzero_ps(), b23 = _mm256_setzero_ps();
        int64_t t = 0;
        for (; t + 3 < taps; t += 4) {
            const __m256 w01 = _mm256_loadu_ps(w + t * 4), w23 = _mm256_loadu_ps(w + t * 4 + 8);
            a01 = _mm256_add_ps(a01, _mm256_mul_ps(_mm256_loadu_ps(fa + t * 4), w01));
            b01 = _mm256_add_ps(b01, _mm256_mul_ps(_mm256_loadu_ps(fb + t * 4), w01));
            a23 = _mm256_add_ps(a23, _mm256_mul_ps(_mm256_loadu_ps(fa + t * 4 + 8), w23));
            b23 = _mm256_add_ps(b23, _mm256_mul_ps(_mm256_loadu_ps(fb + t * 4 + 8), w23));
        }
        __m128 a0 = _mm256_castps256_ps128(a01), b0 = _mm256_castps256_ps128(b01);
        for (; t < taps; t++) {
            const __m128 wt = _mm_loadu_ps(w + t * 4);
            a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(fa + t * 4), wt));
            b0 = _mm_add_ps(b0, _mm_mul_ps(_mm_loadu_ps(fb + t * 4), wt));
        }
        _mm_storeu_ps(oa + x * 4, _mm_add_ps(_mm_add_ps(a0, _mm256_extractf128_ps(a01, 1)),
                                             _mm_add_ps(_mm256_castps256_ps128(a23), _mm256_extractf128_ps(a23, 1))));
        _mm_storeu_ps(ob + x * 4, _mm_add_ps(_mm_add_ps(b0, _mm256_extractf128_ps(b01, 1)),
                                             _mm_add_ps(_mm256_castps256_ps128(b23), _mm256_extractf128_ps(b23, 1))));
    }
}

// 8-bit straight RGBA to premultiplied floats, (r a, g a, b a, a), as the Swift load does it:
// each product one rounding of float(sample) times float(alpha), alpha times 1.
__attribute__((target("avx"))) void imgtool_resample_load_rgba8(const uint8_t *in, int64_t count, void *out_pixels) {
    float *out = out_pixels;
    const __m128 one = _mm_set1_ps(1);
    int64_t x = 0;
    for (; x + 4 <= count; x += 4) {
        const __m128i four = _mm_loadu_si128((const __m128i *)(in + x * 4));
        const __m128 p0 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(four));
        const __m128 p1 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_srli_si128(four, 4)));
        const __m128 p2 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_srli_si128(four, 8)));
        const __m128 p3 = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_srli_si128(four, 12)));
        _mm_storeu_ps(out + x * 4, _mm_mul_ps(p0, _mm_blend_ps(_mm_shuffle_ps(p0, p0, 0xFF), one, 8)));
        _mm_storeu_ps(out + x * 4 + 4, _mm_mul_ps(p1, _mm_blend_ps(_mm_shuffle_ps(p1, p1, 0xFF), one, 8)));
        _mm_storeu_ps(out + x * 4 + 8, _mm_mul_ps(p2, _mm_blend_ps(_mm_shuffle_ps(p2, p2, 0xFF), one, 8)));
        _mm_storeu_ps(out + x * 4 + 12, _mm_mul_ps(p3, _mm_blend_ps(_mm_shuffle_ps(p3, p3, 0xFF), one, 8)));
    }
    for (; x < count; x++) {
        int32_t pixel;
        __builtin_memcpy(&pixel, in + x * 4, 4);
        const __m128 p = _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(pixel)));
        _mm_storeu_ps(out + x * 4, _mm_mul_ps(p, _mm_blend_ps(_mm_shuffle_ps(p, p, 0xFF), one, 8)));
    }
}

// Two pixels to a 256-bit vector (`x` and `x + 1` are adjacent), each lane doing the Swift
// loop's arithmetic: rows taken four at a time, `(r0 w0 + r1 w1) + (r2 w2 + r3 w3)`, three as
// `(r0 w0 + r1 w1) + r2 w2`, two as `r0 w0 + r1 w1`, one as `r0 w0`, each group stored (the
// first) or added to what is there.
__attribute__((target("avx"))) void imgtool_resample_accumulate(const void *const *row_pointers,
                                                               const float *weights, int64_t row_count,
                                                               void *out_pixels, int64_t width) {
    float *out = out_pixels;
    const int64_t floats = width * 4;
    for (int64_t tap = 0; tap < row_count;) {
        const int64_t group = row_count - tap < 4 ? row_count - tap : 4;
        const float *r0 = row_pointers[tap], *r1 = group > 1 ? row_pointers[tap + 1] : r0,
                    *r2 = group > 2 ? row_pointers[tap + 2] : r0, *r3 = group > 3 ? row_pointers[tap + 3] : r0;
        const __m256 w0 = _mm256_set1_ps(weights[tap]), w1 = _mm256_set1_ps(group > 1 ? weights[tap + 1] : 0),
                     w2 = _mm256_set1_ps(group > 2 ? weights[tap + 2] : 0),
                     w3 = _mm256_set1_ps(group > 3 ? weights[tap + 3] : 0);
        const int started = tap > 0;
        int64_t i = 0;
        for (; i + 8 <= floats; i += 8) {
            __m256 sum;
            const __m256 p0 = _mm256_mul_ps(_mm256_loadu_ps(r0 + i), w0);
            switch (group) {
            case 4:
                sum = _mm256_add_ps(_mm256_add_ps(p0, _mm256_mul_ps(_mm256_loadu_ps(r1 + i), w1)),
                                    _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(r2 + i), w2),
                                                  _mm256_mul_ps(_mm256_loadu_ps(r3 + i), w3)));
                break;
            case 3:
                sum = _mm256_add_ps(_mm256_add_ps(p0, _mm256_mul_ps(_mm256_loadu_ps(r1 + i), w1)),
                                    _mm256_mul_ps(_mm256_loadu_ps(r2 + i), w2));
                break;
            case 2:
                sum = _mm256_add_ps(p0, _mm256_mul_ps(_mm256_loadu_ps(r1 + i), w1));
                break;
            default:
                sum = p0;
            }
            _mm256_storeu_ps(out + i, started ? _mm256_add_ps(_mm256_loadu_ps(out + i), sum) : sum);
        }
        for (; i < floats; i += 4) {  // an odd last pixel
            const __m128 p0 = _mm_mul_ps(_mm_loadu_ps(r0 + i), _mm256_castps256_ps128(w0));
            __m128 sum;
            switch (group) {
            case 4:
                sum = _mm_add_ps(_mm_add_ps(p0, _mm_mul_ps(_mm_loadu_ps(r1 + i), _mm256_castps256_ps128(w1))),
                                 _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(r2 + i), _mm256_castps256_ps128(w2)),
                                            _mm_mul_ps(_mm_loadu_ps(r3 + i), _mm256_castps256_ps128(w3))));
                break;
            case 3:
                sum = _mm_add_ps(_mm_add_ps(p0, _mm_mul_ps(_mm_loadu_ps(r1 + i), _mm256_castps256_ps128(w1))),
                                 _mm_mul_ps(_mm_loadu_ps(r2 + i), _mm256_castps256_ps128(w2)));
                break;
            case 2:
                sum = _mm_add_ps(p0, _mm_mul_ps(_mm_loadu_ps(r1 + i), _mm256_castps256_ps128(w1)));
                break;
            default:
                sum = p0;
            }
            _mm_storeu_ps(out + i, started ? _mm_add_ps(_mm_loadu_ps(out + i), sum) : sum);
        }
        tap += group;
    }
}

__attribute__((target("avx"))) void imgtool_resample_store_rgba8(const void *pixels, int64_t count, uint8_t *out,
                                                                 float maximum) {
    const float *in = pixels;
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1), half = _mm_set1_ps(0.5f),
                 top = _mm_set1_ps(maximum);
    for (int64_t x = 0; x < count; x++) {
        const __m128 p = _mm_loadu_ps(in + x * 4);
        const __m128 alpha = _mm_min_ps(_mm_max_ps(_mm_shuffle_ps(p, p, 0xFF), zero), top);
        if (!(_mm_cvtss_f32(alpha) >= 0.5f)) {
            __builtin_memset(out + x * 4, 0, 4);
            continue;
        }
        const __m128 limit = _mm_mul_ps(alpha, top);
        __m128 straight = _mm_div_ps(_mm_min_ps(_mm_max_ps(p, zero), limit), _mm_blend_ps(alpha, one, 8));
        straight = _mm_blend_ps(straight, alpha, 8);
        const __m128i whole = _mm_cvttps_epi32(_mm_add_ps(_mm_min_ps(_mm_max_ps(straight, zero), top), half));
        const __m128i bytes = _mm_packus_epi16(_mm_packus_epi32(whole, whole), _mm_setzero_si128());
        const int32_t four = _mm_cvtsi128_si32(bytes);
        __builtin_memcpy(out + x * 4, &four, 4);
    }
}

#else

int imgtool_resample_has_avx(void) { return 0; }

void imgtool_resample_store_rgba8(const void *pixels, int64_t count, uint8_t *out, float maximum) {
    (void)pixels, (void)count, (void)out, (void)maximum;
}

void imgtool_resample_accumulate(const void *const *row_pointers, const float *weights, int64_t row_count,
                                 void *out_pixels, int64_t width) {
    (void)row_pointers, (void)weights, (void)row_count, (void)out_pixels, (void)width;
}

void imgtool_resample_filter_row(const void *in, const void *firsts, const void *tap_counts, const void *weights,
                                 int64_t stride, void *out, int64_t count) {
    (void)in, (void)firsts, (void)tap_counts, (void)weights, (void)stride, (void)out, (void)count;
}

void imgtool_resample_load_rgba8(const uint8_t *in, int64_t count, void *out_pixels) {
    (void)in, (void)count, (void)out_pixels;
}

void imgtool_resample_filter_rows2(const void *in_a, const void *in_b, const void *firsts, const void *tap_counts,
                                   const void *weights, int64_t stride, void *out_a, void *out_b, int64_t count) {
    (void)in_a, (void)in_b, (void)firsts, (void)tap_counts, (void)weights, (void)stride, (void)out_a, (void)out_b;
    (void)count;
}

#endif
