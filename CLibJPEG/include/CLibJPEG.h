// CLibJPEG: the only door between Swift and libjpeg (libjpeg-turbo's libjpeg API).
//
// libjpeg reports errors by calling error_exit, which must not return; the usual answer is a
// longjmp. A longjmp that crosses a Swift frame skips Swift's cleanup, so Swift never calls a
// libjpeg function that can fail. Every function below sets its own setjmp, runs a short piece of
// libjpeg work over a memory buffer, and returns a status; libjpeg's message (format_message) is
// copied into the reader or writer, and its warnings are collected there instead of printed.
#ifndef CLIBJPEG_H
#define CLIBJPEG_H

#include <stddef.h>
#include <stdint.h>

/// A colour transform made by CColor (`imgtool_color_transform_new`).
typedef struct imgtool_color_transform imgtool_color_transform;

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by every shim function.
typedef enum {
    IMGTOOL_JPEG_OK = 0,
    /// libjpeg rejected the data (bad marker, Huffman table, SOF ...); see the message.
    IMGTOOL_JPEG_CORRUPT = 1,
    /// The data ended before the image did ("Premature end of JPEG file"). Rows read so far
    /// hold what libjpeg made of the data present.
    IMGTOOL_JPEG_TRUNCATED = 2,
    /// An allocation failed, or the image passed the memory or scan limits of the reader.
    IMGTOOL_JPEG_TOO_LARGE = 3,
    /// The image uses something the shim does not decode (an unknown colour space, 12-bit samples).
    IMGTOOL_JPEG_UNSUPPORTED = 4,
    /// The call was made in the wrong order or with bad arguments.
    IMGTOOL_JPEG_MISUSE = 5,
} imgtool_jpeg_status;

/// The colour space of the stored samples, as libjpeg guesses it from the components, the JFIF
/// and Adobe markers (`jpeg_color_space`).
typedef enum {
    IMGTOOL_JPEG_COLOR_UNKNOWN = 0,
    IMGTOOL_JPEG_COLOR_GRAY = 1,
    IMGTOOL_JPEG_COLOR_RGB = 2,
    IMGTOOL_JPEG_COLOR_YCBCR = 3,
    IMGTOOL_JPEG_COLOR_CMYK = 4,
    IMGTOOL_JPEG_COLOR_YCCK = 5,
} imgtool_jpeg_color;

/// What the markers before the first scan say about an image.
typedef struct {
    /// The size stored in the frame header (SOF).
    uint32_t width;
    uint32_t height;
    int components;
    /// Bits per sample (8; 12-bit files are refused when decoding starts).
    int precision;
    imgtool_jpeg_color color;
    /// The Adobe APP14 transform flag (0, 1 or 2), or -1 when there is no Adobe marker.
    int adobe_transform;
    int has_jfif;
    int progressive;
    int arithmetic;
    unsigned int restart_interval;
    /// Whether an APP1 segment starting `Exif\0\0` / an APP2 segment starting `ICC_PROFILE\0` was seen.
    int has_exif;
    int has_icc;
    /// The size of the rows `imgtool_jpeg_reader_start` will produce (after DCT scaling).
    uint32_t output_width;
    uint32_t output_height;
} imgtool_jpeg_header;

typedef struct imgtool_jpeg_reader imgtool_jpeg_reader;

/// Creates a reader over `size` bytes at `data` (not copied: they must outlive the reader).
/// `max_memory` bounds what libjpeg may allocate for the image (its coefficient buffers and
/// rows); `max_scans` bounds the scans of a progressive image (a hostile file can hold thousands
/// of tiny scans, each costing a pass over the whole image). Returns NULL only when memory is
/// exhausted.
imgtool_jpeg_reader *imgtool_jpeg_reader_create(const uint8_t *data, size_t size, size_t max_memory,
                                                int max_scans);

/// Reads the markers up to the first scan (`jpeg_read_header`), keeping APP1 and APP2 segments
/// (each at most 64 KiB, as a marker cannot be longer).
imgtool_jpeg_status imgtool_jpeg_reader_read_header(imgtool_jpeg_reader *reader, imgtool_jpeg_header *header);

