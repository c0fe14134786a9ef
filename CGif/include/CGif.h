// giflib reports errors by return code (GIF_ERROR, then GifFileType.Error), so Swift calls it
// directly. Beside its declarations, this module has functions of ours: a faster LZW
// decoder for well-formed image data, which hands anything unusual back to giflib, the LZW
// encoder of imgtool's GIF writer, and the nearest-colour search of its quantizer.
#ifndef IMGTOOL_CGIF_H
#define IMGTOOL_CGIF_H

#include <gif_lib.h>
#include <stddef.h>
#include <stdint.h>

/// Decodes the first `count` pixels of one image's LZW data into `out`.
///
/// `data[start]` is the image's first data sub-block length byte (just after the LZW minimum
/// code size, `minimum_code_size`, 2 to 8). Codes are read and the code table is grown by
/// exactly giflib 5.2's rules (`DGifDecompressLine`), so a pixel written here is the pixel
/// giflib would write. Every case where giflib does something other than plain LZW is refused
/// instead: a code not yet in the table, the end-of-information code before `count` pixels,
/// an empty or cut sub-block, a minimum code size outside 2-8. The caller then decodes the
/// image with giflib, which reports (or tolerates) the problem as it always has.
///
/// Returns 0 when all `count` pixels were written, -1 when the data is refused (`out` then
/// holds partial output). Data after the `count`th pixel is not read.
int imgtool_gif_lzw_decode(
    const uint8_t *data, size_t size, size_t start, int minimum_code_size, uint8_t *out, size_t count);

/// The most bytes `imgtool_gif_lzw_encode` writes for `count` indices.
size_t imgtool_gif_lzw_encoded_capacity(size_t count);

/// Writes one image's data block for `count` palette indices (every one below
/// `1 << minimum_code_size`, 2 to 8): the minimum code size byte, the LZW codes in data
/// sub-blocks of at most 255 bytes, and the block terminator. Codes start at
/// `minimum_code_size + 1` bits and grow to 12 as giflib's `DGifDecompressInput` reads them;
/// the table is cleared only when it is full, as giflib's `EGifPutLine` does. `out` holds at
/// least `imgtool_gif_lzw_encoded_capacity(count)` bytes. Returns the bytes written.
size_t imgtool_gif_lzw_encode(const uint8_t *indices, size_t count, int minimum_code_size, uint8_t *out);

/// `imgtool_gif_lzw_encode` with two choices the plain encoder does not make:
/// - where `may_be_transparent[i]` is non-zero (`may_be_transparent` may be NULL), pixel `i` may
///   be coded as `indices[i]` or as `transparent_index` (a pixel the canvas already shows: either
///   value displays it), whichever continues the string the table already holds;
/// - with `defer_clear`, a full table is kept, not cleared, while it codes the recent pixels in
///   fewer bits than its generation did while it filled (checked every 1024 pixels): a clear
///   code comes only when the content has moved on. Decoders follow a full table as giflib does.
/// The output is a valid image data block either way; `indices[i]` below `1 << minimum_code_size`.
/// `*filled` (when not NULL) is set to how many times the table filled: 0 means keeping a full
/// table would have written the same bytes.
size_t imgtool_gif_lzw_encode_choosing(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, int minimum_code_size,
    int transparent_index, int defer_clear, uint8_t *out, int *filled);

/// `imgtool_gif_lzw_encode_choosing` with flexible parsing: at each position the coded string
/// is the one, among the `candidates` longest the table holds there, after which the next string
/// reaches furthest (the longest among equals), not always the longest.
size_t imgtool_gif_lzw_encode_flexible(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, int minimum_code_size,
    int transparent_index, int defer_clear, int candidates, uint8_t *out, int *filled);

/// Lossy LZW: `imgtool_gif_lzw_encode_choosing`'s output format, where a string the table holds
/// is continued by any entry whose colour (`table`, `table_count` packed colours, red in the low
/// byte) lies within `max_error` (OkLab distance) of the pixel's own colour plus the error the
/// pixels before it in the string left over (error diffusion along the string, reset at each
/// row of `row_width` pixels and at each new string). A pixel at `transparent_index` that may
/// not be transparent otherwise (`may_be_transparent` zero) stays transparent; one that may be
/// is continued by the transparent index at no error. A full table is cleared at once. The
/// index coded for each pixel goes to `coded` (`count` bytes; NULL for none), so the caller knows
/// what a decoder shows.
size_t imgtool_gif_lzw_encode_lossy(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, size_t row_width,
    int minimum_code_size, int transparent_index, const uint32_t *table, int table_count, float max_error,
    uint8_t *out, uint8_t *coded);

/// The index of the colour nearest to the OkLab point (`pl`, `pa`, `pb`) among `padded` colours
/// given as three arrays of coordinates (`padded` a multiple of 8; colours past the real ones
/// are placed far away, 1e18, so they are never chosen): the smallest squared distance,
/// `(dl * dl + da * da) + db * db` in single precision, the lowest index among equal distances.
/// Measures every colour, with AVX2 when the processor has it.
int32_t imgtool_oklab_nearest(const float *l, const float *a, const float *b, int32_t padded, float pl, float pa,
                              float pb);

/// `imgtool_oklab_nearest` for `count` points stored as consecutive (l, a, b) triples, into
/// `out`; `simd` 0 measures one colour at a time, without AVX2 (the tests compare the two).
void imgtool_oklab_nearest_many(const float *l, const float *a, const float *b, int32_t padded, const float *points,
                                int32_t count, int32_t *out, int simd);

#endif
