// The libpng shim. Why it exists: libpng reports every error by calling longjmp on the jmp_buf
// stored in its png_struct. Swift cannot call setjmp, and a longjmp through Swift frames would
// skip their cleanup, so each exported function here sets its own setjmp before calling libpng,
// copies libpng's message into the reader or sink, and returns a plain status code. No callback
// into Swift exists: I/O goes through the C callbacks below, over memory or a file descriptor.

#include "CLibPNG.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

_Static_assert(sizeof(png_byte) == sizeof(uint8_t), "png_byte must be a byte");
_Static_assert(PNG_LIBPNG_VER >= 10600, "the shim needs libpng 1.6");

enum { MESSAGE_CAPACITY = 256, WARNINGS_CAPACITY = 1024, FILE_BUFFER_CAPACITY = 128 * 1024 };

typedef enum { STAGE_NEW, STAGE_HEADER, STAGE_STARTED, STAGE_ROWS_DONE, STAGE_FINISHED, STAGE_FAILED } reader_stage;

struct imgtool_png_reader {
    png_structp png;
    png_infop info;
    // The input: `size` bytes at `data`, or the file descriptor `fd` when it is not -1.
    const uint8_t *data;
    size_t size;
    size_t offset;
    int fd;
    // File input only: bytes read from `fd` and not yet given to libpng are
    // buffer[consumed..<buffered]; allocated with the reader.
    uint8_t *buffer;
    size_t buffered;
    size_t consumed;
    uint32_t next_row;
    uint32_t height;
    int passes;
    int truncated;
    reader_stage stage;
    char message[MESSAGE_CAPACITY];
    char warnings[WARNINGS_CAPACITY];
};

static void copy_message(char *dst, size_t capacity, const char *text) {
    if (text == NULL) text = "unknown libpng error";
    snprintf(dst, capacity, "%s", text);
}

// libpng's error callback. It must not return: libpng would then print the message to stderr
// itself (png_default_error) before jumping. So it keeps the text and jumps to the setjmp of
// the shim function that is running.
static void reader_error(png_structp png, png_const_charp text) {
    imgtool_png_reader *reader = png_get_error_ptr(png);
    if (reader->message[0] == '\0') copy_message(reader->message, sizeof reader->message, text);
    png_longjmp(png, 1);
}

static void reader_warning(png_structp png, png_const_charp text) {
    imgtool_png_reader *reader = png_get_error_ptr(png);
    // libpng 1.6 only warns about a chunk longer than png_set_chunk_malloc_max allows (a benign
    // error), then allocates and zeroes a buffer of the declared length anyway: 1.8 GB for a
    // 700-byte file that declares a 1.8 GB iTXt. Such a chunk is refused here instead.
    if (strstr(text, "chunk data is too large") != NULL) reader_error(png, text);
    size_t used = strlen(reader->warnings);
    if (used + 2 >= sizeof reader->warnings) return;
    snprintf(reader->warnings + used, sizeof reader->warnings - used, "%s%s", used ? "\n" : "", text);
}

