// The libjpeg shim. Why it exists: libjpeg reports every error by calling the error manager's
// error_exit, which must not return. Swift cannot call setjmp, and a longjmp through Swift frames
// would skip their cleanup, so each exported function here sets its own setjmp before calling
// libjpeg, and error_exit copies libjpeg's message (format_message) into the reader or writer and
// jumps back to it. Warnings (emit_message at level -1) are collected, never printed. No callback
// into Swift exists: input is a memory buffer (jpeg_mem_src), output a growing memory buffer.

#include "CLibJPEG.h"

#include <CColor.h>

// jpeglib.h needs size_t and FILE declared before it.
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

_Static_assert(sizeof(JSAMPLE) == sizeof(uint8_t), "the shim needs an 8-bit libjpeg");
_Static_assert(JPEG_LIB_VERSION >= 62, "the shim needs the libjpeg 6b API or later");

enum { MESSAGE_CAPACITY = 256, WARNINGS_CAPACITY = 1024, ROWS_PER_CALL = 16 };

// MARK: - Errors

// The part of a reader or writer that libjpeg's error callbacks see; `jpeg_error_mgr` comes first
// so that a `j_common_ptr`'s `err` can be cast back to it.
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    imgtool_jpeg_status failure;
    int truncated;
    long warning_count;
    char message[MESSAGE_CAPACITY];
    char warnings[WARNINGS_CAPACITY];
} shim_errors;

// Copies `text` as the failure message (the first one wins) and jumps to the running function.
static void shim_fail(shim_errors *errors, imgtool_jpeg_status status, const char *text) {
    if (errors->message[0] == '\0') snprintf(errors->message, sizeof errors->message, "%s", text);
    errors->failure = status;
    longjmp(errors->jump, 1);
}

// libjpeg's error_exit: classify, keep the text, jump. It must not return (libjpeg would carry on
// with broken state), and it must not print (the default output_message writes to stderr).
static void shim_error_exit(j_common_ptr cinfo) {
    shim_errors *errors = (shim_errors *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    imgtool_jpeg_status status = IMGTOOL_JPEG_CORRUPT;
    switch (cinfo->err->msg_code) {
        case JERR_OUT_OF_MEMORY:
        case JERR_IMAGE_TOO_BIG:
        case JERR_NO_BACKING_STORE:
        case JERR_WIDTH_OVERFLOW:
            status = IMGTOOL_JPEG_TOO_LARGE;
            break;
        case JERR_BAD_PRECISION:
        case JERR_CONVERSION_NOTIMPL:
        case JERR_NOT_COMPILED:
        case JERR_NOTIMPL:
            status = IMGTOOL_JPEG_UNSUPPORTED;
            break;
        default:
            // The data ran out (libjpeg then sees the EOI that jpeg_mem_src inserts) and something
            // failed because of it: the cause is the cut, not the error that followed.
            if (errors->truncated) status = IMGTOOL_JPEG_TRUNCATED;
            break;
    }
    shim_fail(errors, status, text);
}

// libjpeg's emit_message: level -1 is a warning (corrupt data libjpeg works around), higher
// levels are trace messages. Warnings are counted and the first few distinct ones kept.
static void shim_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    shim_errors *errors = (shim_errors *)cinfo->err;
    cinfo->err->num_warnings++;
    errors->warning_count++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) errors->truncated = 1;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    if (strstr(errors->warnings, text) != NULL) return;
    size_t used = strlen(errors->warnings);
    if (used + strlen(text) + 2 >= sizeof errors->warnings) return;
    snprintf(errors->warnings + used, sizeof errors->warnings - used, "%s%s", used ? "\n" : "", text);
}

static void shim_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void shim_errors_init(shim_errors *errors) {
    jpeg_std_error(&errors->pub);
    errors->pub.error_exit = shim_error_exit;
    errors->pub.emit_message = shim_emit_message;
    errors->pub.output_message = shim_output_message;
}

// MARK: - Reading

typedef enum { STAGE_NEW, STAGE_HEADER, STAGE_STARTED, STAGE_ROWS_DONE, STAGE_FINISHED, STAGE_FAILED } reader_stage;

typedef struct {
    struct jpeg_progress_mgr pub;
    int max_scans;
} shim_progress;

