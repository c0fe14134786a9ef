// AVX2 (and AVX-512) forms of jpeg_pipeline.c's loops, equal to them to the bit (the tests compare
// every pixel with libjpeg's own decode).

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

// The two upsampling steps on 32 columns at a time.
__attribute__((target("avx512f,avx512bw"))) uint32_t imgtool_column_sums_avx512(const uint8_t *near,
                                                                                const uint8_t *far, uint32_t width,
                                                                                int16_t *sum) {
    uint32_t x = 0;
    for (; x + 32 <= width; x += 32) {
        __m512i n = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(near + x)));
        __m512i f = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(far + x)));
        __m512i three = _mm512_add_epi16(_mm512_add_epi16(n, n), n);
        _mm512_storeu_si512((void *)(sum + x), _mm512_add_epi16(three, f));
    }
    return x;
}
__attribute__((target("avx512f,avx512bw"))) uint32_t imgtool_upsample_h2v2_avx512(const int16_t *sum,
                                                                                  uint32_t width, uint8_t *wide) {
    const __m512i eight = _mm512_set1_epi16(8), seven = _mm512_set1_epi16(7);
    uint32_t x = 0;
    for (; x + 32 <= width; x += 32) {
        __m512i here = _mm512_loadu_si512((const void *)(sum + x));
        __m512i before = _mm512_loadu_si512((const void *)(sum + x - 1));
        __m512i after = _mm512_loadu_si512((const void *)(sum + x + 1));
        __m512i three = _mm512_add_epi16(_mm512_add_epi16(here, here), here);
        __m512i even = _mm512_srli_epi16(_mm512_add_epi16(_mm512_add_epi16(three, before), eight), 4);
        __m512i odd = _mm512_srli_epi16(_mm512_add_epi16(_mm512_add_epi16(three, after), seven), 4);
        // As in the AVX2 loop, within each 128-bit lane.
        __m512i low = _mm512_unpacklo_epi16(even, odd), high = _mm512_unpackhi_epi16(even, odd);
        _mm512_storeu_si512((void *)(wide + 2 * x), _mm512_packus_epi16(low, high));
    }
    return x;
}

// imgtool_ycc_to_rgba_avx2's arithmetic on 32 pixels at a time; the interleaving is one byte
// permutation per 16 pixels. packus works within each 128-bit lane, so lane k of `rg` holds the
// red of pixels 8k to 8k+7 then their green, and lane k of `ba` their blue then eight 255s; pixel
// p's R is byte 16 (p / 8) + p % 8 of `rg`, G 8 bytes on, B and A the same bytes of `ba` (64 on in
// the permutation's index).
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static inline __m512i rounded_high_512(__m512i x,
                                                                                                __m512i factor) {
    return _mm512_add_epi16(_mm512_mulhi_epi16(x, factor), _mm512_srli_epi16(_mm512_mullo_epi16(x, factor), 15));
}

static const uint8_t rgba_first[64] = {
    0,  8,  64, 72, 1,  9,  65, 73, 2,  10, 66, 74, 3,  11, 67, 75, 4,  12, 68, 76, 5,  13,
    69, 77, 6,  14, 70, 78, 7,  15, 71, 79, 16, 24, 80, 88, 17, 25, 81, 89, 18, 26, 82, 90,
    19, 27, 83, 91, 20, 28, 84, 92, 21, 29, 85, 93, 22, 30, 86, 94, 23, 31, 87, 95,
};
static const uint8_t rgba_second[64] = {
    32, 40, 96,  104, 33, 41, 97,  105, 34, 42, 98,  106, 35, 43, 99,  107, 36, 44, 100, 108, 37, 45,
    101, 109, 38, 46, 102, 110, 39, 47, 103, 111, 48, 56, 112, 120, 49, 57, 113, 121, 50, 58, 114, 122,
    51, 59, 115, 123, 52, 60, 116, 124, 53, 61, 117, 125, 54, 62, 118, 126, 55, 63, 119, 127,
};

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) uint32_t imgtool_ycc_to_rgba_avx512(
    const uint8_t *luma, const uint8_t *cb, const uint8_t *cr, uint32_t width, uint8_t *out) {
    const __m512i center = _mm512_set1_epi16(128);
    const __m512i red_factor = _mm512_set1_epi16(26345), blue_factor = _mm512_set1_epi16(-14942);
    const __m512i green_factors = _mm512_set1_epi32((int)(18734u << 16 | (uint16_t)-22554));  // (b, r)
    const __m512i half = _mm512_set1_epi32(32768);
    const __m512i opaque = _mm512_set1_epi16(255);
    const __m512i first = _mm512_loadu_si512((const void *)rgba_first);
    const __m512i second = _mm512_loadu_si512((const void *)rgba_second);
    uint32_t x = 0;
    for (; x + 32 <= width; x += 32) {
        __m512i y = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(luma + x)));
        __m512i b = _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(cb + x))), center);
        __m512i r = _mm512_sub_epi16(_mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(cr + x))), center);
        __m512i red = _mm512_add_epi16(_mm512_add_epi16(rounded_high_512(r, red_factor), r), y);
        __m512i blue = _mm512_add_epi16(_mm512_add_epi16(rounded_high_512(b, blue_factor), _mm512_add_epi16(b, b)), y);
        __m512i green_low = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpacklo_epi16(b, r), green_factors), half);
        __m512i green_high = _mm512_add_epi32(_mm512_madd_epi16(_mm512_unpackhi_epi16(b, r), green_factors), half);
        __m512i green = _mm512_packs_epi32(_mm512_srai_epi32(green_low, 16), _mm512_srai_epi32(green_high, 16));
        green = _mm512_sub_epi16(_mm512_add_epi16(green, y), r);
        __m512i rg = _mm512_packus_epi16(red, green);    // lane k: R 8k..8k+7, G 8k..8k+7
        __m512i ba = _mm512_packus_epi16(blue, opaque);  // lane k: B 8k..8k+7, eight 255s
        _mm512_storeu_si512((void *)(out + 4 * x), _mm512_permutex2var_epi8(rg, first, ba));
        _mm512_storeu_si512((void *)(out + 4 * x + 64), _mm512_permutex2var_epi8(rg, second, ba));
    }
    return x;
}
#endif
