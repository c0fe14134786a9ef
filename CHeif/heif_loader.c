// libheif through dlopen: see include/CHeif.h.
//
// The declarations below follow libheif 1.x's public header (heif.h), whose ABI the soname
// libheif.so.1 keeps: contexts, handles and images are opaque, enums are ints, and struct
// heif_error is returned by value.
#include "CHeif.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct heif_context;
struct heif_image_handle;
struct heif_image;
struct heif_decoding_options;
struct heif_reading_options;
typedef uint32_t heif_item_id;

struct heif_error {
    int code;
    int subcode;
    const char *message;
};

enum {
    heif_colorspace_undefined = 99,
    heif_colorspace_monochrome = 2,
    heif_chroma_undefined = 99,
    heif_chroma_monochrome = 0,
    heif_chroma_444 = 3,
    heif_channel_Y = 0,
    heif_channel_R = 3,
    heif_channel_G = 4,
    heif_channel_B = 5,
    heif_channel_Alpha = 6,
    heif_colorspace_RGB = 1,
    heif_chroma_interleaved_RGBA = 11,
    heif_chroma_interleaved_RRGGBBAA_LE = 15,
    heif_channel_interleaved = 10,
    heif_compression_HEVC = 1,
    heif_error_Memory_allocation_error = 6,
    heif_error_Usage_error = 5,
};

#define HEIF_FUNCTIONS(X)                                                                                     \
    X(heif_get_version, const char *, (void))                                                                 \
    X(heif_have_decoder_for_format, int, (int format))                                                        \
    X(heif_context_alloc, struct heif_context *, (void))                                                      \
    X(heif_context_free, void, (struct heif_context *))                                                       \
    X(heif_context_set_maximum_image_size_limit, void, (struct heif_context *, int))                          \
    X(heif_context_read_from_memory_without_copy, struct heif_error,                                         \
      (struct heif_context *, const void *, size_t, const struct heif_reading_options *))                    \
    X(heif_context_get_primary_image_handle, struct heif_error,                                              \
      (struct heif_context *, struct heif_image_handle **))                                                  \
    X(heif_image_handle_release, void, (const struct heif_image_handle *))                                    \
    X(heif_image_handle_get_width, int, (const struct heif_image_handle *))                                    \
    X(heif_image_handle_get_height, int, (const struct heif_image_handle *))                                  \
    X(heif_image_handle_has_alpha_channel, int, (const struct heif_image_handle *))                           \
    X(heif_image_handle_is_premultiplied_alpha, int, (const struct heif_image_handle *))                      \
    X(heif_image_handle_get_luma_bits_per_pixel, int, (const struct heif_image_handle *))                     \
    X(heif_image_handle_get_ispe_width, int, (const struct heif_image_handle *))                              \
    X(heif_image_handle_get_ispe_height, int, (const struct heif_image_handle *))                             \
    X(heif_image_handle_get_raw_color_profile_size, size_t, (const struct heif_image_handle *))               \
    X(heif_image_handle_get_raw_color_profile, struct heif_error, (const struct heif_image_handle *, void *)) \
    X(heif_image_handle_get_list_of_metadata_block_IDs, int,                                                  \
      (const struct heif_image_handle *, const char *, heif_item_id *, int))                                  \
    X(heif_image_handle_get_metadata_size, size_t, (const struct heif_image_handle *, heif_item_id))          \
    X(heif_image_handle_get_metadata_content_type, const char *,                                              \
      (const struct heif_image_handle *, heif_item_id))                                                       \
    X(heif_image_handle_get_metadata, struct heif_error,                                                      \
      (const struct heif_image_handle *, heif_item_id, void *))                                               \
    X(heif_decode_image, struct heif_error,                                                                   \
      (const struct heif_image_handle *, struct heif_image **, int, int,                                      \
       const struct heif_decoding_options *))                                                                 \
    X(heif_image_get_width, int, (const struct heif_image *, int))                                            \
    X(heif_image_get_height, int, (const struct heif_image *, int))                                           \
    X(heif_image_get_bits_per_pixel_range, int, (const struct heif_image *, int))                             \
    X(heif_image_get_plane_readonly, const uint8_t *, (const struct heif_image *, int, int *))               \
    X(heif_image_get_colorspace, int, (const struct heif_image *))                                            \
    X(heif_image_get_chroma_format, int, (const struct heif_image *))                                         \
    X(heif_image_has_channel, int, (const struct heif_image *, int))                                          \
    X(heif_image_release, void, (const struct heif_image *))