struct imgtool_jpeg_reader {
    struct jpeg_decompress_struct cinfo;
    shim_errors errors;
    shim_progress progress;
    int created;
    int cmyk;
    const imgtool_color_transform *cmyk_transform;
    reader_stage stage;
};

// Called by libjpeg between passes and every few rows of a pass; stops a progressive image
// with more scans than allowed (libjpeg-turbo's djpeg -maxscans, and its fuzzers, do the same).
static void shim_progress_monitor(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    shim_progress *progress = (shim_progress *)cinfo->progress;
    if (progress->max_scans > 0 && dinfo->input_scan_number > progress->max_scans) {
        char text[MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "more than %d scans in a progressive JPEG", progress->max_scans);
        shim_fail((shim_errors *)cinfo->err, IMGTOOL_JPEG_TOO_LARGE, text);
    }
}

static imgtool_jpeg_status reader_failure(imgtool_jpeg_reader *reader) {
    reader->stage = STAGE_FAILED;
    return reader->errors.failure == IMGTOOL_JPEG_OK ? IMGTOOL_JPEG_CORRUPT : reader->errors.failure;
}

imgtool_jpeg_reader *imgtool_jpeg_reader_create(const uint8_t *data, size_t size, size_t max_memory,
                                                int max_scans) {
    if (data == NULL) return NULL;
    imgtool_jpeg_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    shim_errors_init(&reader->errors);
    reader->cinfo.err = &reader->errors.pub;
    if (setjmp(reader->errors.jump)) {
        // jpeg_create_decompress fails only when its first allocation does.
        if (reader->created) jpeg_destroy_decompress(&reader->cinfo);
        free(reader);
        return NULL;
    }
    jpeg_create_decompress(&reader->cinfo);
    reader->created = 1;
    reader->cinfo.mem->max_memory_to_use = (long)(max_memory > (size_t)LONG_MAX ? LONG_MAX : max_memory);
    reader->progress.pub.progress_monitor = shim_progress_monitor;
    reader->progress.max_scans = max_scans;
    reader->cinfo.progress = &reader->progress.pub;
    // A JPEG file of more than 4 GiB is not worth supporting; jpeg_mem_src takes an unsigned long.
    jpeg_mem_src(&reader->cinfo, data, (unsigned long)size);
    return reader;
}

static int marker_starts(const jpeg_saved_marker_ptr marker, const char *prefix, size_t length) {
    return marker->data_length >= length && memcmp(marker->data, prefix, length) == 0;
}

imgtool_jpeg_status imgtool_jpeg_reader_read_header(imgtool_jpeg_reader *reader, imgtool_jpeg_header *header) {
    if (reader == NULL || header == NULL || reader->stage != STAGE_NEW) return IMGTOOL_JPEG_MISUSE;
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    // Marker lengths are 16-bit, so 0xffff keeps any APP1 or APP2 segment whole.
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(cinfo, TRUE);

    memset(header, 0, sizeof *header);
    header->width = cinfo->image_width;
    header->height = cinfo->image_height;
    header->components = cinfo->num_components;
    header->precision = cinfo->data_precision;
    switch (cinfo->jpeg_color_space) {
        case JCS_GRAYSCALE: header->color = IMGTOOL_JPEG_COLOR_GRAY; break;
        case JCS_RGB: header->color = IMGTOOL_JPEG_COLOR_RGB; break;
        case JCS_YCbCr: header->color = IMGTOOL_JPEG_COLOR_YCBCR; break;
        case JCS_CMYK: header->color = IMGTOOL_JPEG_COLOR_CMYK; break;
        case JCS_YCCK: header->color = IMGTOOL_JPEG_COLOR_YCCK; break;
        default: header->color = IMGTOOL_JPEG_COLOR_UNKNOWN; break;
    }
    header->adobe_transform = cinfo->saw_Adobe_marker ? cinfo->Adobe_transform : -1;
    header->has_jfif = cinfo->saw_JFIF_marker;
    header->progressive = cinfo->progressive_mode;
    header->arithmetic = cinfo->arith_code;
    header->restart_interval = cinfo->restart_interval;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker_starts(marker, "Exif\0\0", 6)) header->has_exif = 1;
        if (marker->marker == JPEG_APP0 + 2 && marker_starts(marker, "ICC_PROFILE\0", 12)) header->has_icc = 1;
    }
    header->output_width = cinfo->image_width;
    header->output_height = cinfo->image_height;
    reader->stage = STAGE_HEADER;
    return IMGTOOL_JPEG_OK;
}

