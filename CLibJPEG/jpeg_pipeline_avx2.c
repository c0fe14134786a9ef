// AVX2 forms of jpeg_pipeline.c's loops, equal to them to the bit (the tests compare every pixel
// with libjpeg's own decode).

#include "jpeg_pipeline_avx2.h"

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2"))) uint32_t imgtool_column_sums_avx2(const uint8_t *near, const uint8_t *far,
                                                                  uint32_t width, int16_t *sum) {
    uint32_t x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i n = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(near + x)));
        __m256i f = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(far + x)));
        __m256i three = _mm256_add_epi16(_mm256_add_epi16(n, n), n);
        _mm256_storeu_si256((__m256i *)(void *)(sum + x), _mm256_add_epi16(three, f));
    }
    return x;
}

__attribute__((target("avx2"))) uint32_t imgtool_upsample_h2v2_avx2(const int16_t *sum, uint32_t width,
                                                                    uint8_t *wide) {
    const __m256i eight = _mm256_set1_epi16(8), seven = _mm256_set1_epi16(7);
    uint32_t x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i here = _mm256_loadu_si256((const __m256i *)(const void *)(sum + x));
        __m256i before = _mm256_loadu_si256((const __m256i *)(const void *)(sum + x - 1));
        __m256i after = _mm256_loadu_si256((const __m256i *)(const void *)(sum + x + 1));
        __m256i three = _mm256_add_epi16(_mm256_add_epi16(here, here), here);
        __m256i even = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(three, before), eight), 4);
        __m256i odd = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(three, after), seven), 4);
        // Within each 128-bit lane: e0 o0 e1 o1 ... e3 o3 and e4 o4 ... e7 o7, packed back in order.
        __m256i low = _mm256_unpacklo_epi16(even, odd), high = _mm256_unpackhi_epi16(even, odd);
        _mm256_storeu_si256((__m256i *)(void *)(wide + 2 * x), _mm256_packus_epi16(low, high));
    }
    return x;
}

// Each product is taken whole, as its high 16 bits (signed, pmulhw) and low 16 bits (unsigned,
// pmullw): with P = high x 65536 + low, (P + 32768) >> 16 = high + (low >= 32768), which is
// high + (low >> 15). Factors past 16 bits are split, the rest passing through the shift whole:
//   (91881 r + 32768) >> 16 = r + ((26345 r + 32768) >> 16)            (91881 = 65536 + 26345)
//   (116130 b + 32768) >> 16 = 2b + ((-14942 b + 32768) >> 16)         (116130 = 131072 - 14942)
// Green sums two products before its shift, so it is done in 32 bits with pmaddwd:
//   (-22554 b - 46802 r + 32768) >> 16 = -r + ((-22554 b + 18734 r + 32768) >> 16)
//                                                                       (-46802 = -65536 + 18734)
__attribute__((target("avx2"))) static inline __m256i rounded_high(__m256i x, __m256i factor) {
    return _mm256_add_epi16(_mm256_mulhi_epi16(x, factor), _mm256_srli_epi16(_mm256_mullo_epi16(x, factor), 15));
}

__attribute__((target("avx2"))) uint32_t imgtool_ycc_to_rgba_avx2(const uint8_t *luma, const uint8_t *cb,
                                                                  const uint8_t *cr, uint32_t width, uint8_t *out) {
    const __m256i center = _mm256_set1_epi16(128);
    const __m256i red_factor = _mm256_set1_epi16(26345), blue_factor = _mm256_set1_epi16(-14942);
    const __m256i green_factors = _mm256_set1_epi32((int)(18734u << 16 | (uint16_t)-22554));  // (b, r)
    const __m256i half = _mm256_set1_epi32(32768);
    const __m256i opaque = _mm256_set1_epi8((char)0xFF);
    uint32_t x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i y = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(luma + x)));
        __m256i b = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(cb + x))), center);
        __m256i r = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(cr + x))), center);
        __m256i red = _mm256_add_epi16(_mm256_add_epi16(rounded_high(r, red_factor), r), y);
        __m256i blue = _mm256_add_epi16(_mm256_add_epi16(rounded_high(b, blue_factor), _mm256_add_epi16(b, b)), y);
        // Pairs within each lane; packs_epi32 of the low and high halves gives the order back.
        __m256i green_low = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(b, r), green_factors), half);
        __m256i green_high = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(b, r), green_factors), half);
        __m256i green = _mm256_packs_epi32(_mm256_srai_epi32(green_low, 16), _mm256_srai_epi32(green_high, 16));
        green = _mm256_sub_epi16(_mm256_add_epi16(green, y), r);
        // Clamp to 0-255 (libjpeg's range_limit) and interleave: 16 pixels of R G B A.
        __m256i rg = _mm256_packus_epi16(red, green);     // lane: R0-7 G0-7 | R8-15 G8-15
        __m256i ba = _mm256_packus_epi16(blue, blue);     // lane: B0-7 B0-7 | B8-15 B8-15
        ba = _mm256_unpacklo_epi8(ba, opaque);            // lane: B0 A B1 A ... B7 A
        __m256i rgpairs = _mm256_unpacklo_epi8(rg, _mm256_srli_si256(rg, 8));  // lane: R0 G0 R1 G1 ... R7 G7
        __m256i first = _mm256_unpacklo_epi16(rgpairs, ba);   // lane: pixels 0-3 | 8-11
        __m256i second = _mm256_unpackhi_epi16(rgpairs, ba);  // lane: pixels 4-7 | 12-15
        _mm256_storeu_si256((__m256i *)(void *)(out + 4 * x), _mm256_permute2x128_si256(first, second, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(out + 4 * x + 32), _mm256_permute2x128_si256(first, second, 0x31));
    }
    return x;
}
#endif