/// The payload of the first APP1 segment that starts `Exif\0\0` (the `Exif\0\0` included), and
/// its length in `*length`; NULL and 0 when there is none. Valid until the reader is destroyed.
const uint8_t *imgtool_jpeg_reader_exif(const imgtool_jpeg_reader *reader, size_t *length);

/// The XMP packet of the first APP1 segment that starts `http://ns.adobe.com/xap/1.0/\0` (the
/// prefix left out), and its length; NULL when there is none. Valid until the reader is destroyed.
const uint8_t *imgtool_jpeg_reader_xmp(const imgtool_jpeg_reader *reader, size_t *length);

/// The total length of the ICC profile carried by the APP2 `ICC_PROFILE` segments (0 when there are
/// none or they contradict each other); `complete` is set to 1 when every numbered part is there.
size_t imgtool_jpeg_reader_icc_length(const imgtool_jpeg_reader *reader, int *complete);

/// Copies the profile's parts, in their numbered order, into `out` (`length` bytes, as
/// `imgtool_jpeg_reader_icc_length` said). Returns 1, or 0 when the profile is incomplete.
int imgtool_jpeg_reader_icc_copy(const imgtool_jpeg_reader *reader, uint8_t *out, size_t length);

/// Makes a CMYK or YCCK image come out through `transform` (a CMYK transform from CColor, kept
/// alive by the caller until the reader is destroyed) instead of the inverted-CMYK formula. Set it
/// before the first row is read.
void imgtool_jpeg_reader_set_cmyk_transform(imgtool_jpeg_reader *reader, const imgtool_color_transform *transform);

/// Starts decoding (`jpeg_start_decompress`) to 8-bit RGBA, A = 255, at 1/`scale_denom` of the
/// stored size (1, 2, 4 or 8, libjpeg's DCT scaling). YCbCr, RGB and grey come out of libjpeg as
/// `JCS_EXT_RGBA`; CMYK and YCCK as `JCS_CMYK` (Adobe's inverted values, as stored), turned into
/// RGB as libjpeg-turbo's `cmyk_to_rgb` does: R = round(C x K / 255), and so on. Updates
/// `header->output_width` and `output_height`. A progressive image is read whole here.
imgtool_jpeg_status imgtool_jpeg_reader_start(imgtool_jpeg_reader *reader, int scale_denom,
                                              imgtool_jpeg_header *header);

/// Narrows decoding to the columns `*x` ..< `*x + *width` of the output (`jpeg_crop_scanline`),
/// before any row is read or skipped. libjpeg widens the range to whole iMCU columns and writes
/// the range it decodes back into `*x` and `*width`; rows read after this are that many pixels
/// wide, starting at column `*x`. The columns at the range's ends are upsampled as an image edge
/// would be, so a caller that needs a decode's exact pixels asks for a margin around them.
imgtool_jpeg_status imgtool_jpeg_reader_crop_columns(imgtool_jpeg_reader *reader, uint32_t *x, uint32_t *width);

/// Reads the next `row_count` rows into `dst`, `stride` bytes apart (a negative stride writes
/// upwards from `dst`). Returns IMGTOOL_JPEG_TRUNCATED, with the rows filled, once libjpeg has
/// reported that the data ended early.
imgtool_jpeg_status imgtool_jpeg_reader_read_rows(imgtool_jpeg_reader *reader, uint8_t *dst, ptrdiff_t stride,
                                                  uint32_t row_count);

/// Skips the next `row_count` rows (`jpeg_skip_scanlines`): their entropy-coded data is read, but
/// not turned into pixels, so a second reader can start decoding part way down the image. The
/// rows after them are exactly those of a decode that reads every row (checked in the tests).
imgtool_jpeg_status imgtool_jpeg_reader_skip_rows(imgtool_jpeg_reader *reader, uint32_t row_count);

/// The decoded planes of a YCbCr image, as `imgtool_jpeg_reader_start_planes` gives them.
typedef struct {
    /// The image's size; the luma plane has it.
    uint32_t width;
    uint32_t height;
    /// The luma's sampling factors over the chroma's: (1, 1), (2, 1) or (2, 2).
    int luma_h;
    int luma_v;
    /// The chroma planes' size, `ceil(width / luma_h)` by `ceil(height / luma_v)`.
    uint32_t chroma_width;
    uint32_t chroma_height;
    /// Bytes a row of each plane needs (whole 8x8 blocks: more than the width).
    size_t luma_stride;
    size_t chroma_stride;
    /// Luma rows each `imgtool_jpeg_reader_read_planes` call makes (8 x `luma_v`); the chroma
    /// planes get 8 rows.
    uint32_t group_rows;
} imgtool_jpeg_planes;

