// The AVX2 (and one AVX-512) loops of jpeg_pipeline.c (jpeg_pipeline_avx2.c). Each does whole blocks
// of 16 (32) columns and returns how many columns it did; the caller's plain C loop does the rest. Call them only
// where the processor has AVX2.
#ifndef JPEG_PIPELINE_AVX2_H
#define JPEG_PIPELINE_AVX2_H

#include <stdint.h>

#if defined(__x86_64__)
/// h2v2 fancy upsampling's vertical step: `sum[x] = 3 near[x] + far[x]`.
uint32_t imgtool_column_sums_avx2(const uint8_t *near, const uint8_t *far, uint32_t width, int16_t *sum);

/// h2v2 fancy upsampling's horizontal step from the column sums (`sum[-1]` and `sum[width]` hold
/// the repeated edges): `wide[2x] = (3 sum[x] + sum[x-1] + 8) >> 4`, `wide[2x+1] = (3 sum[x] +
/// sum[x+1] + 7) >> 4`.
uint32_t imgtool_upsample_h2v2_avx2(const int16_t *sum, uint32_t width, uint8_t *wide);

/// The two upsampling steps in blocks of 32 columns, for processors with AVX-512 BW.
uint32_t imgtool_column_sums_avx512(const uint8_t *near, const uint8_t *far, uint32_t width, int16_t *sum);
uint32_t imgtool_upsample_h2v2_avx512(const int16_t *sum, uint32_t width, uint8_t *wide);

/// jdcolor.c's YCbCr to RGB, written as RGBA with A = 255.
uint32_t imgtool_ycc_to_rgba_avx2(const uint8_t *luma, const uint8_t *cb, const uint8_t *cr, uint32_t width,
                                  uint8_t *out);

/// The same in blocks of 32 columns, for processors with AVX-512 BW and VBMI (call it only where
/// `__builtin_cpu_supports` says both are there).
uint32_t imgtool_ycc_to_rgba_avx512(const uint8_t *luma, const uint8_t *cb, const uint8_t *cr, uint32_t width,
                                    uint8_t *out);
#endif

#endif
