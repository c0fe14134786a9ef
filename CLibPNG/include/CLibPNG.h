// CLibPNG: the only door between Swift and libpng.
//
// libpng reports errors by longjmp. A longjmp that crosses a Swift frame skips Swift's cleanup
// and corrupts its state, so Swift never calls a libpng function that can fail. Every function
// below sets its own setjmp, runs a short piece of libpng work over a memory buffer or a file
// descriptor, and returns a status; the message libpng gave is copied into the context.
#ifndef CLIBPNG_H
#define CLIBPNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by every shim function.
typedef enum {
    IMGTOOL_PNG_OK = 0,
    /// libpng rejected the data (bad signature, CRC, chunk, zlib stream ...); see the message.
    IMGTOOL_PNG_CORRUPT = 1,
    /// The data ended before libpng had what it needed.
    IMGTOOL_PNG_TRUNCATED = 2,
    /// An allocation failed, or a size passed the limits given to the reader.
    IMGTOOL_PNG_TOO_LARGE = 3,
    /// Writing to the output failed (errno is in `system_error`).
    IMGTOOL_PNG_WRITE_FAILED = 4,
    /// The call was made in the wrong order or with bad arguments.
    IMGTOOL_PNG_MISUSE = 5,
} imgtool_png_status;

/// What IHDR and the ancillary chunks before IDAT say about an image.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    int has_plte;
    int has_trns;
    int has_gama;
    int has_srgb;
    int has_iccp;
    /// Bytes per output row after the transformations chosen by `imgtool_png_reader_start`.
    size_t output_row_bytes;
} imgtool_png_header;

typedef struct imgtool_png_reader imgtool_png_reader;

/// The colour description and metadata chunks before IDAT, as libpng read them. Pointers are
/// valid until the reader is destroyed; a length of 0 means the chunk is absent.
typedef struct {
    /// `gAMA`: the encoding exponent, when `has_gamma`.
    int has_gamma;
    double gamma;
    /// `cHRM`: white x, y, red x, y, green x, y, blue x, y, when `has_chromaticities`.
    int has_chromaticities;
    double chromaticities[8];
    /// `sRGB` rendering intent 0-3, or -1.
    int srgb_intent;
    /// `iCCP`, decompressed.
    const uint8_t *icc;
    size_t icc_length;
    /// `eXIf`.
    const uint8_t *exif;
    size_t exif_length;
    /// The `iTXt` (or `tEXt`/`zTXt`) chunk keyed `XML:com.adobe.xmp`.
    const uint8_t *xmp;
    size_t xmp_length;
    /// `cICP`: primaries, transfer, matrix, full-range flag, when `has_cicp`.
    int has_cicp;
    uint8_t cicp[4];
} imgtool_png_color;

/// The colour and metadata chunks, after `imgtool_png_reader_read_header`.
void imgtool_png_reader_color(const imgtool_png_reader *reader, imgtool_png_color *color);

/// zlib-compresses `length` bytes at `level` into a buffer freed with `imgtool_png_buffer_free`;
/// NULL when out of memory. For the compressed chunks (iCCP) the writers add (level 9), and for
/// frames held compressed while the APNG writer looks ahead (level 1).
uint8_t *imgtool_png_zlib_compress(const uint8_t *data, size_t length, int level, size_t *out_length);

/// Decompresses what `imgtool_png_zlib_compress` made into exactly `out_length` bytes at `out`:
/// 0, or -1 when the data is damaged or of another length.
int imgtool_png_zlib_uncompress(const uint8_t *data, size_t length, uint8_t *out, size_t out_length);

void imgtool_png_buffer_free(uint8_t *buffer);

/// Creates a reader over `size` bytes at `data` (not copied: they must outlive the reader).
/// libpng itself refuses images wider than `max_width`, taller than `max_height`, and ancillary
/// chunks larger than `max_chunk_bytes`. Returns NULL only when memory is exhausted.
imgtool_png_reader *imgtool_png_reader_create(const uint8_t *data, size_t size, uint32_t max_width,
                                              uint32_t max_height, size_t max_chunk_bytes);

/// Creates a reader over the open file descriptor `fd`, read from its current offset with
/// `read(2)` as libpng asks for bytes, so the file is never held in memory whole. The caller
/// keeps `fd` open while the reader exists and closes it afterwards. Limits as in
/// `imgtool_png_reader_create`. Returns NULL when memory is exhausted or `fd` is negative.
imgtool_png_reader *imgtool_png_reader_create_fd(int fd, uint32_t max_width, uint32_t max_height,
                                                 size_t max_chunk_bytes);

/// Reads the signature and every chunk up to the first IDAT (`png_read_info`).
imgtool_png_status imgtool_png_reader_read_header(imgtool_png_reader *reader, imgtool_png_header *header);

/// Chooses the output: RGBA, 8-bit (16-bit samples reduced by `png_set_scale_16`, which rounds)
/// or 16-bit native-endian when `sixteen_bit` is non-zero. No gamma or colour transformation.
/// Updates `header->output_row_bytes`.
imgtool_png_status imgtool_png_reader_start(imgtool_png_reader *reader, int sixteen_bit, imgtool_png_header *header);