const uint8_t *imgtool_jpeg_reader_exif(const imgtool_jpeg_reader *reader, size_t *length) {
    if (length != NULL) *length = 0;
    if (reader == NULL || reader->stage == STAGE_NEW) return NULL;
    for (jpeg_saved_marker_ptr marker = reader->cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker_starts(marker, "Exif\0\0", 6)) {
            if (length != NULL) *length = marker->data_length;
            return marker->data;
        }
    }
    return NULL;
}

const uint8_t *imgtool_jpeg_reader_xmp(const imgtool_jpeg_reader *reader, size_t *length) {
    static const char prefix[] = "http://ns.adobe.com/xap/1.0/";  // then a NUL, then the packet
    if (reader == NULL || reader->stage == STAGE_NEW || reader->stage == STAGE_FAILED) return NULL;
    for (jpeg_saved_marker_ptr marker = reader->cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker_starts(marker, prefix, sizeof prefix)) {
            if (length != NULL) *length = marker->data_length - sizeof prefix;
            return marker->data + sizeof prefix;
        }
    }
    return NULL;
}

size_t imgtool_jpeg_reader_icc_length(const imgtool_jpeg_reader *reader, int *complete) {
    // The profile is split over APP2 segments, each "ICC_PROFILE\0", its 1-based number and the
    // count, then its share. Every number 1...count must appear once, with one count throughout.
    enum { HEADER = 14 };
    *complete = 0;
    if (reader == NULL || reader->stage == STAGE_NEW || reader->stage == STAGE_FAILED) return 0;
    int count = -1;
    unsigned char seen[256] = {0};
    size_t total = 0;
    for (jpeg_saved_marker_ptr marker = reader->cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 2 || !marker_starts(marker, "ICC_PROFILE\0", 12)) continue;
        if (marker->data_length < HEADER) return 0;
        int number = marker->data[12], of = marker->data[13];
        if (count == -1) count = of;
        if (of != count || number == 0 || number > count || seen[number]) return 0;
        seen[number] = 1;
        total += marker->data_length - HEADER;
    }
    if (count <= 0) return 0;
    for (int i = 1; i <= count; i++) {
        if (!seen[i]) return total;
    }
    *complete = 1;
    return total;
}

int imgtool_jpeg_reader_icc_copy(const imgtool_jpeg_reader *reader, uint8_t *out, size_t length) {
    enum { HEADER = 14 };
    int complete = 0;
    if (imgtool_jpeg_reader_icc_length(reader, &complete) != length || !complete) return 0;
    size_t offset = 0;
    for (int number = 1; number <= 255 && offset < length; number++) {
        for (jpeg_saved_marker_ptr marker = reader->cinfo.marker_list; marker != NULL; marker = marker->next) {
            if (marker->marker != JPEG_APP0 + 2 || !marker_starts(marker, "ICC_PROFILE\0", 12)) continue;
            if (marker->data[12] != number) continue;
            size_t part = marker->data_length - HEADER;
            memcpy(out + offset, marker->data + HEADER, part);
            offset += part;
            break;
        }
    }
    return offset == length;
}

void imgtool_jpeg_reader_set_cmyk_transform(imgtool_jpeg_reader *reader, const imgtool_color_transform *transform) {
    if (reader != NULL) reader->cmyk_transform = transform;
}

imgtool_jpeg_status imgtool_jpeg_reader_start(imgtool_jpeg_reader *reader, int scale_denom,
                                              imgtool_jpeg_header *header) {
    if (reader == NULL || header == NULL || reader->stage != STAGE_HEADER) return IMGTOOL_JPEG_MISUSE;
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) return IMGTOOL_JPEG_MISUSE;
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    switch (cinfo->jpeg_color_space) {
        case JCS_GRAYSCALE:  // libjpeg-turbo expands grey to RGBA itself (gray_rgb_convert)
        case JCS_RGB:
        case JCS_YCbCr:
            cinfo->out_color_space = JCS_EXT_RGBA;
            break;
        case JCS_CMYK:
        case JCS_YCCK:  // libjpeg turns YCCK into CMYK
            cinfo->out_color_space = JCS_CMYK;
            reader->cmyk = 1;
            break;
        default:
            shim_fail(&reader->errors, IMGTOOL_JPEG_UNSUPPORTED, "unsupported JPEG colour space");
    }
    // libjpeg's defaults are kept on purpose: the accurate integer IDCT (JDCT_ISLOW), fancy
    // upsampling, no quantisation; djpeg decodes the same way.
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denom;
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != 4) {
        shim_fail(&reader->errors, IMGTOOL_JPEG_UNSUPPORTED, "libjpeg did not produce four components a pixel");
    }
    header->output_width = cinfo->output_width;
    header->output_height = cinfo->output_height;
    reader->stage = STAGE_STARTED;
    return IMGTOOL_JPEG_OK;
}

