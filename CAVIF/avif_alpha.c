// The alpha plane of an 8-bit AVIF frame copied into the alpha bytes of its RGBA pixels: what
// libavif 0.11's avifReformatAlpha does for 8 to 8 bits (a plain copy), sixteen pixels at a time
// where its loop takes one, with a multiplication for each address.
#include "CAVIF.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

void imgtool_avif_copy_alpha8(const uint8_t *alpha, size_t alpha_row_bytes, uint8_t *rgba, size_t rgba_row_bytes,
                              uint32_t width, uint32_t height) {
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *from = alpha + (size_t)y * alpha_row_bytes;
        uint8_t *to = rgba + (size_t)y * rgba_row_bytes;
        uint32_t x = 0;
#if defined(__x86_64__)
        const __m128i zero = _mm_setzero_si128(), colour = _mm_set1_epi32(0x00FFFFFF);
        for (; x + 16 <= width; x += 16) {
            // Each alpha byte moved to the top byte of a 32-bit lane: byte 3 of a pixel.
            const __m128i values = _mm_loadu_si128((const __m128i *)(from + x));
            const __m128i low = _mm_unpacklo_epi8(zero, values), high = _mm_unpackhi_epi8(zero, values);
            const __m128i lanes[4] = {_mm_unpacklo_epi16(zero, low), _mm_unpackhi_epi16(zero, low),
                                      _mm_unpacklo_epi16(zero, high), _mm_unpackhi_epi16(zero, high)};
            for (int i = 0; i < 4; i++) {
                __m128i *pixels = (__m128i *)(to + (size_t)(x + 4 * i) * 4);
                _mm_storeu_si128(pixels, _mm_or_si128(_mm_and_si128(_mm_loadu_si128(pixels), colour), lanes[i]));
            }
        }
#endif
        for (; x < width; x++) to[(size_t)x * 4 + 3] = from[x];
    }
}
