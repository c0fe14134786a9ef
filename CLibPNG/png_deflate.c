// Parallel deflate for the PNG writer, pigz's method: the filtered rows of an image are cut into
// blocks at row boundaries; each block is compressed on its own, as raw deflate primed with the
// last 32 KiB of filtered data before it (deflateSetDictionary), and ends with a sync flush so
// the next block's bits start on a byte. The blocks, in order, between a zlib header and the
// combined Adler-32 of every block, are one zlib stream, valid for any inflater.
//
// A block filters its own dictionary rows again instead of waiting for the block before, so
// blocks depend on nothing but the rows: any number of threads makes the same bytes.
//
// No libpng here (and no setjmp): filtering is done by hand, with libpng's adaptive heuristic
// (the filter whose output has the smallest sum of bytes taken as signed magnitudes; ties to the
// earlier of None, Sub, Up, Average, Paeth), so the rows compress as libpng's would.

#include "CLibPNG.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

enum { WINDOW = 32768, BAND_ROWS = 16 };

// A filtered byte's weight in libpng's heuristic: its distance from 0 as a signed byte, written
// as min(v, -v) in bytes so that the loops below vectorise.
static inline uint8_t magnitude(uint8_t v) {
    uint8_t negated = (uint8_t)(0u - v);
    return v < negated ? v : negated;
}

// The sum of `magnitude` over `length` bytes. With SSE2, 16 bytes at a time: min(v, -v), then
// PSADBW (the sum of absolute differences from zero) adds them into two 64-bit lanes.
static unsigned long weight(const uint8_t *bytes, size_t length) {
    unsigned long sum = 0;
    size_t i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
    __m128i zero = _mm_setzero_si128(), total = _mm_setzero_si128();
    for (; i + 16 <= length; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(bytes + i));
        __m128i m = _mm_min_epu8(v, _mm_sub_epi8(zero, v));
        total = _mm_add_epi64(total, _mm_sad_epu8(m, zero));
    }
    sum = (unsigned long)_mm_cvtsi128_si64(total) + (unsigned long)_mm_cvtsi128_si64(_mm_unpackhi_epi64(total, total));
#endif
    for (; i < length; i++) sum += magnitude(bytes[i]);
    return sum;
}

// The Paeth predictor, in the form that vectorises: distances from a + b - c without forming it.
static inline uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int pa = abs((int)b - c), pb = abs((int)a - c), pc = abs((int)a + b - 2 * c);
    uint8_t ab = pb < pa ? b : a;
    int best = pb < pa ? pb : pa;
    return pc < best ? c : ab;
}

// Filters `row` (whose unfiltered predecessor is `above`, all zeros for the image's first row)
// into `out`: the filter type byte, then `length` bytes. `trial` is scratch of 4 * `length`
// bytes: the four filters are computed in one pass, each into its own quarter.
static void filter_row(const uint8_t *restrict row, const uint8_t *restrict above, size_t length, size_t bpp,
                       int adaptive, uint8_t *restrict out, uint8_t *restrict trial) {
    if (!adaptive) {
        out[0] = 0;
        memcpy(out + 1, row, length);
        return;
    }
    uint8_t *restrict sub = trial, *restrict up = trial + length, *restrict average = trial + 2 * length,
                      *restrict paeth_out = trial + 3 * length;
    unsigned long sums[5] = {0, 0, 0, 0, 0};
    size_t lead = bpp < length ? bpp : length;
    for (size_t i = 0; i < lead; i++) {
        sub[i] = row[i];
        up[i] = (uint8_t)(row[i] - above[i]);
        average[i] = (uint8_t)(row[i] - (above[i] >> 1));
        paeth_out[i] = (uint8_t)(row[i] - above[i]);  // Paeth of (0, b, 0) is b
    }
    for (size_t i = lead; i < length; i++) {
        uint8_t a = row[i - bpp], b = above[i], c = above[i - bpp], x = row[i];
        sub[i] = (uint8_t)(x - a);
        up[i] = (uint8_t)(x - b);
        average[i] = (uint8_t)(x - (uint8_t)(((unsigned)a + b) >> 1));
        paeth_out[i] = (uint8_t)(x - paeth(a, b, c));
    }
    const uint8_t *candidates[5] = {row, sub, up, average, paeth_out};
    for (int type = 0; type < 5; type++) sums[type] = weight(candidates[type], length);
    // The smallest sum wins; ties go to the earlier filter (None, Sub, Up, Average, Paeth).
    int best = 0;
    for (int type = 1; type <= 4; type++) {
        if (sums[type] < sums[best]) best = type;
    }
    out[0] = (uint8_t)best;
    memcpy(out + 1, best == 0 ? row : trial + (size_t)(best - 1) * length, length);
}