// Adobe CMYK as stored (inverted) to RGBA in place, as libjpeg-turbo's cmyk_to_rgb:
// R = C x K / 255 rounded; (c * k + 127) / 255 is that rounding for integers.
static void cmyk_to_rgba(uint8_t *row, JDIMENSION width) {
    for (JDIMENSION x = 0; x < width; x++) {
        uint8_t *pixel = row + (size_t)x * 4;
        unsigned int k = pixel[3];
        pixel[0] = (uint8_t)((pixel[0] * k + 127) / 255);
        pixel[1] = (uint8_t)((pixel[1] * k + 127) / 255);
        pixel[2] = (uint8_t)((pixel[2] * k + 127) / 255);
        pixel[3] = 255;
    }
}

imgtool_jpeg_status imgtool_jpeg_reader_crop_columns(imgtool_jpeg_reader *reader, uint32_t *x, uint32_t *width) {
    if (reader == NULL || x == NULL || width == NULL || reader->stage != STAGE_STARTED ||
        reader->cinfo.output_scanline != 0 || *width == 0 || *x > reader->cinfo.output_width ||
        *width > reader->cinfo.output_width - *x) {
        return IMGTOOL_JPEG_MISUSE;
    }
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    JDIMENSION xoffset = *x, cropped = *width;
    jpeg_crop_scanline(cinfo, &xoffset, &cropped);
    *x = xoffset;
    *width = cropped;
    return reader->errors.truncated ? IMGTOOL_JPEG_TRUNCATED : IMGTOOL_JPEG_OK;
}

imgtool_jpeg_status imgtool_jpeg_reader_read_rows(imgtool_jpeg_reader *reader, uint8_t *dst, ptrdiff_t stride,
                                                  uint32_t row_count) {
    if (reader == NULL || dst == NULL || reader->stage != STAGE_STARTED ||
        row_count > reader->cinfo.output_height - reader->cinfo.output_scanline) {
        return IMGTOOL_JPEG_MISUSE;
    }
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    uint32_t done = 0;
    while (done < row_count) {
        JSAMPROW rows[ROWS_PER_CALL];
        uint32_t ask = row_count - done < ROWS_PER_CALL ? row_count - done : ROWS_PER_CALL;
        for (uint32_t i = 0; i < ask; i++) rows[i] = dst + (ptrdiff_t)(done + i) * stride;
        JDIMENSION got = jpeg_read_scanlines(cinfo, rows, ask);
        if (got == 0) shim_fail(&reader->errors, IMGTOOL_JPEG_CORRUPT, "libjpeg returned no rows");
        if (reader->cmyk && reader->cmyk_transform != NULL) {
            for (JDIMENSION i = 0; i < got; i++) {
                imgtool_color_transform_cmyk_rows(reader->cmyk_transform, rows[i], cinfo->output_width);
            }
        } else if (reader->cmyk) {
            for (JDIMENSION i = 0; i < got; i++) cmyk_to_rgba(rows[i], cinfo->output_width);
        }
        done += got;
    }
    if (cinfo->output_scanline == cinfo->output_height) reader->stage = STAGE_ROWS_DONE;
    return reader->errors.truncated ? IMGTOOL_JPEG_TRUNCATED : IMGTOOL_JPEG_OK;
}