/// Starts decoding to planes instead of pixels (libjpeg's raw data output: entropy decoding and
/// the IDCT, no upsampling or colour conversion), at the stored size. Only for YCbCr whose chroma
/// planes are 4:4:4, 4:2:2 or 4:2:0 of the luma and at least 3 samples wide; otherwise
/// IMGTOOL_JPEG_UNSUPPORTED, with the reader as it was (`imgtool_jpeg_reader_start` still works).
imgtool_jpeg_status imgtool_jpeg_reader_start_planes(imgtool_jpeg_reader *reader, imgtool_jpeg_planes *planes);

/// Reads the next row group of the planes (`jpeg_read_raw_data`): `group_rows` luma rows and 8
/// rows of each chroma plane, into the rows given (each `luma_stride` / `chroma_stride` bytes).
/// Rows past the image's bottom hold padding. Returns IMGTOOL_JPEG_TRUNCATED once the data ended
/// early.
imgtool_jpeg_status imgtool_jpeg_reader_read_planes(imgtool_jpeg_reader *reader, uint8_t *const *luma_rows,
                                                    uint8_t *const *cb_rows, uint8_t *const *cr_rows);

/// A decode on two threads: one reads the planes (`imgtool_jpeg_pipeline_produce`), the other
/// turns them into RGBA rows a row group behind (`imgtool_jpeg_pipeline_next_rows`), exactly as
/// libjpeg-turbo's fancy upsampling and YCbCr conversion would (jpeg_pipeline.c).
typedef struct imgtool_jpeg_pipeline imgtool_jpeg_pipeline;

/// A pipeline over `reader`, started by `imgtool_jpeg_reader_start_planes` with `planes`. NULL when
/// memory is exhausted. The reader must outlive it.
imgtool_jpeg_pipeline *imgtool_jpeg_pipeline_create(imgtool_jpeg_reader *reader, const imgtool_jpeg_planes *planes);

/// The decoding thread's part: reads every row group, then the data up to EOI. Returns the first
/// failure (the reader's message says what), or IMGTOOL_JPEG_MISUSE when the other thread gave up.
imgtool_jpeg_status imgtool_jpeg_pipeline_produce(imgtool_jpeg_pipeline *pipe);

/// The converting thread's part: waits for the next row group and writes its rows, RGBA with
/// A = 255, at `dst`, `stride` bytes apart (group k's first row is k x `group_rows`). Returns the
/// number of rows (at most `group_rows`), 0 once every row was given, -1 when the decoding thread
/// failed or the pipeline was abandoned.
long imgtool_jpeg_pipeline_next_rows(imgtool_jpeg_pipeline *pipe, uint8_t *dst, ptrdiff_t stride);

/// Makes both parts return soon (for a consumer that stops early or is cancelled).
void imgtool_jpeg_pipeline_abandon(imgtool_jpeg_pipeline *pipe);

/// Frees the pipeline; both parts must have returned. NULL is allowed.
void imgtool_jpeg_pipeline_destroy(imgtool_jpeg_pipeline *pipe);

/// Reads the rest of the data up to EOI (`jpeg_finish_decompress`); bytes after EOI are ignored.
imgtool_jpeg_status imgtool_jpeg_reader_finish(imgtool_jpeg_reader *reader);

/// The message of the last failure (libjpeg's text, or the shim's), or "" when there was none.
const char *imgtool_jpeg_reader_message(const imgtool_jpeg_reader *reader);

/// The distinct warnings libjpeg reported so far ("Corrupt JPEG data: 3 extraneous bytes before
/// marker 0xd9"), separated by newlines; "" when none. At most a few are kept.
const char *imgtool_jpeg_reader_warnings(const imgtool_jpeg_reader *reader);

/// How many warnings libjpeg reported in all (some may not be in the text).
long imgtool_jpeg_reader_warning_count(const imgtool_jpeg_reader *reader);