#define DECLARE(name, result, parameters) static result(*p_##name) parameters;
HEIF_FUNCTIONS(DECLARE)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static const char *load_error = "libheif is not loaded";

static void load(void) {
    // IMGTOOL_LIBHEIF names another file to load instead (tests use it to see the message a
    // machine without libheif gives).
    const char *path = getenv("IMGTOOL_LIBHEIF");
    void *library = dlopen(path && *path ? path : "libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_error = "libheif.so.1 is not installed (on Debian or Ubuntu: apt-get install libheif1)";
        return;
    }
#define RESOLVE(name, result, parameters)                                            \
    *(void **)(&p_##name) = dlsym(library, #name);                                 \
    if (!p_##name) {                                                               \
        load_error = "libheif.so.1 lacks " #name " (imgtool needs libheif 1.14 or later)"; \
        return;                                                                    \
    }
    HEIF_FUNCTIONS(RESOLVE)
    loaded = 1;
}

int imgtool_heif_load(const char **error) {
    pthread_once(&once, load);
    if (!loaded && error) *error = load_error;
    return loaded;
}

const char *imgtool_heif_version(void) { return loaded ? p_heif_get_version() : NULL; }

int imgtool_heif_has_hevc_decoder(void) { return loaded && p_heif_have_decoder_for_format(heif_compression_HEVC); }

struct imgtool_heif {
    struct heif_context *context;
    struct heif_image_handle *handle;
};

static void fill(imgtool_heif_error *error, struct heif_error from) {
    if (!error) return;
    error->code = from.code;
    error->subcode = from.subcode;
    strncpy(error->message, from.message ? from.message : "", sizeof error->message - 1);
    error->message[sizeof error->message - 1] = 0;
}

static void fill_text(imgtool_heif_error *error, int code, const char *message) {
    struct heif_error made = {code, 0, message};
    fill(error, made);
}

imgtool_heif *imgtool_heif_open(const uint8_t *data, size_t size, int max_side, imgtool_heif_error *error) {
    const char *why = NULL;
    if (!imgtool_heif_load(&why)) {
        fill_text(error, heif_error_Usage_error, why);
        return NULL;
    }
    imgtool_heif *heif = calloc(1, sizeof *heif);
    if (!heif) {
        fill_text(error, heif_error_Memory_allocation_error, "out of memory");
        return NULL;
    }
    heif->context = p_heif_context_alloc();
    if (!heif->context) {
        free(heif);
        fill_text(error, heif_error_Memory_allocation_error, "out of memory");
        return NULL;
    }
    if (max_side > 0) p_heif_context_set_maximum_image_size_limit(heif->context, max_side);
    struct heif_error result = p_heif_context_read_from_memory_without_copy(heif->context, data, size, NULL);
    if (result.code == 0) result = p_heif_context_get_primary_image_handle(heif->context, &heif->handle);
    if (result.code != 0) {
        fill(error, result);
        imgtool_heif_close(heif);
        return NULL;
    }
    return heif;
}

void imgtool_heif_close(imgtool_heif *heif) {
    if (!heif) return;
    if (heif->handle) p_heif_image_handle_release(heif->handle);
    if (heif->context) p_heif_context_free(heif->context);
    free(heif);
}

void imgtool_heif_info(const imgtool_heif *heif, int *width, int *height, int *bits, int *has_alpha) {
    *width = p_heif_image_handle_get_width(heif->handle);
    *height = p_heif_image_handle_get_height(heif->handle);
    *bits = p_heif_image_handle_get_luma_bits_per_pixel(heif->handle);
    *has_alpha = p_heif_image_handle_has_alpha_channel(heif->handle);
}

size_t imgtool_heif_icc(const imgtool_heif *heif, uint8_t *out, size_t capacity) {
    size_t size = p_heif_image_handle_get_raw_color_profile_size(heif->handle);
    if (size == 0 || !out || size > capacity) return size;
    struct heif_error result = p_heif_image_handle_get_raw_color_profile(heif->handle, out);
    return result.code == 0 ? size : 0;
}

void imgtool_heif_stored_size(const imgtool_heif *heif, int *width, int *height) {
    *width = p_heif_image_handle_get_ispe_width(heif->handle);
    *height = p_heif_image_handle_get_ispe_height(heif->handle);
}

// Copies the metadata item `id` into `out` when it fits `capacity`; returns its size (0: none).
static size_t copy_metadata(const imgtool_heif *heif, heif_item_id id, uint8_t *out, size_t capacity) {
    size_t size = p_heif_image_handle_get_metadata_size(heif->handle, id);
    if (size == 0 || !out || size > capacity) return size;
    struct heif_error result = p_heif_image_handle_get_metadata(heif->handle, id, out);
    return result.code == 0 ? size : 0;
}

size_t imgtool_heif_exif(const imgtool_heif *heif, uint8_t *out, size_t capacity) {
    heif_item_id id;
    if (p_heif_image_handle_get_list_of_metadata_block_IDs(heif->handle, "Exif", &id, 1) < 1) return 0;
    return copy_metadata(heif, id, out, capacity);
}

size_t imgtool_heif_xmp(const imgtool_heif *heif, uint8_t *out, size_t capacity) {
    // XMP is a `mime` item whose content type is application/rdf+xml; the first one is taken.
    heif_item_id ids[16];
    int count = p_heif_image_handle_get_list_of_metadata_block_IDs(heif->handle, "mime", ids, 16);
    for (int index = 0; index < count && index < 16; index++) {
        const char *type = p_heif_image_handle_get_metadata_content_type(heif->handle, ids[index]);
        if (type && strcmp(type, "application/rdf+xml") == 0) return copy_metadata(heif, ids[index], out, capacity);
    }
    return 0;
}

// The 8-bit image libheif decoded, transforms applied, interleaved into RGBA in `out` as libheif
// 1.15's last conversion step would (Op_RGB_to_RGB24_32, Op_mono_to_RGB24_32: samples copied,
// grey to R, G and B, alpha from its plane or 255). libheif 1.15 hands a coded image over already
// turned into planar RGB (or grey), so this is all that is left to do. Returns 0, writing
// nothing, for anything else (libheif converts those itself).
static int interleave_planes(const struct heif_image *image, uint8_t *out, int width, int height) {
    int colorspace = p_heif_image_get_colorspace(image), chroma = p_heif_image_get_chroma_format(image);
    int grey = colorspace == heif_colorspace_monochrome && chroma == heif_chroma_monochrome;
    if (!grey && !(colorspace == heif_colorspace_RGB && chroma == heif_chroma_444)) return 0;
    int alpha = p_heif_image_has_channel(image, heif_channel_Alpha);
    int channels[4] = {heif_channel_R, heif_channel_G, heif_channel_B, heif_channel_Alpha};
    if (grey) channels[0] = channels[1] = channels[2] = heif_channel_Y;
    const uint8_t *planes[4] = {0};
    int strides[4] = {0};
    for (int c = 0; c < (alpha ? 4 : 3); c++) {
        if (p_heif_image_get_bits_per_pixel_range(image, channels[c]) != 8 ||
            p_heif_image_get_width(image, channels[c]) != width ||
            p_heif_image_get_height(image, channels[c]) != height) {
            return 0;
        }
        planes[c] = p_heif_image_get_plane_readonly(image, channels[c], &strides[c]);
        if (!planes[c]) return 0;
    }
    for (int y = 0; y < height; y++) {
        const uint8_t *r = planes[0] + (size_t)y * (size_t)strides[0];
        const uint8_t *g = planes[1] + (size_t)y * (size_t)strides[1];
        const uint8_t *b = planes[2] + (size_t)y * (size_t)strides[2];
        const uint8_t *a = alpha ? planes[3] + (size_t)y * (size_t)strides[3] : NULL;
        uint32_t *row = (uint32_t *)(void *)((uint8_t *)out + (size_t)y * (size_t)width * 4);
        if (a) {
            for (int x = 0; x < width; x++) row[x] = r[x] | (uint32_t)g[x] << 8 | (uint32_t)b[x] << 16 | (uint32_t)a[x] << 24;
        } else {
            for (int x = 0; x < width; x++) row[x] = r[x] | (uint32_t)g[x] << 8 | (uint32_t)b[x] << 16 | 0xFF000000u;
        }
    }
    return 1;
}

int imgtool_heif_decode(
    const imgtool_heif *heif, int sixteen, void *out, int width, int height, imgtool_heif_error *error) {
    int bits = p_heif_image_handle_get_luma_bits_per_pixel(heif->handle);
    int deep = bits > 8;
    struct heif_image *image = NULL;
    int premultiplied = p_heif_image_handle_is_premultiplied_alpha(heif->handle);
    struct heif_error result;
    if (!deep && !sixteen && !premultiplied) {
        // The image as decoded, transforms applied, interleaved here: libheif's own conversion
        // would make a second whole image, in RGBA, to be copied into `out`.
        result = p_heif_decode_image(heif->handle, &image, heif_colorspace_undefined, heif_chroma_undefined, NULL);
        if (result.code != 0) {
            fill(error, result);
            return 0;
        }
        int done = interleave_planes(image, out, width, height);
        p_heif_image_release(image);
        if (done) return 1;
        image = NULL;  // not 8-bit planar RGB or grey (none seen): decoded again, converted by libheif
    }
    result = p_heif_decode_image(
        heif->handle, &image, heif_colorspace_RGB,
        deep ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RGBA, NULL);
    if (result.code != 0) {
        fill(error, result);
        return 0;
    }
    int stride = 0;
    const uint8_t *plane = p_heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    if (!plane || p_heif_image_get_width(image, heif_channel_interleaved) != width ||
        p_heif_image_get_height(image, heif_channel_interleaved) != height) {
        p_heif_image_release(image);
        fill_text(error, 4, "the decoded image does not have the size the file declares");
        return 0;
    }
    int range = deep ? p_heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) : 8;
    if (range < 1 || range > 16) range = bits;
    uint32_t max = (1u << range) - 1;
    if (!deep && !sixteen && !premultiplied) {
        // 8-bit samples as they are: rows copied whole.
        for (int y = 0; y < height; y++)
            memcpy((uint8_t *)out + (size_t)y * (size_t)width * 4, plane + (size_t)y * (size_t)stride,
                   (size_t)width * 4);
        p_heif_image_release(image);
        return 1;
    }
    for (int y = 0; y < height; y++) {
        const uint8_t *row = plane + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x++) {
            uint32_t sample[4];
            for (int c = 0; c < 4; c++) {
                sample[c] = deep ? (uint32_t)row[(x * 4 + c) * 2] | (uint32_t)row[(x * 4 + c) * 2 + 1] << 8
                                 : row[x * 4 + c];
                if (sample[c] > max) sample[c] = max;
            }
            if (premultiplied && sample[3] < max) {
                for (int c = 0; c < 3; c++) {
                    uint32_t value = sample[3] ? (sample[c] * max + sample[3] / 2) / sample[3] : 0;
                    sample[c] = value > max ? max : value;
                }
            }
            size_t at = ((size_t)y * (size_t)width + (size_t)x) * 4;
            for (int c = 0; c < 4; c++) {
                // Rounded from the native depth: (v x 255 + max / 2) / max, or to 16 bits.
                if (sixteen)
                    ((uint16_t *)out)[at + c] = (uint16_t)((sample[c] * 65535u + max / 2) / max);
                else
                    ((uint8_t *)out)[at + c] = (uint8_t)((sample[c] * 255u + max / 2) / max);
            }
        }
    }
    p_heif_image_release(image);
    return 1;
}
