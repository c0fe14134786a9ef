// The VP9 encoders for WebM output (see include/CVPX.h).
#include "CVPX.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

struct imgtool_vpx {
    vpx_codec_ctx_t codec[2];
    int open[2];
    vpx_image_t *picture[2];
    vpx_codec_iter_t iterator[2];
    int width, height, coded_width, coded_height, lossless, alpha;
    // BT.709, limited range: Y, Cb and Cr from 8-bit R, G and B, in 1/65536 (Cb and Cr from sums of
    // four pixels, so in 1/262144).
    int32_t yr, yg, yb, cbr, cbg, cbb, crr, crg, crb;
};

static void say(char *error, size_t size, const char *what, vpx_codec_ctx_t *codec) {
    if (!error || size == 0) return;
    const char *detail = codec ? vpx_codec_error_detail(codec) : NULL;
    if (codec && detail)
        snprintf(error, size, "%s: %s (%s)", what, vpx_codec_error(codec), detail);
    else if (codec)
        snprintf(error, size, "%s: %s", what, vpx_codec_error(codec));
    else
        snprintf(error, size, "%s", what);
}

static int32_t fixed(double value) { return (int32_t)(value * 65536.0 + (value < 0 ? -0.5 : 0.5)); }

// BT.709, limited range (Y 16-235, Cb and Cr 16-240).
static void set_coefficients(imgtool_vpx *vpx) {
    const double kr = 0.2126, kb = 0.0722, kg = 1 - kr - kb, luma = 219.0 / 255, chroma = 224.0 / 255;
    vpx->yr = fixed(luma * kr);
    vpx->yg = fixed(luma * kg);
    vpx->yb = fixed(luma * kb);
    // Cb = (B - Y') / (2 (1 - kb)), Cr = (R - Y') / (2 (1 - kr)), Y' unscaled; each row sums to 0.
    vpx->cbr = fixed(-chroma * kr / (2 * (1 - kb)));
    vpx->cbg = fixed(-chroma * kg / (2 * (1 - kb)));
    vpx->cbb = -(vpx->cbr + vpx->cbg);
    vpx->crg = fixed(-chroma * kg / (2 * (1 - kr)));
    vpx->crb = fixed(-chroma * kb / (2 * (1 - kr)));
    vpx->crr = -(vpx->crg + vpx->crb);
}

static int open_encoder(imgtool_vpx *vpx, int which, const imgtool_vpx_settings *s, char *error, size_t size) {
    vpx_codec_iface_t *iface = vpx_codec_vp9_cx();
    vpx_codec_enc_cfg_t cfg;
    if (vpx_codec_enc_config_default(iface, &cfg, 0) != VPX_CODEC_OK) {
        say(error, size, "libvpx has no default VP9 configuration", NULL);
        return 0;
    }
    int gbr = which == 0 && s->lossless;
    cfg.g_w = (unsigned)vpx->coded_width;
    cfg.g_h = (unsigned)vpx->coded_height;
    cfg.g_profile = gbr ? 1 : 0;
    cfg.g_timebase.num = 1;
    cfg.g_timebase.den = 1000;
    cfg.g_threads = (unsigned)(s->threads > 0 ? s->threads : 1);
    cfg.g_pass = VPX_RC_ONE_PASS;
    cfg.g_lag_in_frames = 25;
    cfg.rc_end_usage = VPX_Q;
    cfg.rc_min_quantizer = 0;
    cfg.rc_max_quantizer = s->lossless ? 0 : 63;
    cfg.rc_dropframe_thresh = 0;
    cfg.rc_resize_allowed = 0;
    if (s->key_interval > 0) {
        cfg.kf_mode = VPX_KF_DISABLED;
        cfg.kf_min_dist = 0;
        cfg.kf_max_dist = (unsigned)s->key_interval;
    } else {
        cfg.kf_mode = VPX_KF_AUTO;
        cfg.kf_min_dist = 0;
        cfg.kf_max_dist = (unsigned)(s->key_interval_max > 0 ? s->key_interval_max : 128);
    }
    if (vpx_codec_enc_init(&vpx->codec[which], iface, &cfg, 0) != VPX_CODEC_OK) {
        say(error, size, "libvpx could not start the VP9 encoder", &vpx->codec[which]);
        return 0;
    }
    vpx->open[which] = 1;
    vpx_codec_ctx_t *c = &vpx->codec[which];
    int tiles = 0;
    while (tiles < 6 && (vpx->coded_width >> (tiles + 1)) >= 256) tiles++;
    int ok = vpx_codec_control(c, VP8E_SET_CPUUSED, s->cpu_used) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP8E_SET_CQ_LEVEL, (unsigned)(which ? s->alpha_cq_level : s->cq_level)) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP9E_SET_LOSSLESS, (unsigned)(s->lossless ? 1 : 0)) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP8E_SET_ENABLEAUTOALTREF, 1u) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP9E_SET_ROW_MT, 1u) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP9E_SET_TILE_COLUMNS, tiles) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP9E_SET_COLOR_SPACE, gbr ? VPX_CS_SRGB : VPX_CS_BT_709) == VPX_CODEC_OK &&
             vpx_codec_control(c, VP9E_SET_COLOR_RANGE, gbr ? VPX_CR_FULL_RANGE : VPX_CR_STUDIO_RANGE) == VPX_CODEC_OK;
    if (!ok) {
        say(error, size, "libvpx refused an encoder setting", c);
        return 0;
    }
    vpx->picture[which] =
        vpx_img_alloc(NULL, gbr ? VPX_IMG_FMT_I444 : VPX_IMG_FMT_I420, (unsigned)vpx->coded_width,
                      (unsigned)vpx->coded_height, 32);
    if (!vpx->picture[which]) {
        say(error, size, "out of memory for a VP9 frame", NULL);
        return 0;
    }
    vpx->picture[which]->cs = gbr ? VPX_CS_SRGB : VPX_CS_BT_709;
    vpx->picture[which]->range = gbr ? VPX_CR_FULL_RANGE : VPX_CR_STUDIO_RANGE;
    return 1;
}