/// Frees the reader and everything libjpeg allocated for it. NULL is allowed.
void imgtool_jpeg_reader_destroy(imgtool_jpeg_reader *reader);

/// How to encode an image. Rows are 8-bit RGBX (4 bytes a pixel, the fourth ignored).
typedef struct {
    uint32_t width;
    uint32_t height;
    /// 1-100, as libjpeg's `jpeg_set_quality` (baseline-compatible tables).
    int quality;
    /// Non-zero: a progressive file (`jpeg_simple_progression`).
    int progressive;
    /// Non-zero: Huffman tables computed for the image (`optimize_coding`), smaller files.
    int optimize;
    /// Chroma subsampling: 0 for 4:4:4 (none), 1 for 4:2:0 (half in each direction), 2 for 4:2:2
    /// (half across).
    int subsample;
    /// Non-zero: arithmetic coding instead of Huffman (`arith_code`; few decoders outside libjpeg
    /// read it, so imgtool writes it only in tests).
    int arithmetic;
    /// A restart marker every this many MCUs (`restart_interval`), 0 for none.
    unsigned int restart_interval;
} imgtool_jpeg_write_params;

typedef struct imgtool_jpeg_writer imgtool_jpeg_writer;

/// Creates a writer that collects its output in memory; take it in pieces with
/// `imgtool_jpeg_writer_output`. NULL when out of memory.
imgtool_jpeg_writer *imgtool_jpeg_writer_create(void);

/// Sets the parameters and writes the markers (`jpeg_start_compress`).
imgtool_jpeg_status imgtool_jpeg_writer_begin(imgtool_jpeg_writer *writer, const imgtool_jpeg_write_params *params);

/// Most whole-image arrays `imgtool_jpeg_writer_arrays` reports (one per component).
enum { IMGTOOL_JPEG_MAX_ARRAYS = 4 };

/// A piece of memory libjpeg allocated.
typedef struct {
    uint8_t *start;
    size_t length;
} imgtool_jpeg_memory;

/// The whole-image coefficient arrays libjpeg allocated in `imgtool_jpeg_writer_begin` (with
/// `optimize` or `progressive`, one per component; none otherwise), not yet written: copies
/// their places into `arrays` (room for IMGTOOL_JPEG_MAX_ARRAYS) and returns how many. They stay
/// valid until `imgtool_jpeg_writer_finish` returns. Only to have their pages mapped ahead of
/// libjpeg (madvise MADV_POPULATE_WRITE), which changes no byte.
int imgtool_jpeg_writer_arrays(const imgtool_jpeg_writer *writer, imgtool_jpeg_memory *arrays);

/// Writes `row_count` rows from `rows`, `stride` bytes apart.
imgtool_jpeg_status imgtool_jpeg_writer_write_rows(imgtool_jpeg_writer *writer, const uint8_t *rows, size_t stride,
                                                   uint32_t row_count);

/// Writes the last scan and EOI (`jpeg_finish_compress`).
imgtool_jpeg_status imgtool_jpeg_writer_finish(imgtool_jpeg_writer *writer);

/// The bytes encoded since the last call (`*length` of them), which the caller copies out before
/// the next call into the writer; the writer then reuses its buffer.
const uint8_t *imgtool_jpeg_writer_output(imgtool_jpeg_writer *writer, size_t *length);

/// The message of the last failure, or "".
const char *imgtool_jpeg_writer_message(const imgtool_jpeg_writer *writer);

/// Frees the writer. NULL is allowed.
void imgtool_jpeg_writer_destroy(imgtool_jpeg_writer *writer);

/// libjpeg-turbo's version as compiled against, e.g. 2001005 for 2.1.5 (0 when not known).
long imgtool_jpeg_version(void);