static void reader_read(png_structp png, png_bytep out, size_t length) {
    imgtool_png_reader *reader = png_get_io_ptr(png);
    if (reader->fd >= 0) {
        // From a file: libpng asks for a chunk header, a CRC or a zlib buffer's worth (8 KiB)
        // at a time. They are served from a 128 KiB buffer refilled with read(2), so the file
        // is never held whole and a 40 MB file takes some 300 system calls, not 5000.
        size_t done = 0;
        while (done < length) {
            if (reader->buffered == reader->consumed) {
                ssize_t got = read(reader->fd, reader->buffer, FILE_BUFFER_CAPACITY);
                if (got < 0 && errno == EINTR) continue;
                if (got < 0) {
                    char text[MESSAGE_CAPACITY];
                    snprintf(text, sizeof text, "read failed: %s", strerror(errno));
                    png_error(png, text);
                }
                if (got == 0) {
                    reader->truncated = 1;
                    png_error(png, "unexpected end of file");
                }
                reader->buffered = (size_t)got;
                reader->consumed = 0;
            }
            size_t take = reader->buffered - reader->consumed;
            if (take > length - done) take = length - done;
            memcpy(out + done, reader->buffer + reader->consumed, take);
            reader->consumed += take;
            done += take;
        }
        reader->offset += length;
        return;
    }
    if (length > reader->size - reader->offset) {
        reader->truncated = 1;
        png_error(png, "unexpected end of data");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

// Classifies a failure after longjmp. A size refused by png_set_user_limits is reported by
// libpng as "Invalid IHDR data" after a warning that names the limit, so look there too.
static imgtool_png_status reader_failure(imgtool_png_reader *reader) {
    reader->stage = STAGE_FAILED;
    if (reader->truncated) return IMGTOOL_PNG_TRUNCATED;
    if (strstr(reader->warnings, "exceeds user limit") != NULL || strstr(reader->message, "memory") != NULL ||
        strstr(reader->message, "too large") != NULL) {
        return IMGTOOL_PNG_TOO_LARGE;
    }
    return IMGTOOL_PNG_CORRUPT;
}

static imgtool_png_reader *reader_create(const uint8_t *data, size_t size, int fd, uint32_t max_width,
                                         uint32_t max_height, size_t max_chunk_bytes) {
    imgtool_png_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    reader->data = data;
    reader->size = size;
    reader->fd = fd;
    if (fd >= 0) {
        reader->buffer = malloc(FILE_BUFFER_CAPACITY);
        if (reader->buffer == NULL) {
            free(reader);
            return NULL;
        }
    }
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, reader_error, reader_warning);
    if (reader->png == NULL) {
        free(reader->buffer);
        free(reader);
        return NULL;
    }
    reader->info = png_create_info_struct(reader->png);
    if (reader->info == NULL) {
        png_destroy_read_struct(&reader->png, NULL, NULL);
        free(reader->buffer);
        free(reader);
        return NULL;
    }
    // These setters cannot fail, so they need no setjmp.
    png_set_read_fn(reader->png, reader, reader_read);
    png_set_user_limits(reader->png, max_width, max_height);
    png_set_chunk_malloc_max(reader->png, max_chunk_bytes);
    static const png_byte cicp[5] = {'c', 'I', 'C', 'P', 0};
    png_set_keep_unknown_chunks(reader->png, PNG_HANDLE_CHUNK_ALWAYS, cicp, 1);
    return reader;
}

void imgtool_png_reader_color(const imgtool_png_reader *reader, imgtool_png_color *color) {
    memset(color, 0, sizeof *color);
    color->srgb_intent = -1;
    if (reader == NULL || reader->stage == STAGE_NEW) return;
    png_structp png = reader->png;
    png_infop info = reader->info;
    // These getters only read what png_read_info stored; none of them calls png_error.
    if (png_get_valid(png, info, PNG_INFO_gAMA)) {
        color->has_gamma = png_get_gAMA(png, info, &color->gamma) != 0;
    }
    if (png_get_valid(png, info, PNG_INFO_cHRM)) {
        double *c = color->chromaticities;
        color->has_chromaticities = png_get_cHRM(png, info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) != 0;
    }
    int intent = 0;
    if (png_get_valid(png, info, PNG_INFO_sRGB) && png_get_sRGB(png, info, &intent)) color->srgb_intent = intent;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (png_get_valid(png, info, PNG_INFO_iCCP) &&
        png_get_iCCP(png, info, &name, &compression, &profile, &profile_length)) {
        color->icc = profile;
        color->icc_length = profile_length;
    }
    png_bytep exif = NULL;
    png_uint_32 exif_length = 0;
    if (png_get_valid(png, info, PNG_INFO_eXIf) && png_get_eXIf_1(png, info, &exif_length, &exif)) {
        color->exif = exif;
        color->exif_length = exif_length;
    }
    png_textp texts = NULL;
    int text_count = png_get_text(png, info, &texts, NULL);
    for (int i = 0; i < text_count; i++) {
        if (texts[i].key != NULL && strcmp(texts[i].key, "XML:com.adobe.xmp") == 0 && texts[i].text != NULL) {
            color->xmp = (const uint8_t *)texts[i].text;
            color->xmp_length = texts[i].compression >= PNG_ITXT_COMPRESSION_NONE ? texts[i].itxt_length
                                                                                   : texts[i].text_length;
            break;
        }
    }
    png_unknown_chunkp unknowns = NULL;
    int unknown_count = png_get_unknown_chunks(png, info, &unknowns);
    for (int i = 0; i < unknown_count; i++) {
        if (memcmp(unknowns[i].name, "cICP", 4) == 0 && unknowns[i].size == 4) {
            color->has_cicp = 1;
            memcpy(color->cicp, unknowns[i].data, 4);
        }
    }
}

uint8_t *imgtool_png_zlib_compress(const uint8_t *data, size_t length, int level, size_t *out_length) {
    uLongf bound = compressBound((uLong)length);
    uint8_t *out = malloc(bound > 0 ? bound : 1);
    if (out == NULL) return NULL;
    if (compress2(out, &bound, data, (uLong)length, level) != Z_OK) {
        free(out);
        return NULL;
    }
    *out_length = bound;
    return out;
}

int imgtool_png_zlib_uncompress(const uint8_t *data, size_t length, uint8_t *out, size_t out_length) {
    uLongf filled = (uLongf)out_length;
    if (uncompress(out, &filled, data, (uLong)length) != Z_OK) return -1;
    return filled == out_length ? 0 : -1;
}

void imgtool_png_buffer_free(uint8_t *buffer) { free(buffer); }

imgtool_png_reader *imgtool_png_reader_create(const uint8_t *data, size_t size, uint32_t max_width,
                                              uint32_t max_height, size_t max_chunk_bytes) {
    return reader_create(data, size, -1, max_width, max_height, max_chunk_bytes);
}

imgtool_png_reader *imgtool_png_reader_create_fd(int fd, uint32_t max_width, uint32_t max_height,
                                                 size_t max_chunk_bytes) {
    if (fd < 0) return NULL;
    return reader_create(NULL, 0, fd, max_width, max_height, max_chunk_bytes);
}

imgtool_png_status imgtool_png_reader_read_header(imgtool_png_reader *reader, imgtool_png_header *header) {
    if (reader == NULL || header == NULL || reader->stage != STAGE_NEW) return IMGTOOL_PNG_MISUSE;
    png_structp png = reader->png;
    png_infop info = reader->info;
    if (setjmp(png_jmpbuf(png))) return reader_failure(reader);

    png_read_info(png, info);
    memset(header, 0, sizeof *header);
    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_plte = png_get_valid(png, info, PNG_INFO_PLTE) != 0;
    header->has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    header->has_gama = png_get_valid(png, info, PNG_INFO_gAMA) != 0;
    header->has_srgb = png_get_valid(png, info, PNG_INFO_sRGB) != 0;
    header->has_iccp = png_get_valid(png, info, PNG_INFO_iCCP) != 0;
    reader->height = header->height;
    reader->stage = STAGE_HEADER;
    return IMGTOOL_PNG_OK;
}

imgtool_png_status imgtool_png_reader_start(imgtool_png_reader *reader, int sixteen_bit, imgtool_png_header *header) {
    if (reader == NULL || header == NULL || reader->stage != STAGE_HEADER) return IMGTOOL_PNG_MISUSE;
    png_structp png = reader->png;
    png_infop info = reader->info;
    if (setjmp(png_jmpbuf(png))) return reader_failure(reader);

    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    // Palette to RGB, grey below 8 bits to 8 bits, tRNS to an alpha channel.
    png_set_expand(png);
    if (bit_depth == 16) {
        if (sixteen_bit) {
            const uint16_t probe = 1;
            if (*(const uint8_t *)&probe == 1) png_set_swap(png);  // PNG is big-endian; we want host order.
        } else {
            png_set_scale_16(png);  // (v * 255 + 32895) >> 16: rounds, unlike png_set_strip_16.
        }
    } else if (sixteen_bit) {
        png_set_expand_16(png);
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(png);
    }
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    if (!has_alpha) png_set_add_alpha(png, 0xffff, PNG_FILLER_AFTER);
    reader->passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    header->output_row_bytes = png_get_rowbytes(png, info);
    reader->stage = STAGE_STARTED;
    return IMGTOOL_PNG_OK;
}

imgtool_png_status imgtool_png_reader_read_rows(imgtool_png_reader *reader, uint8_t *dst, size_t stride,
                                                uint32_t row_count) {
    if (reader == NULL || dst == NULL || reader->stage != STAGE_STARTED || reader->passes != 1 ||
        row_count > reader->height - reader->next_row) {
        return IMGTOOL_PNG_MISUSE;
    }
    png_structp png = reader->png;
    if (setjmp(png_jmpbuf(png))) return reader_failure(reader);

    for (uint32_t row = 0; row < row_count; row++) {
        png_read_row(png, dst + (size_t)row * stride, NULL);
    }
    reader->next_row += row_count;
    if (reader->next_row == reader->height) reader->stage = STAGE_ROWS_DONE;
    return IMGTOOL_PNG_OK;
}

imgtool_png_status imgtool_png_reader_read_image(imgtool_png_reader *reader, uint8_t *dst, size_t stride) {
    if (reader == NULL || dst == NULL || reader->stage != STAGE_STARTED || reader->next_row != 0) {
        return IMGTOOL_PNG_MISUSE;
    }
    png_structp png = reader->png;
    if (setjmp(png_jmpbuf(png))) return reader_failure(reader);

    // With interlace handling on, each pass fills in its own pixels of every row.
    for (int pass = 0; pass < reader->passes; pass++) {
        for (uint32_t row = 0; row < reader->height; row++) {
            png_read_row(png, dst + (size_t)row * stride, NULL);
        }
    }
    reader->next_row = reader->height;
    reader->stage = STAGE_ROWS_DONE;
    return IMGTOOL_PNG_OK;
}

imgtool_png_status imgtool_png_reader_finish(imgtool_png_reader *reader) {
    if (reader == NULL || reader->stage != STAGE_ROWS_DONE) return IMGTOOL_PNG_MISUSE;
    png_structp png = reader->png;
    if (setjmp(png_jmpbuf(png))) return reader_failure(reader);

    png_read_end(png, NULL);
    reader->stage = STAGE_FINISHED;
    return IMGTOOL_PNG_OK;
}

const char *imgtool_png_reader_message(const imgtool_png_reader *reader) {
    return reader == NULL ? "" : reader->message;
}

const char *imgtool_png_reader_warnings(const imgtool_png_reader *reader) {
    return reader == NULL ? "" : reader->warnings;
}

void imgtool_png_reader_destroy(imgtool_png_reader *reader) {
    if (reader == NULL) return;
    png_destroy_read_struct(&reader->png, &reader->info, NULL);
    free(reader->buffer);
    free(reader);
}

// MARK: - Writing

static void sink_error(png_structp png, png_const_charp text) {
    imgtool_png_sink *sink = png_get_error_ptr(png);
    if (sink->message[0] == '\0') copy_message(sink->message, sizeof sink->message, text);
    png_longjmp(png, 1);
}

static void sink_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;  // The writer is only given valid parameters; nothing worth keeping is warned.
}