imgtool_jpeg_status imgtool_jpeg_reader_skip_rows(imgtool_jpeg_reader *reader, uint32_t row_count) {
    if (reader == NULL || reader->stage != STAGE_STARTED ||
        row_count > reader->cinfo.output_height - reader->cinfo.output_scanline) {
        return IMGTOOL_JPEG_MISUSE;
    }
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    JDIMENSION skipped = jpeg_skip_scanlines(cinfo, row_count);
    if (skipped != row_count) shim_fail(&reader->errors, IMGTOOL_JPEG_CORRUPT, "libjpeg skipped fewer rows than asked");
    if (cinfo->output_scanline == cinfo->output_height) reader->stage = STAGE_ROWS_DONE;
    return reader->errors.truncated ? IMGTOOL_JPEG_TRUNCATED : IMGTOOL_JPEG_OK;
}

// MARK: - Reading planes

imgtool_jpeg_status imgtool_jpeg_reader_start_planes(imgtool_jpeg_reader *reader, imgtool_jpeg_planes *planes) {
    if (reader == NULL || planes == NULL || reader->stage != STAGE_HEADER) return IMGTOOL_JPEG_MISUSE;
    j_decompress_ptr cinfo = &reader->cinfo;
    // Only YCbCr whose chroma is 4:4:4, 4:2:2 or 4:2:0 of the luma; anything else is left to
    // imgtool_jpeg_reader_start, and the reader stays as it was.
    if (cinfo->jpeg_color_space != JCS_YCbCr || cinfo->num_components != 3) return IMGTOOL_JPEG_UNSUPPORTED;
    const jpeg_component_info *luma = &cinfo->comp_info[0];
    for (int ci = 1; ci < 3; ci++) {
        if (cinfo->comp_info[ci].h_samp_factor != 1 || cinfo->comp_info[ci].v_samp_factor != 1) {
            return IMGTOOL_JPEG_UNSUPPORTED;
        }
    }
    int h = luma->h_samp_factor, v = luma->v_samp_factor;
    if (!((h == 1 && v == 1) || (h == 2 && v == 1) || (h == 2 && v == 2))) return IMGTOOL_JPEG_UNSUPPORTED;
    if ((cinfo->image_width + (JDIMENSION)h - 1) / (JDIMENSION)h < 3) return IMGTOOL_JPEG_UNSUPPORTED;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    cinfo->out_color_space = JCS_YCbCr;
    cinfo->raw_data_out = TRUE;
    cinfo->scale_num = 1;
    cinfo->scale_denom = 1;
    jpeg_start_decompress(cinfo);
    const jpeg_component_info *chroma = &cinfo->comp_info[1];
    if (luma->DCT_scaled_size != DCTSIZE || chroma->DCT_scaled_size != DCTSIZE) {
        shim_fail(&reader->errors, IMGTOOL_JPEG_UNSUPPORTED, "the planes are not at the stored size");
    }
    planes->width = cinfo->output_width;
    planes->height = cinfo->output_height;
    planes->luma_h = h;
    planes->luma_v = v;
    // Whole MCUs wide: libjpeg writes no block past width_in_blocks, but its manual asks for
    // rows that hold whole MCUs.
    planes->luma_stride = ((size_t)luma->width_in_blocks + (size_t)h - 1) / (size_t)h * (size_t)h * DCTSIZE;
    planes->chroma_width = chroma->downsampled_width;
    planes->chroma_height = chroma->downsampled_height;
    planes->chroma_stride = (size_t)chroma->width_in_blocks * DCTSIZE;
    planes->group_rows = (uint32_t)v * DCTSIZE;
    reader->stage = STAGE_STARTED;
    return IMGTOOL_JPEG_OK;
}

imgtool_jpeg_status imgtool_jpeg_reader_read_planes(imgtool_jpeg_reader *reader, uint8_t *const *luma_rows,
                                                    uint8_t *const *cb_rows, uint8_t *const *cr_rows) {
    if (reader == NULL || reader->stage != STAGE_STARTED || !reader->cinfo.raw_data_out) return IMGTOOL_JPEG_MISUSE;
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    JSAMPARRAY data[3] = {(JSAMPARRAY)luma_rows, (JSAMPARRAY)cb_rows, (JSAMPARRAY)cr_rows};
    JDIMENSION lines = (JDIMENSION)cinfo->max_v_samp_factor * DCTSIZE;
    if (jpeg_read_raw_data(cinfo, data, lines) == 0) {
        shim_fail(&reader->errors, IMGTOOL_JPEG_CORRUPT, "libjpeg returned no rows");
    }
    if (cinfo->output_scanline >= cinfo->output_height) reader->stage = STAGE_ROWS_DONE;
    return reader->errors.truncated ? IMGTOOL_JPEG_TRUNCATED : IMGTOOL_JPEG_OK;
}

