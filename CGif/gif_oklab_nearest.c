// The nearest palette colour in OkLab, for the GIF writer's quantizer and palette mapper: every
// colour is measured (eight at a time with AVX2), so the time does not depend on how the
// palette is spread, and the answer is the one a plain loop gives: the smallest squared
// distance, computed as (dl * dl + da * da) + db * db in single precision, the lowest index
// among equal distances.
#include "CGif.h"

#include <immintrin.h>
#include <math.h>

#pragma STDC FP_CONTRACT OFF

static int32_t nearest_scalar(const float *l, const float *a, const float *b, int32_t padded, float pl, float pa,
                              float pb) {
    float best = INFINITY;
    int32_t index = 0;
    for (int32_t i = 0; i < padded; i++) {
        float dl = pl - l[i], da = pa - a[i], db = pb - b[i];
        float d = dl * dl + da * da;
        d = d + db * db;
        if (d < best) {
            best = d;
            index = i;
        }
    }
    return index;
}

// Each lane holds its smallest distance and the first index that reached it; the answer is the
// smallest distance across lanes, the lowest index among lanes that tie.
__attribute__((target("avx2"))) static inline int32_t smallest_lane(__m256 best, __m256i best_index) {
    float distances[8];
    int32_t indices[8];
    _mm256_storeu_ps(distances, best);
    _mm256_storeu_si256((__m256i *)indices, best_index);
    float found = distances[0];
    int32_t result = indices[0];
    for (int lane = 1; lane < 8; lane++) {
        if (distances[lane] < found || (distances[lane] == found && indices[lane] < result)) {
            found = distances[lane];
            result = indices[lane];
        }
    }
    return result;
}

__attribute__((target("avx2"))) static int32_t nearest_avx2(const float *l, const float *a, const float *b,
                                                            int32_t padded, float pl, float pa, float pb) {
    const __m256 vl = _mm256_set1_ps(pl), va = _mm256_set1_ps(pa), vb = _mm256_set1_ps(pb);
    __m256 best = _mm256_set1_ps(INFINITY);
    __m256i best_index = _mm256_setzero_si256();
    __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i eight = _mm256_set1_epi32(8);
    for (int32_t i = 0; i < padded; i += 8) {
        __m256 dl = _mm256_sub_ps(vl, _mm256_loadu_ps(l + i));
        __m256 da = _mm256_sub_ps(va, _mm256_loadu_ps(a + i));
        __m256 db = _mm256_sub_ps(vb, _mm256_loadu_ps(b + i));
        __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dl, dl), _mm256_mul_ps(da, da)), _mm256_mul_ps(db, db));
        __m256 less = _mm256_cmp_ps(d, best, _CMP_LT_OQ);
        best = _mm256_blendv_ps(best, d, less);
        best_index = _mm256_blendv_epi8(best_index, index, _mm256_castps_si256(less));
        index = _mm256_add_epi32(index, eight);
    }
    return smallest_lane(best, best_index);
}

// `nearest_avx2` for two points at once: each colour's coordinates are loaded once for both, and
// the two points' comparisons form two independent chains, which the processor overlaps (a
// lone point waits on each comparison before the next). The same arithmetic per point.
__attribute__((target("avx2"))) static void nearest_pair_avx2(const float *l, const float *a, const float *b,
                                                             int32_t padded, const float *points, int32_t *out) {
    const __m256 pl = _mm256_set1_ps(points[0]), pa = _mm256_set1_ps(points[1]), pb = _mm256_set1_ps(points[2]);
    const __m256 ql = _mm256_set1_ps(points[3]), qa = _mm256_set1_ps(points[4]), qb = _mm256_set1_ps(points[5]);
    __m256 best_p = _mm256_set1_ps(INFINITY), best_q = best_p;
    __m256i index_p = _mm256_setzero_si256(), index_q = index_p;
    __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i eight = _mm256_set1_epi32(8);
    for (int32_t i = 0; i < padded; i += 8) {
        const __m256 cl = _mm256_loadu_ps(l + i), ca = _mm256_loadu_ps(a + i), cb = _mm256_loadu_ps(b + i);
        __m256 dl = _mm256_sub_ps(pl, cl), da = _mm256_sub_ps(pa, ca), db = _mm256_sub_ps(pb, cb);
        __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dl, dl), _mm256_mul_ps(da, da)), _mm256_mul_ps(db, db));
        __m256 el = _mm256_sub_ps(ql, cl), ea = _mm256_sub_ps(qa, ca), eb = _mm256_sub_ps(qb, cb);
        __m256 e = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(el, el), _mm256_mul_ps(ea, ea)), _mm256_mul_ps(eb, eb));
        __m256 less_p = _mm256_cmp_ps(d, best_p, _CMP_LT_OQ), less_q = _mm256_cmp_ps(e, best_q, _CMP_LT_OQ);
        best_p = _mm256_blendv_ps(best_p, d, less_p);
        best_q = _mm256_blendv_ps(best_q, e, less_q);
        index_p = _mm256_blendv_epi8(index_p, index, _mm256_castps_si256(less_p));
        index_q = _mm256_blendv_epi8(index_q, index, _mm256_castps_si256(less_q));
        index = _mm256_add_epi32(index, eight);
    }
    out[0] = smallest_lane(best_p, index_p);
    out[1] = smallest_lane(best_q, index_q);
}

// __builtin_cpu_supports reads what libgcc's start-up code found; asking each call is a load.
int32_t imgtool_oklab_nearest(const float *l, const float *a, const float *b, int32_t padded, float pl, float pa,
                              float pb) {
    return __builtin_cpu_supports("avx2") ? nearest_avx2(l, a, b, padded, pl, pa, pb)
                                          : nearest_scalar(l, a, b, padded, pl, pa, pb);
}

void imgtool_oklab_nearest_many(const float *l, const float *a, const float *b, int32_t padded, const float *points,
                                int32_t count, int32_t *out, int simd) {
    if (simd && __builtin_cpu_supports("avx2")) {
        int32_t i = 0;
        for (; i + 2 <= count; i += 2) nearest_pair_avx2(l, a, b, padded, points + 3 * i, out + i);
        if (i < count) out[i] = nearest_avx2(l, a, b, padded, points[3 * i], points[3 * i + 1], points[3 * i + 2]);
    } else {
        for (int32_t i = 0; i < count; i++)
            out[i] = nearest_scalar(l, a, b, padded, points[3 * i], points[3 * i + 1], points[3 * i + 2]);
    }
}