imgtool_png_status imgtool_png_deflate_block(const imgtool_png_block_params *params, imgtool_png_block *block) {
    if (params == NULL || block == NULL || params->rows == NULL || params->row_bytes == 0 ||
        params->bytes_per_pixel == 0 || params->block_rows == 0) {
        return IMGTOOL_PNG_MISUSE;
    }
    memset(block, 0, sizeof *block);
    const size_t length = params->row_bytes, filtered_row = length + 1, bpp = params->bytes_per_pixel;
    const uint32_t total_rows = params->dictionary_rows + params->block_rows;
    const size_t band_bytes = filtered_row * BAND_ROWS;
    uint8_t *band = calloc(1, band_bytes + 5 * length + (size_t)params->dictionary_rows * filtered_row);
    if (band == NULL) return IMGTOOL_PNG_TOO_LARGE;
    uint8_t *trial = band + band_bytes;
    const uint8_t *zero_row = trial + 4 * length;  // the row "above" the first: all zeros
    uint8_t *dictionary = trial + 5 * length;

    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, params->level, Z_DEFLATED, -15, 8, params->strategy) != Z_OK) {
        free(band);
        return IMGTOOL_PNG_TOO_LARGE;
    }
    imgtool_png_status status = IMGTOOL_PNG_OK;
    // The dictionary: the last 32 KiB of the filtered rows before the block.
    const uint8_t *above = params->above != NULL ? params->above : zero_row;
    for (uint32_t row = 0; row < params->dictionary_rows; row++) {
        const uint8_t *current = params->rows + (size_t)row * params->stride;
        filter_row(current, above, length, bpp, params->adaptive, dictionary + (size_t)row * filtered_row, trial);
        above = current;
    }
    size_t dictionary_length = (size_t)params->dictionary_rows * filtered_row;
    if (dictionary_length > 0) {
        size_t used = dictionary_length < WINDOW ? dictionary_length : WINDOW;
        if (deflateSetDictionary(&stream, dictionary + dictionary_length - used, (uInt)used) != Z_OK) {
            status = IMGTOOL_PNG_MISUSE;
        }
    }
    // Room for everything: deflate's bound, plus the sync flush's empty stored block.
    const size_t input_length = (size_t)params->block_rows * filtered_row;
    size_t capacity = deflateBound(&stream, (uLong)input_length) + 16;
    uint8_t *out = status == IMGTOOL_PNG_OK ? malloc(capacity) : NULL;
    if (status == IMGTOOL_PNG_OK && out == NULL) status = IMGTOOL_PNG_TOO_LARGE;
    uLong adler = adler32(0L, Z_NULL, 0);
    if (status == IMGTOOL_PNG_OK) {
        stream.next_out = out;
        stream.avail_out = (uInt)capacity;
        for (uint32_t row = params->dictionary_rows; row < total_rows && status == IMGTOOL_PNG_OK;) {
            uint32_t count = total_rows - row < BAND_ROWS ? total_rows - row : BAND_ROWS;
            for (uint32_t k = 0; k < count; k++) {
                const uint8_t *current = params->rows + (size_t)(row + k) * params->stride;
                filter_row(current, above, length, bpp, params->adaptive, band + (size_t)k * filtered_row, trial);
                above = current;
            }
            row += count;
            size_t bytes = (size_t)count * filtered_row;
            adler = adler32_z(adler, band, bytes);
            stream.next_in = band;
            stream.avail_in = (uInt)bytes;
            int flush = row < total_rows ? Z_NO_FLUSH : (params->is_last ? Z_FINISH : Z_SYNC_FLUSH);
            int result = deflate(&stream, flush);
            if ((flush == Z_FINISH && result != Z_STREAM_END) || (flush != Z_FINISH && result != Z_OK) ||
                stream.avail_in != 0) {
                status = IMGTOOL_PNG_TOO_LARGE;  // the bound was not enough: cannot happen
            }
        }
    }
    if (status == IMGTOOL_PNG_OK) {
        block->data = out;
        block->length = capacity - stream.avail_out;
        block->adler = (uint32_t)adler;
        block->filtered_length = input_length;
    } else {
        free(out);
    }
    deflateEnd(&stream);
    free(band);
    return status;
}

uint32_t imgtool_png_adler32_combine(uint32_t first, uint32_t second, size_t second_length) {
    return (uint32_t)adler32_combine(first, second, (z_off_t)second_length);
}
