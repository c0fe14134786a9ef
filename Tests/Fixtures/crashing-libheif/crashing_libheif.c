// A stand-in for libheif.so.1 that parses nothing and crashes in heif_decode_image, for the
// end-to-end tests of decoder isolation (Tests/imgtoolTests/DecoderIsolationCLITests.swift).
// The tests build it with the C compiler (`cc -shared -fPIC`) and point IMGTOOL_LIBHEIF at it, the
// variable that names another libheif file to load: every image then "parses" as 64x64, 8 bits,
// no alpha, no metadata, and decoding it dies of SIGSEGV, as a libheif bug on a hostile file would.
// It exports every function CHeif/heif_loader.c resolves, with the same ABI (struct heif_error by
// value). Nothing of libheif is copied: the signatures follow CHeif's declarations.
#include <stddef.h>
#include <stdint.h>

struct heif_error {
    int code;
    int subcode;
    const char *message;
};

static const struct heif_error ok = {0, 0, "Success"};
static int context, handle, image;

const char *heif_get_version(void) { return "0.0-crashing"; }
int heif_have_decoder_for_format(int format) { return format == 1; }
void *heif_context_alloc(void) { return &context; }
void heif_context_free(void *c) { (void)c; }
void heif_context_set_maximum_image_size_limit(void *c, int limit) { (void)c, (void)limit; }
struct heif_error heif_context_read_from_memory_without_copy(void *c, const void *d, size_t n, const void *o) {
    (void)c, (void)d, (void)n, (void)o;
    return ok;
}
struct heif_error heif_context_get_primary_image_handle(void *c, void **h) {
    (void)c;
    *h = &handle;
    return ok;
}
void heif_image_handle_release(const void *h) { (void)h; }
int heif_image_handle_get_width(const void *h) { return (void)h, 64; }
int heif_image_handle_get_height(const void *h) { return (void)h, 64; }
int heif_image_handle_has_alpha_channel(const void *h) { return (void)h, 0; }
int heif_image_handle_is_premultiplied_alpha(const void *h) { return (void)h, 0; }
int heif_image_handle_get_luma_bits_per_pixel(const void *h) { return (void)h, 8; }
int heif_image_handle_get_ispe_width(const void *h) { return (void)h, 64; }
int heif_image_handle_get_ispe_height(const void *h) { return (void)h, 64; }
size_t heif_image_handle_get_raw_color_profile_size(const void *h) { return (void)h, 0; }
struct heif_error heif_image_handle_get_raw_color_profile(const void *h, void *out) {
    (void)h, (void)out;
    return ok;
}
int heif_image_handle_get_list_of_metadata_block_IDs(const void *h, const char *type, uint32_t *ids, int count) {
    (void)h, (void)type, (void)ids, (void)count;
    return 0;
}
size_t heif_image_handle_get_metadata_size(const void *h, uint32_t id) { return (void)h, (void)id, 0; }
const char *heif_image_handle_get_metadata_content_type(const void *h, uint32_t id) {
    return (void)h, (void)id, "";
}
struct heif_error heif_image_handle_get_metadata(const void *h, uint32_t id, void *out) {
    (void)h, (void)id, (void)out;
    return ok;
}

// The crash: a write through a null pointer the compiler cannot prove null.
volatile int *volatile nowhere;
struct heif_error heif_decode_image(const void *h, void **out, int colorspace, int chroma, const void *options) {
    (void)h, (void)colorspace, (void)chroma, (void)options;
    *nowhere = 1;
    *out = &image;
    return ok;
}

int heif_image_get_width(const void *i, int channel) { return (void)i, (void)channel, 64; }
int heif_image_get_height(const void *i, int channel) { return (void)i, (void)channel, 64; }
int heif_image_get_bits_per_pixel_range(const void *i, int channel) { return (void)i, (void)channel, 8; }
const uint8_t *heif_image_get_plane_readonly(const void *i, int channel, int *stride) {
    (void)i, (void)channel, (void)stride;
    return NULL;
}
int heif_image_get_colorspace(const void *i) { return (void)i, 1; }
int heif_image_get_chroma_format(const void *i) { return (void)i, 11; }
int heif_image_has_channel(const void *i, int channel) { return (void)i, (void)channel, 0; }
void heif_image_release(const void *i) { (void)i; }