static void sink_write(png_structp png, png_bytep bytes, size_t length) {
    imgtool_png_sink *sink = png_get_io_ptr(png);
    if (sink->fd >= 0) {
        while (length > 0) {
            ssize_t written = write(sink->fd, bytes, length);
            if (written < 0) {
                if (errno == EINTR) continue;
                sink->system_error = errno;
                png_error(png, "write failed");
            }
            bytes += written;
            length -= (size_t)written;
        }
        return;
    }
    if (length > sink->capacity - sink->count) {
        size_t capacity = sink->capacity ? sink->capacity : 65536;
        while (capacity - sink->count < length) {
            if (capacity > SIZE_MAX / 2) png_error(png, "out of memory");
            capacity *= 2;
        }
        uint8_t *grown = realloc(sink->buffer, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        sink->buffer = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->buffer + sink->count, bytes, length);
    sink->count += length;
}

static void sink_flush(png_structp png) { (void)png; }

struct imgtool_png_writer {
    png_structp png;
    png_infop info;
    imgtool_png_sink *sink;
    uint32_t height;
    uint32_t next_row;
    int failed;
};

static imgtool_png_status writer_failure(imgtool_png_writer *writer) {
    writer->failed = 1;
    if (writer->sink->system_error != 0) return IMGTOOL_PNG_WRITE_FAILED;
    return strstr(writer->sink->message, "memory") ? IMGTOOL_PNG_TOO_LARGE : IMGTOOL_PNG_MISUSE;
}

imgtool_png_writer *imgtool_png_writer_create(imgtool_png_sink *sink) {
    if (sink == NULL) return NULL;
    imgtool_png_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) return NULL;
    sink->message[0] = '\0';
    sink->system_error = 0;
    writer->sink = sink;
    writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, sink_error, sink_warning);
    if (writer->png == NULL) {
        free(writer);
        return NULL;
    }
    writer->info = png_create_info_struct(writer->png);
    if (writer->info == NULL) {
        png_destroy_write_struct(&writer->png, NULL);
        free(writer);
        return NULL;
    }
    png_set_write_fn(writer->png, sink, sink_write, sink_flush);
    return writer;
}