imgtool_jpeg_status imgtool_jpeg_reader_finish(imgtool_jpeg_reader *reader) {
    if (reader == NULL || reader->stage != STAGE_ROWS_DONE) return IMGTOOL_JPEG_MISUSE;
    j_decompress_ptr cinfo = &reader->cinfo;
    if (setjmp(reader->errors.jump)) return reader_failure(reader);

    jpeg_finish_decompress(cinfo);
    reader->stage = STAGE_FINISHED;
    return reader->errors.truncated ? IMGTOOL_JPEG_TRUNCATED : IMGTOOL_JPEG_OK;
}

const char *imgtool_jpeg_reader_message(const imgtool_jpeg_reader *reader) {
    return reader == NULL ? "" : reader->errors.message;
}

const char *imgtool_jpeg_reader_warnings(const imgtool_jpeg_reader *reader) {
    return reader == NULL ? "" : reader->errors.warnings;
}

long imgtool_jpeg_reader_warning_count(const imgtool_jpeg_reader *reader) {
    return reader == NULL ? 0 : reader->errors.warning_count;
}

void imgtool_jpeg_reader_destroy(imgtool_jpeg_reader *reader) {
    if (reader == NULL) return;
    // jpeg_destroy_decompress cannot fail: it only frees.
    jpeg_destroy_decompress(&reader->cinfo);
    free(reader);
}

// MARK: - Whole-image arrays

// libjpeg keeps a whole image's DCT coefficients in "virtual arrays" when it needs two passes,
// as the encoder does for optimize_coding (statistics first, Huffman codes second): 96 MiB for a
// 4096x4096 4:4:4 image, which malloc takes fresh from mmap and the kernel maps one 4 KiB page
// fault at a time as the first pass writes it (24,000 faults, a fifth of the encoder's time).
// libjpeg's memory manager is reached only through the function pointers of `cinfo->mem`, so
// the shim wraps two of them: request_virt_barray records each array's handle and size, and
// realize_virt_arrays, once libjpeg has allocated them and before anything is written, finds
// where each one's rows start (row 0, through access_virt_barray, the access libjpeg makes next
// anyway). The rows of an array are one allocation below libjpeg's MAX_ALLOC_CHUNK (1e9 bytes),
// as every array within imgtool's limits is. The caller may then have the pages mapped ahead
// of libjpeg (madvise MADV_POPULATE_WRITE on another thread), which changes no byte.

typedef struct {
    jvirt_barray_ptr (*request)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize)(j_common_ptr);
    jvirt_barray_ptr arrays[IMGTOOL_JPEG_MAX_ARRAYS];
    size_t bytes[IMGTOOL_JPEG_MAX_ARRAYS];
    int count;
    imgtool_jpeg_memory found[IMGTOOL_JPEG_MAX_ARRAYS];
    int found_count;
} shim_arrays;

static jvirt_barray_ptr arrays_request(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                       JDIMENSION rows, JDIMENSION max_access) {
    shim_arrays *arrays = (shim_arrays *)cinfo->client_data;
    jvirt_barray_ptr array = arrays->request(cinfo, pool_id, pre_zero, blocks_per_row, rows, max_access);
    if (arrays->count < IMGTOOL_JPEG_MAX_ARRAYS) {
        arrays->arrays[arrays->count] = array;
        arrays->bytes[arrays->count] = (size_t)blocks_per_row * rows * sizeof(JBLOCK);
        arrays->count++;
    }
    return array;
}

static void arrays_realize(j_common_ptr cinfo) {
    shim_arrays *arrays = (shim_arrays *)cinfo->client_data;
    arrays->realize(cinfo);
    for (int i = 0; i < arrays->count && arrays->found_count < IMGTOOL_JPEG_MAX_ARRAYS; i++) {
        JBLOCKARRAY rows = cinfo->mem->access_virt_barray(cinfo, arrays->arrays[i], 0, 1, TRUE);
        arrays->found[arrays->found_count].start = (uint8_t *)rows[0];
        arrays->found[arrays->found_count].length = arrays->bytes[i];
        arrays->found_count++;
    }
}