// MARK: - Split encoding (jpeg_split.c)
//
// A baseline JPEG encoded as horizontal parts, each by its own libjpeg compressor on whatever
// thread the caller likes, then joined into one file with Huffman tables optimized for the whole
// image. Each part is compressed with libjpeg's standard Huffman tables and a restart marker
// after every MCU row (DRI = MCUs per row), so that each part is a whole number of restart
// intervals and nothing carries over from one part to the next. The shim then decodes each
// part's entropy-coded data (no DCT: only the Huffman symbols and their extra bits) to count
// every table's symbols, sums the counts of all parts, builds optimal tables from them
// (libjpeg's jpeg_gen_optimal_table, as optimize_coding does), and re-codes each part's symbols
// with those tables, keeping every extra bit. The file is the first part's markers (the frame's
// height made the whole image's, the tables replaced) and every part's data, restart markers
// numbered on across the joins. The coefficients, and so the decoded pixels, are exactly those
// of one libjpeg encode of the whole image with the same settings: colour conversion,
// downsampling (2x2 box, no smoothing) and the DCT see only the rows of one MCU row at a time.
//
// The functions of one part may run on one thread while those of another part run on another;
// imgtool_jpeg_split_join runs alone, after every part is finished. The order for each part is
// begin_part, write_rows (all its rows), finish_part; then join; then transcode_part and output
// for each part. Nothing here calls back into the caller, and every libjpeg call has its own
// setjmp, as in the rest of the shim.

typedef struct imgtool_jpeg_split imgtool_jpeg_split;

/// Most parts a split encode has.
enum { IMGTOOL_JPEG_MAX_PARTS = 16 };

/// Creates a split encode of `part_count` parts (1 to IMGTOOL_JPEG_MAX_PARTS). With
/// `keep_symbols`, each part keeps the symbols it decodes while counting (4 bytes each, at most 16
/// a block), so that re-coding need not decode them again; a part with more, or with
/// `keep_symbols` 0, is decoded again. The bytes written are the same either way. NULL when out
/// of memory or `part_count` is out of range.
imgtool_jpeg_split *imgtool_jpeg_split_create(int part_count, int keep_symbols);

/// Starts part `part`: rows `first_row ..< first_row + row_count` of the image `params`
/// describes (the whole image's size). The parameters must be the same for every part and ask
/// for a baseline Huffman file: `progressive`, `arithmetic` and `restart_interval` 0 (`optimize`
/// is ignored: the tables are always optimized). `first_row` must be a multiple of the MCU
/// height (16 for 4:2:0, else 8), and the rows must lie within the image.
imgtool_jpeg_status imgtool_jpeg_split_begin_part(imgtool_jpeg_split *split, int part,
                                                  const imgtool_jpeg_write_params *params, uint32_t first_row,
                                                  uint32_t row_count);

/// Compresses the next `row_count` rows of part `part` from `rows`, `stride` bytes apart (8-bit
/// RGBX, as `imgtool_jpeg_writer_write_rows`).
imgtool_jpeg_status imgtool_jpeg_split_write_rows(imgtool_jpeg_split *split, int part, const uint8_t *rows,
                                                  size_t stride, uint32_t row_count);

/// Ends part `part` once all its rows are written (`jpeg_finish_compress`), then decodes its
/// entropy-coded data and counts the Huffman symbols of each table.
imgtool_jpeg_status imgtool_jpeg_split_finish_part(imgtool_jpeg_split *split, int part);

/// Once every part is finished: checks that the parts cover the image, top to bottom, with the
/// same settings, builds the Huffman tables optimal for their summed counts, and the file's
/// markers.
imgtool_jpeg_status imgtool_jpeg_split_join(imgtool_jpeg_split *split);

/// Re-codes part `part`'s symbols with the joined tables, after `imgtool_jpeg_split_join`; frees
/// the part's compressor and first encoding.
imgtool_jpeg_status imgtool_jpeg_split_transcode_part(imgtool_jpeg_split *split, int part);

/// Part `part`'s share of the file, once transcoded: the first part's starts with the markers
/// (SOI to SOS), each part but the last ends with a restart marker, the last with EOI. The file
/// is the parts' bytes in order. Valid until the split is destroyed; NULL and 0 before.
const uint8_t *imgtool_jpeg_split_output(const imgtool_jpeg_split *split, int part, size_t *length);

/// The message of part `part`'s last failure, or of the join's when `part` is out of range
/// (e.g. -1); "" when there was none.
const char *imgtool_jpeg_split_message(const imgtool_jpeg_split *split, int part);

/// Frees the split and all its parts. NULL is allowed.
void imgtool_jpeg_split_destroy(imgtool_jpeg_split *split);

#ifdef __cplusplus
}
#endif

#endif