imgtool_png_status imgtool_png_writer_begin(imgtool_png_writer *writer, const imgtool_png_write_params *params) {
    if (writer == NULL || params == NULL || writer->failed || writer->height != 0) return IMGTOOL_PNG_MISUSE;
    png_structp png = writer->png;
    png_infop info = writer->info;
    if (setjmp(png_jmpbuf(png))) return writer_failure(writer);

    png_set_IHDR(png, info, params->width, params->height, params->bit_depth, params->color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (params->color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color palette[256];
        int count = params->palette_count;
        if (count < 1 || count > 256 || params->palette_rgb == NULL) png_error(png, "bad palette");
        for (int i = 0; i < count; i++) {
            palette[i].red = params->palette_rgb[3 * i];
            palette[i].green = params->palette_rgb[3 * i + 1];
            palette[i].blue = params->palette_rgb[3 * i + 2];
        }
        png_set_PLTE(png, info, palette, count);
        if (params->palette_alpha_count > 0 && params->palette_alpha != NULL) {
            png_set_tRNS(png, info, params->palette_alpha, params->palette_alpha_count, NULL);
        }
    }
    png_write_info_before_PLTE(png, info);
    // The extra chunks, as records of type, big-endian length and data (see the header).
    size_t at = 0;
    while (params->extra_chunks != NULL && at + 8 <= params->extra_chunks_length) {
        const uint8_t *record = params->extra_chunks + at;
        size_t length = ((size_t)record[4] << 24) | ((size_t)record[5] << 16) | ((size_t)record[6] << 8) | record[7];
        if (length > params->extra_chunks_length - at - 8) png_error(png, "bad extra chunk record");
        png_byte type[5] = {record[0], record[1], record[2], record[3], 0};
        png_write_chunk(png, type, record + 8, length);
        at += 8 + length;
    }
    png_write_info(png, info);
    writer->height = params->height;
    return IMGTOOL_PNG_OK;
}

imgtool_png_status imgtool_png_writer_finish_with_stream(imgtool_png_writer *writer, const uint8_t *stream,
                                                         size_t length, size_t chunk_bytes) {
    if (writer == NULL || writer->failed || writer->height == 0 || writer->next_row != 0 || chunk_bytes == 0 ||
        chunk_bytes > PNG_UINT_31_MAX || (stream == NULL && length > 0)) {
        return IMGTOOL_PNG_MISUSE;
    }
    png_structp png = writer->png;
    if (setjmp(png_jmpbuf(png))) return writer_failure(writer);

    static const png_byte idat[5] = {'I', 'D', 'A', 'T', 0}, iend[5] = {'I', 'E', 'N', 'D', 0};
    for (size_t offset = 0; offset < length;) {
        size_t count = length - offset < chunk_bytes ? length - offset : chunk_bytes;
        png_write_chunk(png, idat, stream + offset, count);
        offset += count;
    }
    png_write_chunk(png, iend, NULL, 0);
    writer->next_row = writer->height;
    return IMGTOOL_PNG_OK;
}

void imgtool_png_writer_destroy(imgtool_png_writer *writer) {
    if (writer == NULL) return;
    png_destroy_write_struct(&writer->png, &writer->info);
    free(writer);
}

void imgtool_png_sink_free(imgtool_png_sink *sink) {
    if (sink == NULL) return;
    free(sink->buffer);
    sink->buffer = NULL;
    sink->count = 0;
    sink->capacity = 0;
}

const char *imgtool_png_version(void) { return PNG_LIBPNG_VER_STRING; }