// Installs the wrappers; `arrays` lives as long as `cinfo` (both are in the writer).
static void arrays_install(j_common_ptr cinfo, shim_arrays *arrays) {
    arrays->request = cinfo->mem->request_virt_barray;
    arrays->realize = cinfo->mem->realize_virt_arrays;
    cinfo->client_data = arrays;
    cinfo->mem->request_virt_barray = arrays_request;
    cinfo->mem->realize_virt_arrays = arrays_realize;
}

// MARK: - Writing

// A destination manager over a growing buffer: libjpeg fills buffer[count..<capacity]; when it is
// full, empty_output_buffer grows it. The caller takes buffer[0..<pending] between calls.
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    shim_errors *errors;
} shim_destination;

struct imgtool_jpeg_writer {
    struct jpeg_compress_struct cinfo;
    shim_errors errors;
    shim_destination destination;
    shim_arrays arrays;
    int created;
    int begun;
    int failed;
};

static size_t destination_count(const shim_destination *destination) {
    return destination->capacity - destination->pub.free_in_buffer;
}

static void destination_init(j_compress_ptr cinfo) { (void)cinfo; }

static boolean destination_empty(j_compress_ptr cinfo) {
    shim_destination *destination = (shim_destination *)cinfo->dest;
    // libjpeg calls this only with the whole buffer full, whatever free_in_buffer says.
    size_t count = destination->capacity;
    size_t capacity = destination->capacity * 2;
    uint8_t *grown = capacity > destination->capacity ? realloc(destination->buffer, capacity) : NULL;
    if (grown == NULL) shim_fail(destination->errors, IMGTOOL_JPEG_TOO_LARGE, "out of memory");
    destination->buffer = grown;
    destination->capacity = capacity;
    destination->pub.next_output_byte = grown + count;
    destination->pub.free_in_buffer = capacity - count;
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) { (void)cinfo; }

static imgtool_jpeg_status writer_failure(imgtool_jpeg_writer *writer) {
    writer->failed = 1;
    return writer->errors.failure == IMGTOOL_JPEG_OK ? IMGTOOL_JPEG_MISUSE : writer->errors.failure;
}

imgtool_jpeg_writer *imgtool_jpeg_writer_create(void) {
    imgtool_jpeg_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) return NULL;
    writer->destination.capacity = 64 * 1024;
    writer->destination.buffer = malloc(writer->destination.capacity);
    if (writer->destination.buffer == NULL) {
        free(writer);
        return NULL;
    }
    shim_errors_init(&writer->errors);
    writer->cinfo.err = &writer->errors.pub;
    if (setjmp(writer->errors.jump)) {
        if (writer->created) jpeg_destroy_compress(&writer->cinfo);
        free(writer->destination.buffer);
        free(writer);
        return NULL;
    }
    jpeg_create_compress(&writer->cinfo);
    writer->created = 1;
    arrays_install((j_common_ptr)&writer->cinfo, &writer->arrays);
    writer->destination.errors = &writer->errors;
    writer->destination.pub.init_destination = destination_init;
    writer->destination.pub.empty_output_buffer = destination_empty;
    writer->destination.pub.term_destination = destination_term;
    writer->destination.pub.next_output_byte = writer->destination.buffer;
    writer->destination.pub.free_in_buffer = writer->destination.capacity;
    writer->cinfo.dest = &writer->destination.pub;
    return writer;
}

imgtool_jpeg_status imgtool_jpeg_writer_begin(imgtool_jpeg_writer *writer, const imgtool_jpeg_write_params *params) {
    if (writer == NULL || params == NULL || writer->failed || writer->begun || params->width == 0 ||
        params->height == 0 || params->quality < 1 || params->quality > 100 || params->subsample < 0 ||
        params->subsample > 2) {
        return IMGTOOL_JPEG_MISUSE;
    }
    j_compress_ptr cinfo = &writer->cinfo;
    if (setjmp(writer->errors.jump)) return writer_failure(writer);

    cinfo->image_width = params->width;
    cinfo->image_height = params->height;
    cinfo->input_components = 4;
    cinfo->in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(cinfo);  // YCbCr, JFIF marker, islow DCT
    jpeg_set_quality(cinfo, params->quality, TRUE);
    cinfo->optimize_coding = params->optimize ? TRUE : FALSE;
    // Luma is never subsampled; chroma is halved both ways (4:2:0, luma 2x2), across (4:2:2,
    // luma 2x1) or kept (4:4:4, 1x1).
    cinfo->comp_info[0].h_samp_factor = params->subsample ? 2 : 1;
    cinfo->comp_info[0].v_samp_factor = params->subsample == 1 ? 2 : 1;
    cinfo->comp_info[1].h_samp_factor = 1;
    cinfo->comp_info[1].v_samp_factor = 1;
    cinfo->comp_info[2].h_samp_factor = 1;
    cinfo->comp_info[2].v_samp_factor = 1;
    if (params->progressive) jpeg_simple_progression(cinfo);
    if (params->arithmetic) {
        cinfo->arith_code = TRUE;
        cinfo->optimize_coding = FALSE;  // Huffman-only; arithmetic coding adapts by itself
    }
    cinfo->restart_interval = params->restart_interval;
    jpeg_start_compress(cinfo, TRUE);
    writer->begun = 1;
    return IMGTOOL_JPEG_OK;
}