/// Reads the next `row_count` rows of a non-interlaced image into `dst`, `stride` bytes apart.
imgtool_png_status imgtool_png_reader_read_rows(imgtool_png_reader *reader, uint8_t *dst, size_t stride,
                                                uint32_t row_count);

/// Reads a whole image, interlaced or not, into `dst` (`height` rows, `stride` bytes apart).
imgtool_png_status imgtool_png_reader_read_image(imgtool_png_reader *reader, uint8_t *dst, size_t stride);

/// Reads the chunks after the image data up to IEND (`png_read_end`), checking their CRCs.
imgtool_png_status imgtool_png_reader_finish(imgtool_png_reader *reader);

/// The message of the last failure (libpng's text, or the shim's), or "" when there was none.
const char *imgtool_png_reader_message(const imgtool_png_reader *reader);

/// The warnings libpng reported so far, separated by newlines ("" when none).
const char *imgtool_png_reader_warnings(const imgtool_png_reader *reader);

/// Frees the reader and everything libpng allocated for it. NULL is allowed.
void imgtool_png_reader_destroy(imgtool_png_reader *reader);

/// The header of an image to encode; its data comes compressed (`imgtool_png_deflate_block`).
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    /// Palette as RGB triples (palette images only).
    const uint8_t *palette_rgb;
    int palette_count;
    /// tRNS alpha per palette entry (palette images only; may be shorter than the palette).
    const uint8_t *palette_alpha;
    int palette_alpha_count;
    /// Chunks written after IHDR and before PLTE (colour description, metadata): a sequence of
    /// records, each a 4-byte type, a 4-byte big-endian length and that many bytes of data.
    const uint8_t *extra_chunks;
    size_t extra_chunks_length;
} imgtool_png_write_params;

/// Where encoded bytes go: a file descriptor (`fd` >= 0), or a growing memory buffer (`fd` < 0)
/// that the caller frees with `imgtool_png_sink_free`.
typedef struct {
    int fd;
    uint8_t *buffer;
    size_t count;
    size_t capacity;
    /// errno of a failed write, 0 otherwise.
    int system_error;
    char message[256];
} imgtool_png_sink;

typedef struct imgtool_png_writer imgtool_png_writer;

/// Creates a writer that sends its bytes to `sink` (which must outlive it). NULL when out of memory.
imgtool_png_writer *imgtool_png_writer_create(imgtool_png_sink *sink);

/// Writes the signature, IHDR, PLTE and tRNS (`png_write_info`) for `params`.
imgtool_png_status imgtool_png_writer_begin(imgtool_png_writer *writer, const imgtool_png_write_params *params);

/// Frees the writer. NULL is allowed.
void imgtool_png_writer_destroy(imgtool_png_writer *writer);

/// Frees a memory sink's buffer.
void imgtool_png_sink_free(imgtool_png_sink *sink);

/// One block of a PNG's image data, deflated on its own (see png_deflate.c): rows
/// `dictionary_rows ..< dictionary_rows + block_rows` of `rows` are filtered and compressed; the
/// rows before them are filtered only to prime the compressor with the last 32 KiB before the
/// block. Rows are packed as stored (16-bit samples big-endian).
typedef struct {
    /// The unfiltered row above `rows[0]`, or NULL when `rows[0]` is the image's first row.
    const uint8_t *above;
    const uint8_t *rows;
    size_t stride;
    /// Bytes of one packed row, without the filter byte.
    size_t row_bytes;
    /// Filter distance: bytes per pixel, at least 1.
    uint32_t bytes_per_pixel;
    uint32_t dictionary_rows;
    uint32_t block_rows;
    /// Non-zero: each row takes the best of the five filters (libpng's heuristic); zero: none.
    int adaptive;
    int level;
    int strategy;
    /// Non-zero for the image's last block, which ends the deflate stream; others end with a
    /// sync flush.
    int is_last;
} imgtool_png_block_params;

/// A compressed block: raw deflate data (freed with `imgtool_png_buffer_free`) and the Adler-32
/// of the filtered bytes it holds.
typedef struct {
    uint8_t *data;
    size_t length;
    uint32_t adler;
    size_t filtered_length;
} imgtool_png_block;

/// Filters and deflates one block. `IMGTOOL_PNG_TOO_LARGE` when memory runs out.
imgtool_png_status imgtool_png_deflate_block(const imgtool_png_block_params *params, imgtool_png_block *block);

/// zlib's `adler32_combine`: the Adler-32 of two byte runs one after the other.
uint32_t imgtool_png_adler32_combine(uint32_t first, uint32_t second, size_t second_length);

/// After `imgtool_png_writer_begin`: writes `length` bytes of zlib stream as IDAT chunks of at
/// most `chunk_bytes`, then IEND.
imgtool_png_status imgtool_png_writer_finish_with_stream(imgtool_png_writer *writer, const uint8_t *stream,
                                                         size_t length, size_t chunk_bytes);

/// libpng's version string, as compiled against.
const char *imgtool_png_version(void);

#ifdef __cplusplus
}
#endif

#endif
