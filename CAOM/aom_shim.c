// The AV1 encoder for MP4 output (see include/CAOM.h).
#include "CAOM.h"

#include <CVPX.h>
#include <aom/aom_encoder.h>
#include <aom/aomcx.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libaom's functions, found with dlsym on first use; each pointer has the header's own type.
#define AOM_FUNCTIONS(X)                                                                                 \
    X(aom_codec_av1_cx)                                                                                  \
    X(aom_codec_enc_config_default)                                                                      \
    X(aom_codec_enc_init_ver)                                                                            \
    X(aom_codec_control)                                                                                 \
    X(aom_codec_error)                                                                                   \
    X(aom_codec_error_detail)                                                                            \
    X(aom_codec_encode)                                                                                  \
    X(aom_codec_get_cx_data)                                                                             \
    X(aom_codec_get_global_headers)                                                                      \
    X(aom_codec_destroy)                                                                                 \
    X(aom_codec_version_str)                                                                             \
    X(aom_img_alloc)                                                                                     \
    X(aom_img_free)
#define DECLARE(name) static __typeof__(&name) p_##name;
AOM_FUNCTIONS(DECLARE)
#undef DECLARE

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error;

static void load(void) {
    const char *path = getenv("IMGTOOL_LIBAOM");
    void *library = dlopen(path && *path ? path : "libaom.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_error = "libaom.so.3 is not installed (on Debian or Ubuntu: apt-get install libaom3)";
        return;
    }
#define RESOLVE(name)                                                                                    \
    *(void **)(&p_##name) = dlsym(library, #name);                                                       \
    if (!p_##name) {                                                                                     \
        load_error = "the libaom loaded lacks " #name " (imgtool needs libaom 3)";                         \
        return;                                                                                          \
    }
    AOM_FUNCTIONS(RESOLVE)
#undef RESOLVE
}

const char *imgtool_aom_problem(void) {
    pthread_once(&once, load);
    return load_error;
}

struct imgtool_aom {
    aom_codec_ctx_t codec;
    int open;
    aom_image_t *picture;
    aom_codec_iter_t iterator;
    int width, height, coded_width, coded_height;
};

static void say(char *error, size_t size, const char *what, aom_codec_ctx_t *codec) {
    if (!error || size == 0) return;
    const char *detail = codec ? p_aom_codec_error_detail(codec) : NULL;
    if (codec && detail)
        snprintf(error, size, "%s: %s (%s)", what, p_aom_codec_error(codec), detail);
    else if (codec)
        snprintf(error, size, "%s: %s", what, p_aom_codec_error(codec));
    else
        snprintf(error, size, "%s", what);
}

imgtool_aom *imgtool_aom_create(const imgtool_aom_settings *s, char *error, size_t error_size) {
    if (imgtool_aom_problem()) {
        say(error, error_size, imgtool_aom_problem(), NULL);
        return NULL;
    }
    if (s->width < 1 || s->height < 1 || s->width > 65536 || s->height > 65536) {
        say(error, error_size, "AV1 frames are 1 to 65536 pixels a side", NULL);
        return NULL;
    }
    imgtool_aom *aom = calloc(1, sizeof *aom);
    if (!aom) {
        say(error, error_size, "out of memory for the AV1 encoder", NULL);
        return NULL;
    }
    aom->width = s->width;
    aom->height = s->height;
    aom->coded_width = s->width + (s->width & 1);
    aom->coded_height = s->height + (s->height & 1);

    aom_codec_iface_t *iface = p_aom_codec_av1_cx();
    aom_codec_enc_cfg_t cfg;
    unsigned usage = s->realtime ? AOM_USAGE_REALTIME : AOM_USAGE_GOOD_QUALITY;
    if (p_aom_codec_enc_config_default(iface, &cfg, usage) != AOM_CODEC_OK) {
        say(error, error_size, "libaom has no default AV1 configuration", NULL);
        imgtool_aom_destroy(aom);
        return NULL;
    }
    cfg.g_w = (unsigned)aom->coded_width;
    cfg.g_h = (unsigned)aom->coded_height;
    cfg.g_profile = 0;
    cfg.g_bit_depth = AOM_BITS_8;
    cfg.g_input_bit_depth = 8;
    cfg.g_timebase.num = 1;
    cfg.g_timebase.den = 1000;
    cfg.g_threads = (unsigned)(s->threads > 0 ? s->threads : 1);
    cfg.g_pass = AOM_RC_ONE_PASS;
    cfg.g_lag_in_frames = s->realtime ? 0 : 35;
    cfg.rc_end_usage = AOM_Q;
    cfg.rc_min_quantizer = 0;
    cfg.rc_max_quantizer = 63;
    cfg.rc_dropframe_thresh = 0;
    cfg.rc_resize_mode = 0;
    cfg.rc_superres_mode = AOM_SUPERRES_NONE;
    cfg.kf_mode = AOM_KF_AUTO;
    cfg.kf_min_dist = 0;
    cfg.kf_max_dist = (unsigned)(s->key_interval_max > 0 ? s->key_interval_max : 240);
    if (p_aom_codec_enc_init_ver(&aom->codec, iface, &cfg, 0, AOM_ENCODER_ABI_VERSION) != AOM_CODEC_OK) {
        say(error, error_size, "libaom could not start the AV1 encoder", &aom->codec);
        imgtool_aom_destroy(aom);
        return NULL;
    }
    aom->open = 1;
    aom_codec_ctx_t *c = &aom->codec;
    unsigned tiles = 0;
    while (tiles < 6 && (aom->coded_width >> (tiles + 1)) >= 256 && (1 << (tiles + 1)) <= cfg.g_threads) tiles++;
    int ok = p_aom_codec_control(c, AOME_SET_CPUUSED, s->cpu_used) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AOME_SET_CQ_LEVEL, (unsigned)s->cq_level) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_ROW_MT, 1u) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_TILE_COLUMNS, tiles) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_TUNE_CONTENT, s->screen ? AOM_CONTENT_SCREEN : AOM_CONTENT_DEFAULT) ==
                 AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_COLOR_PRIMARIES, AOM_CICP_CP_BT_709) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_TRANSFER_CHARACTERISTICS, AOM_CICP_TC_BT_709) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_MATRIX_COEFFICIENTS, AOM_CICP_MC_BT_709) == AOM_CODEC_OK &&
             p_aom_codec_control(c, AV1E_SET_COLOR_RANGE, AOM_CR_STUDIO_RANGE) == AOM_CODEC_OK;
    if (!ok) {
        say(error, error_size, "libaom refused an encoder setting", c);
        imgtool_aom_destroy(aom);
        return NULL;
    }
    aom->picture = p_aom_img_alloc(NULL, AOM_IMG_FMT_I420, (unsigned)aom->coded_width, (unsigned)aom->coded_height, 32);
    if (!aom->picture) {
        say(error, error_size, "out of memory for an AV1 frame", NULL);
        imgtool_aom_destroy(aom);
        return NULL;
    }
    aom->picture->cp = AOM_CICP_CP_BT_709;
    aom->picture->tc = AOM_CICP_TC_BT_709;
    aom->picture->mc = AOM_CICP_MC_BT_709;
    aom->picture->range = AOM_CR_STUDIO_RANGE;
    return aom;
}