int imgtool_jpeg_writer_arrays(const imgtool_jpeg_writer *writer, imgtool_jpeg_memory *arrays) {
    if (writer == NULL || arrays == NULL || !writer->begun) return 0;
    memcpy(arrays, writer->arrays.found, sizeof(imgtool_jpeg_memory) * (size_t)writer->arrays.found_count);
    return writer->arrays.found_count;
}

imgtool_jpeg_status imgtool_jpeg_writer_write_rows(imgtool_jpeg_writer *writer, const uint8_t *rows, size_t stride,
                                                   uint32_t row_count) {
    if (writer == NULL || rows == NULL || writer->failed || !writer->begun ||
        row_count > writer->cinfo.image_height - writer->cinfo.next_scanline) {
        return IMGTOOL_JPEG_MISUSE;
    }
    j_compress_ptr cinfo = &writer->cinfo;
    if (setjmp(writer->errors.jump)) return writer_failure(writer);

    uint32_t done = 0;
    while (done < row_count) {
        JSAMPROW pointers[ROWS_PER_CALL];
        uint32_t ask = row_count - done < ROWS_PER_CALL ? row_count - done : ROWS_PER_CALL;
        // libjpeg never writes through the row pointers it is given.
        for (uint32_t i = 0; i < ask; i++) pointers[i] = (JSAMPROW)(uintptr_t)(rows + (size_t)(done + i) * stride);
        JDIMENSION wrote = jpeg_write_scanlines(cinfo, pointers, ask);
        if (wrote == 0) shim_fail(&writer->errors, IMGTOOL_JPEG_MISUSE, "libjpeg took no rows");
        done += wrote;
    }
    return IMGTOOL_JPEG_OK;
}

imgtool_jpeg_status imgtool_jpeg_writer_finish(imgtool_jpeg_writer *writer) {
    if (writer == NULL || writer->failed || !writer->begun || writer->cinfo.next_scanline != writer->cinfo.image_height) {
        return IMGTOOL_JPEG_MISUSE;
    }
    j_compress_ptr cinfo = &writer->cinfo;
    if (setjmp(writer->errors.jump)) return writer_failure(writer);

    jpeg_finish_compress(cinfo);
    return IMGTOOL_JPEG_OK;
}

const uint8_t *imgtool_jpeg_writer_output(imgtool_jpeg_writer *writer, size_t *length) {
    if (writer == NULL) {
        if (length != NULL) *length = 0;
        return NULL;
    }
    shim_destination *destination = &writer->destination;
    size_t count = destination_count(destination);
    if (length != NULL) *length = count;
    // The bytes stay where they are until the next call into the writer, which starts over at
    // the beginning of the buffer.
    destination->pub.next_output_byte = destination->buffer;
    destination->pub.free_in_buffer = destination->capacity;
    return destination->buffer;
}

const char *imgtool_jpeg_writer_message(const imgtool_jpeg_writer *writer) {
    return writer == NULL ? "" : writer->errors.message;
}

void imgtool_jpeg_writer_destroy(imgtool_jpeg_writer *writer) {
    if (writer == NULL) return;
    jpeg_destroy_compress(&writer->cinfo);
    free(writer->destination.buffer);
    free(writer);
}

long imgtool_jpeg_version(void) {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
    return LIBJPEG_TURBO_VERSION_NUMBER;
#else
    return 0;
#endif
}