imgtool_vpx *imgtool_vpx_create(const imgtool_vpx_settings *s, char *error, size_t error_size) {
    if (s->width < 1 || s->height < 1 || s->width > 65536 || s->height > 65536) {
        say(error, error_size, "VP9 frames are 1 to 65536 pixels a side", NULL);
        return NULL;
    }
    imgtool_vpx *vpx = calloc(1, sizeof *vpx);
    if (!vpx) {
        say(error, error_size, "out of memory for the VP9 encoder", NULL);
        return NULL;
    }
    vpx->width = s->width;
    vpx->height = s->height;
    vpx->coded_width = s->width + (s->width & 1);
    vpx->coded_height = s->height + (s->height & 1);
    vpx->lossless = s->lossless;
    vpx->alpha = s->alpha;
    set_coefficients(vpx);
    if (!open_encoder(vpx, 0, s, error, error_size) || (s->alpha && !open_encoder(vpx, 1, s, error, error_size))) {
        imgtool_vpx_destroy(vpx);
        return NULL;
    }
    return vpx;
}

int imgtool_vpx_coded_width(const imgtool_vpx *vpx) { return vpx->coded_width; }
int imgtool_vpx_coded_height(const imgtool_vpx *vpx) { return vpx->coded_height; }

static inline uint8_t clamp8(int32_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

// The RGBA pixel shown at (x, y) of the coded picture: the last column and row repeated past the
// picture's own size.
static inline const uint8_t *pixel(const imgtool_vpx *vpx, const uint8_t *rgba, size_t stride, int x, int y) {
    if (x >= vpx->width) x = vpx->width - 1;
    if (y >= vpx->height) y = vpx->height - 1;
    return rgba + (size_t)y * stride + (size_t)x * 4;
}

// RGBA to 4:2:0 BT.709 limited range, the coded size even: the last column and row repeated.
static void rgba_to_i420(const imgtool_vpx *vpx, const uint8_t *rgba, size_t stride, uint8_t *const planes[3],
                         const int strides[3]) {
    for (int y = 0; y < vpx->coded_height; y += 2) {
        uint8_t *luma0 = planes[0] + (ptrdiff_t)y * strides[0];
        uint8_t *luma1 = luma0 + strides[0];
        uint8_t *cb = planes[1] + (ptrdiff_t)(y / 2) * strides[1];
        uint8_t *cr = planes[2] + (ptrdiff_t)(y / 2) * strides[2];
        for (int x = 0; x < vpx->coded_width; x += 2) {
            int32_t sr = 0, sg = 0, sb = 0;
            for (int dy = 0; dy < 2; dy++) {
                uint8_t *luma = dy ? luma1 : luma0;
                for (int dx = 0; dx < 2; dx++) {
                    const uint8_t *p = pixel(vpx, rgba, stride, x + dx, y + dy);
                    sr += p[0];
                    sg += p[1];
                    sb += p[2];
                    luma[x + dx] = (uint8_t)(16 + ((vpx->yr * p[0] + vpx->yg * p[1] + vpx->yb * p[2] + 32768) >> 16));
                }
            }
            cb[x / 2] = clamp8(128 + ((vpx->cbr * sr + vpx->cbg * sg + vpx->cbb * sb + (1 << 17)) >> 18));
            cr[x / 2] = clamp8(128 + ((vpx->crr * sr + vpx->crg * sg + vpx->crb * sb + (1 << 17)) >> 18));
        }
    }
}

static void fill_yuv420(const imgtool_vpx *vpx, const uint8_t *rgba, size_t stride) {
    vpx_image_t *img = vpx->picture[0];
    int strides[3] = {img->stride[0], img->stride[1], img->stride[2]};
    rgba_to_i420(vpx, rgba, stride, img->planes, strides);
}

void imgtool_rgba_to_i420(const uint8_t *rgba, size_t stride, int width, int height, uint8_t *const planes[3],
                          const int strides[3]) {
    imgtool_vpx converter;
    memset(&converter, 0, sizeof converter);
    converter.width = width;
    converter.height = height;
    converter.coded_width = width + (width & 1);
    converter.coded_height = height + (height & 1);
    set_coefficients(&converter);
    rgba_to_i420(&converter, rgba, stride, planes, strides);
}

static void fill_gbr444(const imgtool_vpx *vpx, const uint8_t *rgba, size_t stride) {
    vpx_image_t *img = vpx->picture[0];
    for (int y = 0; y < vpx->coded_height; y++) {
        uint8_t *g = img->planes[0] + (ptrdiff_t)y * img->stride[0];
        uint8_t *b = img->planes[1] + (ptrdiff_t)y * img->stride[1];
        uint8_t *r = img->planes[2] + (ptrdiff_t)y * img->stride[2];
        for (int x = 0; x < vpx->coded_width; x++) {
            const uint8_t *p = pixel(vpx, rgba, stride, x, y);
            r[x] = p[0];
            g[x] = p[1];
            b[x] = p[2];
        }
    }
}

static void fill_alpha(const imgtool_vpx *vpx, const uint8_t *rgba, size_t stride) {
    vpx_image_t *img = vpx->picture[1];
    for (int y = 0; y < vpx->coded_height; y++) {
        uint8_t *a = img->planes[0] + (ptrdiff_t)y * img->stride[0];
        for (int x = 0; x < vpx->coded_width; x++) a[x] = pixel(vpx, rgba, stride, x, y)[3];
    }
    for (int plane = 1; plane < 3; plane++)
        for (int y = 0; y < vpx->coded_height / 2; y++)
            memset(img->planes[plane] + (ptrdiff_t)y * img->stride[plane], 128, (size_t)vpx->coded_width / 2);
}

int imgtool_vpx_encode(imgtool_vpx *vpx, const uint8_t *rgba, size_t stride, int64_t pts, unsigned long duration,
                       int force_key, char *error, size_t error_size) {
    if (rgba) {
        if (vpx->lossless)
            fill_gbr444(vpx, rgba, stride);
        else
            fill_yuv420(vpx, rgba, stride);
        if (vpx->alpha) fill_alpha(vpx, rgba, stride);
    }
    vpx_enc_frame_flags_t flags = force_key ? VPX_EFLAG_FORCE_KF : 0;
    for (int which = 0; which < (vpx->alpha ? 2 : 1); which++) {
        vpx->iterator[which] = NULL;
        if (vpx_codec_encode(&vpx->codec[which], rgba ? vpx->picture[which] : NULL, pts, duration, flags,
                             VPX_DL_GOOD_QUALITY) != VPX_CODEC_OK) {
            say(error, error_size, which ? "libvpx could not encode the alpha of a frame" : "libvpx could not encode a frame",
                &vpx->codec[which]);
            return 0;
        }
    }
    return 1;
}

int imgtool_vpx_next_packet(imgtool_vpx *vpx, int stream, const uint8_t **data, size_t *size, int64_t *pts,
                            int *key) {
    if (stream < 0 || stream > 1 || !vpx->open[stream]) return 0;
    const vpx_codec_cx_pkt_t *packet;
    while ((packet = vpx_codec_get_cx_data(&vpx->codec[stream], &vpx->iterator[stream])) != NULL) {
        if (packet->kind != VPX_CODEC_CX_FRAME_PKT) continue;
        *data = packet->data.frame.buf;
        *size = packet->data.frame.sz;
        *pts = packet->data.frame.pts;
        *key = (packet->data.frame.flags & VPX_FRAME_IS_KEY) != 0;
        return 1;
    }
    return 0;
}

void imgtool_vpx_destroy(imgtool_vpx *vpx) {
    if (!vpx) return;
    for (int which = 0; which < 2; which++) {
        if (vpx->open[which]) vpx_codec_destroy(&vpx->codec[which]);
        if (vpx->picture[which]) vpx_img_free(vpx->picture[which]);
    }
    free(vpx);
}

const char *imgtool_vpx_version(void) { return vpx_codec_version_str(); }