int imgtool_aom_coded_width(const imgtool_aom *aom) { return aom->coded_width; }
int imgtool_aom_coded_height(const imgtool_aom *aom) { return aom->coded_height; }

int imgtool_aom_encode(imgtool_aom *aom, const uint8_t *rgba, size_t stride, int64_t pts, unsigned long duration,
                       char *error, size_t error_size) {
    if (rgba) {
        aom_image_t *img = aom->picture;
        uint8_t *const planes[3] = {img->planes[0], img->planes[1], img->planes[2]};
        const int strides[3] = {img->stride[0], img->stride[1], img->stride[2]};
        imgtool_rgba_to_i420(rgba, stride, aom->width, aom->height, planes, strides);
    }
    aom->iterator = NULL;
    if (p_aom_codec_encode(&aom->codec, rgba ? aom->picture : NULL, pts, duration, 0) != AOM_CODEC_OK) {
        say(error, error_size, "libaom could not encode a frame", &aom->codec);
        return 0;
    }
    return 1;
}

int imgtool_aom_next_packet(imgtool_aom *aom, const uint8_t **data, size_t *size, int64_t *pts, int *key) {
    const aom_codec_cx_pkt_t *packet;
    while ((packet = p_aom_codec_get_cx_data(&aom->codec, &aom->iterator)) != NULL) {
        if (packet->kind != AOM_CODEC_CX_FRAME_PKT) continue;
        *data = packet->data.frame.buf;
        *size = packet->data.frame.sz;
        *pts = packet->data.frame.pts;
        *key = (packet->data.frame.flags & AOM_FRAME_IS_KEY) != 0;
        return 1;
    }
    return 0;
}

size_t imgtool_aom_sequence_header(imgtool_aom *aom, uint8_t *buffer, size_t capacity) {
    aom_fixed_buf_t *header = p_aom_codec_get_global_headers(&aom->codec);
    if (!header) return 0;
    size_t size = header->sz;
    if (header->buf && size <= capacity) memcpy(buffer, header->buf, size);
    if (!header->buf) size = 0;
    free(header->buf);
    free(header);
    return size;
}

void imgtool_aom_destroy(imgtool_aom *aom) {
    if (!aom) return;
    if (aom->open) p_aom_codec_destroy(&aom->codec);
    if (aom->picture) p_aom_img_free(aom->picture);
    free(aom);
}

const char *imgtool_aom_version(void) { return imgtool_aom_problem() ? NULL : p_aom_codec_version_str(); }
