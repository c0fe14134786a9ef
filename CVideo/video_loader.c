// libavformat and libavcodec through dlopen: see include/CVideo.h.
//
// The pointers take their types from FFmpeg 5.1's headers (libavformat 59, libavcodec 59,
// libavutil 57), whose ABI those sonames keep. libavutil's functions are found through
// libavcodec's handle, which depends on it.
#include "CVideo.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>

#define FORMAT_FUNCTIONS(X)     \
    X(avformat_version)         \
    X(avformat_alloc_context)   \
    X(avformat_open_input)      \
    X(avformat_find_stream_info) \
    X(avformat_close_input)     \
    X(av_find_best_stream)      \
    X(av_find_input_format)     \
    X(av_read_frame)            \
    X(av_seek_frame)            \
    X(av_stream_get_side_data)  \
    X(avio_alloc_context)       \
    X(avio_context_free)

#define CODEC_FUNCTIONS(X)          \
    X(avcodec_version)              \
    X(avcodec_find_decoder)         \
    X(avcodec_find_decoder_by_name) \
    X(avcodec_alloc_context3)       \
    X(avcodec_free_context)         \
    X(avcodec_parameters_to_context) \
    X(avcodec_open2)                \
    X(avcodec_send_packet)          \
    X(avcodec_receive_frame)        \
    X(avcodec_flush_buffers)        \
    X(avcodec_get_name)             \
    X(av_packet_alloc)              \
    X(av_packet_free)               \
    X(av_packet_unref)              \
    X(av_frame_alloc)               \
    X(av_frame_free)                \
    X(av_frame_unref)               \
    X(av_malloc)                    \
    X(av_free)                      \
    X(av_dict_get)                  \
    X(av_display_rotation_get)      \
    X(av_strerror)                  \
    X(av_log_set_callback)          \
    X(av_color_space_name)          \
    X(av_color_range_name)          \
    X(av_color_transfer_name)       \
    X(av_color_primaries_name)      \
    X(av_get_pix_fmt_name)          \
    X(avcodec_find_encoder_by_name) \
    X(avcodec_send_frame)           \
    X(avcodec_receive_packet)       \
    X(av_frame_get_buffer)          \
    X(av_frame_make_writable)       \
    X(av_opt_set)

#define DECLARE(name) static __typeof__(&name) p_##name;
FORMAT_FUNCTIONS(DECLARE)
CODEC_FUNCTIONS(DECLARE)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static const char *load_error = "libavformat is not loaded";
static char versions[96];

// FFmpeg's last error line on this thread, kept for our messages instead of printed.
static _Thread_local char last_log[160];

static void log_callback(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    char line[sizeof last_log];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == ' ')) line[--length] = 0;
    if (length > 0) memcpy(last_log, line, length + 1);
}

static void *open_library(const char *variable, const char *soname) {
    const char *path = getenv(variable);
    return dlopen(path && *path ? path : soname, RTLD_NOW | RTLD_LOCAL);
}

static void load(void) {
    void *codec = open_library("IMGTOOL_LIBAVCODEC", "libavcodec.so.59");
    void *format = codec ? open_library("IMGTOOL_LIBAVFORMAT", "libavformat.so.59") : NULL;
    if (!codec || !format) {
        load_error = "libavformat.so.59 and libavcodec.so.59 are not installed "
                     "(on Debian or Ubuntu: apt-get install libavformat59 libavcodec59)";
        return;
    }
#define RESOLVE_IN(library, name)                                                             \
    *(void **)(&p_##name) = dlsym(library, #name);                                          \
    if (!p_##name) {                                                                        \
        load_error = "FFmpeg's libraries lack " #name " (imgtool needs libavformat 59 and libavcodec 59)"; \
        return;                                                                             \
    }
#define RESOLVE_FORMAT(name) RESOLVE_IN(format, name)
#define RESOLVE_CODEC(name) RESOLVE_IN(codec, name)
    FORMAT_FUNCTIONS(RESOLVE_FORMAT)
    CODEC_FUNCTIONS(RESOLVE_CODEC)
    unsigned f = p_avformat_version(), c = p_avcodec_version();
    if (f >> 16 != LIBAVFORMAT_VERSION_MAJOR || c >> 16 != LIBAVCODEC_VERSION_MAJOR) {
        load_error = "the FFmpeg libraries loaded are not libavformat 59 and libavcodec 59";
        return;
    }
    snprintf(versions, sizeof versions, "libavformat %u.%u.%u, libavcodec %u.%u.%u", f >> 16, f >> 8 & 255, f & 255,
             c >> 16, c >> 8 & 255, c & 255);
    p_av_log_set_callback(log_callback);
    loaded = 1;
}

int imgtool_video_load(const char **error) {
    pthread_once(&once, load);
    if (!loaded && error) *error = load_error;
    return loaded;
}

const char *imgtool_video_versions(void) { return loaded ? versions : NULL; }

// ---------------------------------------------------------------------------------------------
// The file in memory, read by libavformat through callbacks.

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t at;
} memory_file;

static int read_memory(void *opaque, uint8_t *buffer, int capacity) {
    memory_file *file = opaque;
    if (file->at >= file->size) return AVERROR_EOF;
    size_t count = file->size - file->at;
    if (count > (size_t)capacity) count = (size_t)capacity;
    memcpy(buffer, file->data + file->at, count);
    file->at += count;
    return (int)count;
}

static int64_t seek_memory(void *opaque, int64_t offset, int whence) {
    memory_file *file = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)file->size;
    int64_t base = 0;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)file->at; break;
    case SEEK_END: base = (int64_t)file->size; break;
    default: return AVERROR(EINVAL);
    }
    if (offset > (int64_t)file->size - base || offset < -base) return AVERROR(EINVAL);
    file->at = (size_t)(base + offset);
    return (int64_t)file->at;
}

typedef struct {
    memory_file file;
    AVIOContext *io;
    AVFormatContext *format;
} demuxer;

static void close_demuxer(demuxer *d) {
    if (d->format) p_avformat_close_input(&d->format);
    if (d->io) {
        p_av_free(d->io->buffer);
        p_avio_context_free(&d->io);
    }
}

static void fail(imgtool_video_error *error, int kind, const char *what, int code) {
    if (!error) return;
    char reason[128] = "";
    if (code < 0) p_av_strerror(code, reason, sizeof reason);
    error->kind = kind;
    snprintf(error->message, sizeof error->message, "%s%s%s%s%s", what, *reason ? ": " : "", reason,
             *last_log ? " (" : "", last_log);
    if (*last_log) strncat(error->message, ")", sizeof error->message - strlen(error->message) - 1);
    last_log[0] = 0;
}

// Opens the container with the one demuxer named (`mov`, `matroska`): FFmpeg's other demuxers,
// which probing could pick for crafted bytes, are never reached.
static int open_demuxer(demuxer *d, const uint8_t *data, size_t size, const char *name, imgtool_video_error *error) {
    const AVInputFormat *input = p_av_find_input_format(name);
    if (!input) {
        fail(error, imgtool_video_unsupported, "libavformat has no demuxer for this container", 0);
        return 0;
    }
    d->file = (memory_file){data, size, 0};
    uint8_t *buffer = p_av_malloc(65536);
    d->format = p_avformat_alloc_context();
    if (buffer) d->io = p_avio_alloc_context(buffer, 65536, 0, &d->file, read_memory, NULL, seek_memory);
    if (!buffer || !d->format || !d->io) {
        if (buffer && !d->io) p_av_free(buffer);
        fail(error, imgtool_video_too_large, "out of memory", 0);
        return 0;
    }
    d->format->pb = d->io;
    d->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    int status = p_avformat_open_input(&d->format, NULL, input, NULL);
    if (status < 0) {
        d->format = NULL;  // freed by avformat_open_input
        fail(error, status == AVERROR_EOF ? imgtool_video_truncated : imgtool_video_corrupt,
             "cannot read the container", status);
        return 0;
    }
    return 1;
}

// ---------------------------------------------------------------------------------------------

typedef struct {
    double seconds;
    double duration;
    int64_t pts;  // in the stream's time base
} frame_time;

// A listed packet, in decode order: where it is and when, for seeking.
typedef struct {
    int64_t position;
    int64_t pts;
    int64_t dts;
    int key;
} packet_entry;

struct imgtool_video {
    demuxer demuxer;
    char container[16];
    int stream;
    AVCodecContext *decoder;
    AVPacket *packet;
    AVFrame *frame;
    frame_time *times;
    packet_entry *packets;
    int count;
    int sent;
    int sent_end;
    // After a seek: frames before `skip_before` (the target's timestamp) are dropped, and the
    // first packet read tells how many listed packets come before it (`find_sent`).
    int64_t skip_before;
    int seek_index;
    int find_sent;
    // Frames the decoder gives that are dropped, when decoding starts from the first frame.
    int drop;
};

void imgtool_video_close(imgtool_video *video) {
    if (!video) return;
    if (video->decoder) p_avcodec_free_context(&video->decoder);
    if (video->packet) p_av_packet_free(&video->packet);
    if (video->frame) p_av_frame_free(&video->frame);
    close_demuxer(&video->demuxer);
    free(video->times);
    free(video->packets);
    free(video);
}

static void name(char *out, size_t capacity, const char *text) {
    snprintf(out, capacity, "%s", text ? text : "unknown");
}

static int by_time(const void *a, const void *b) {
    double x = ((const frame_time *)a)->seconds, y = ((const frame_time *)b)->seconds;
    return (x > y) - (x < y);
}

// Lists the shown packets' times, in one pass of the demuxer over the whole file (no decoding).
static int list_times(imgtool_video *video, int max_frames, imgtool_video_info *info, imgtool_video_error *error) {
    AVStream *stream = video->demuxer.format->streams[video->stream];
    double base = av_q2d(stream->time_base);
    int capacity = 0;
    int64_t previous = AV_NOPTS_VALUE;
    last_log[0] = 0;
    for (;;) {
        int status = p_av_read_frame(video->demuxer.format, video->packet);
        if (status < 0) {
            if (status != AVERROR_EOF) info->cut_short = 1;
            break;
        }
        if (video->packet->stream_index == video->stream && (video->packet->flags & AV_PKT_FLAG_CORRUPT)) {
            // A sample cut by the end of the file (or damaged): the frames before it are listed.
            p_av_packet_unref(video->packet);
            info->cut_short = 1;
            break;
        }
        int wanted = video->packet->stream_index == video->stream && !(video->packet->flags & AV_PKT_FLAG_DISCARD);
        int64_t time = video->packet->pts != AV_NOPTS_VALUE ? video->packet->pts : video->packet->dts;
        double duration = (double)video->packet->duration * base;
        packet_entry entry = {video->packet->pos, 0, video->packet->dts, (video->packet->flags & AV_PKT_FLAG_KEY) != 0};
        p_av_packet_unref(video->packet);
        if (!wanted) continue;
        if (time == AV_NOPTS_VALUE) time = previous == AV_NOPTS_VALUE ? 0 : previous + 1;
        previous = time;
        if (video->count == capacity) {
            int grown = capacity ? capacity * 2 : 64;
            frame_time *times = realloc(video->times, (size_t)grown * sizeof *times);
            if (!times) {
                fail(error, imgtool_video_too_large, "out of memory listing the frames", 0);
                return 0;
            }
            video->times = times;
            packet_entry *packets = realloc(video->packets, (size_t)grown * sizeof *packets);
            if (!packets) {
                fail(error, imgtool_video_too_large, "out of memory listing the frames", 0);
                return 0;
            }
            video->packets = packets;
            capacity = grown;
        }
        entry.pts = time;
        video->packets[video->count] = entry;
        video->times[video->count++] = (frame_time){(double)time * base, duration, time};
        if (video->count > max_frames) break;
    }
    // The demuxer reads on past a cut as if the file ended there, but says so (matroska: "File
    // ended prematurely"): an error it logged while listing marks the list as cut short too.
    if (last_log[0]) info->cut_short = 1;
    last_log[0] = 0;
    qsort(video->times, (size_t)video->count, sizeof *video->times, by_time);
    info->frame_count = video->count;
    return 1;
}

// Why a stream in this colour cannot be shown right (NULL when it can): HDR transfers, whose
// frames would show washed out without tone mapping, and the BT.2020 matrix.
static const char *refusal(enum AVColorSpace matrix, enum AVColorTransferCharacteristic transfer) {
    if (transfer == AVCOL_TRC_SMPTE2084)
        return "HDR video (PQ, SMPTE 2084) is not supported yet: without tone mapping it would show washed out";
    if (transfer == AVCOL_TRC_ARIB_STD_B67)
        return "HDR video (HLG) is not supported yet: without tone mapping it would show washed out";
    if (matrix == AVCOL_SPC_BT2020_NCL || matrix == AVCOL_SPC_BT2020_CL)
        return "BT.2020 video is not supported yet (BT.601 and BT.709 are)";
    return NULL;
}

imgtool_video *imgtool_video_open(
    const uint8_t *data, size_t size, const char *container, int64_t max_pixels, int max_frames,
    imgtool_video_info *info, imgtool_video_error *error) {
    const char *why = NULL;
    if (!imgtool_video_load(&why)) {
        if (error) {
            error->kind = imgtool_video_unsupported;
            snprintf(error->message, sizeof error->message, "%s", why);
        }
        return NULL;
    }
    memset(info, 0, sizeof *info);
    last_log[0] = 0;
    imgtool_video *video = calloc(1, sizeof *video);
    if (!video) return NULL;
    video->packet = p_av_packet_alloc();
    video->frame = p_av_frame_alloc();
    if (!video->packet || !video->frame) {
        fail(error, imgtool_video_too_large, "out of memory", 0);
        goto failed;
    }
    if (!open_demuxer(&video->demuxer, data, size, container, error)) goto failed;
    snprintf(video->container, sizeof video->container, "%s", container);
    video->skip_before = AV_NOPTS_VALUE;
    AVFormatContext *format = video->demuxer.format;
    name(info->container, sizeof info->container, format->iformat ? format->iformat->name : NULL);
    video->stream = p_av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (video->stream < 0) {
        fail(error, imgtool_video_corrupt, "the file has no video stream", 0);
        goto failed;
    }
    AVStream *stream = format->streams[video->stream];
    AVCodecParameters *parameters = stream->codecpar;
    // The size the header declares, checked before any frame is decoded (stream info decodes some).
    if (parameters->width > 0 && parameters->height > 0 &&
        (int64_t)parameters->width * parameters->height > max_pixels) {
        info->width = parameters->width;
        info->height = parameters->height;
        fail(error, imgtool_video_too_large, "too many pixels", 0);
        goto failed;
    }
    int status = p_avformat_find_stream_info(format, NULL);
    if (status < 0) {
        fail(error, imgtool_video_corrupt, "cannot read the stream parameters", status);
        goto failed;
    }
    info->width = parameters->width;
    info->height = parameters->height;
    if (info->width <= 0 || info->height <= 0) {
        fail(error, imgtool_video_corrupt, "the video stream declares no size", 0);
        goto failed;
    }
    if ((int64_t)info->width * info->height > max_pixels) {
        fail(error, imgtool_video_too_large, "too many pixels", 0);
        goto failed;
    }
    const char *refused = refusal(parameters->color_space, parameters->color_trc);
    if (refused) {
        fail(error, imgtool_video_unsupported, refused, 0);
        goto failed;
    }
    name(info->codec, sizeof info->codec, p_avcodec_get_name(parameters->codec_id));
    name(info->matrix, sizeof info->matrix, p_av_color_space_name(parameters->color_space));
    name(info->range, sizeof info->range, p_av_color_range_name(parameters->color_range));
    name(info->transfer, sizeof info->transfer, p_av_color_transfer_name(parameters->color_trc));
    name(info->primaries, sizeof info->primaries, p_av_color_primaries_name(parameters->color_primaries));

    size_t matrix_size = 0;
    const int32_t *matrix =
        (const int32_t *)p_av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &matrix_size);
    if (matrix && matrix_size >= 9 * sizeof(int32_t) &&
        (double)matrix[0] * matrix[4] - (double)matrix[1] * matrix[3] < 0) {
        // A mirroring matrix: av_display_rotation_get reads it as a rotation (a mirror left to
        // right as a half turn), so it is left unapplied, and said so.
        info->mirrored = 1;
    } else if (matrix && matrix_size >= 9 * sizeof(int32_t)) {
        // av_display_rotation_get gives the counter-clockwise angle; ffmpeg turns the frame back
        // clockwise by it, as players do.
        double degrees = -p_av_display_rotation_get(matrix);
        if (degrees == degrees) {
            long turns = lround(degrees / 90.0);
            info->quarter_turns = (int)(((turns % 4) + 4) % 4);
        }
    }

    // VP8 and VP9 alpha in WebM is a second stream in BlockAdditional data, which only libvpx's
    // decoders read (FFmpeg's own ignore it); the muxer marks such a track with alpha_mode 1.
    const AVCodec *codec = NULL;
    AVDictionaryEntry *alpha = p_av_dict_get(stream->metadata, "alpha_mode", NULL, 0);
    if (alpha && strcmp(alpha->value, "1") == 0 &&
        (parameters->codec_id == AV_CODEC_ID_VP9 || parameters->codec_id == AV_CODEC_ID_VP8)) {
        codec = p_avcodec_find_decoder_by_name(parameters->codec_id == AV_CODEC_ID_VP9 ? "libvpx-vp9" : "libvpx");
        info->has_alpha = codec != NULL;
    }
    if (!codec) codec = p_avcodec_find_decoder(parameters->codec_id);
    if (!codec) {
        fail(error, imgtool_video_unsupported, "libavcodec has no decoder for this codec", 0);
        goto failed;
    }
    if (!list_times(video, max_frames, info, error)) goto failed;
    if (video->count == 0) {
        fail(error, info->cut_short ? imgtool_video_truncated : imgtool_video_corrupt, "the video stream has no frames",
             0);
        goto failed;
    }
    // Decoding starts from a second pass over the file, the demuxer opened again.
    close_demuxer(&video->demuxer);
    if (!open_demuxer(&video->demuxer, data, size, container, error)) goto failed;
    format = video->demuxer.format;
    if (video->stream >= (int)format->nb_streams) {
        fail(error, imgtool_video_corrupt, "the container reads differently the second time", 0);
        goto failed;
    }
    parameters = format->streams[video->stream]->codecpar;
    video->decoder = p_avcodec_alloc_context3(codec);
    if (!video->decoder) {
        fail(error, imgtool_video_too_large, "out of memory", 0);
        goto failed;
    }
    status = p_avcodec_parameters_to_context(video->decoder, parameters);
    if (status >= 0) {
        video->decoder->max_pixels = max_pixels;
        video->decoder->thread_count = 1;
        status = p_avcodec_open2(video->decoder, codec, NULL);
    }
    if (status < 0) {
        fail(error, imgtool_video_unsupported, "cannot start the decoder", status);
        goto failed;
    }
    return video;
failed:
    imgtool_video_close(video);
    return NULL;
}

void imgtool_video_frame_time(const imgtool_video *video, int index, double *seconds, double *duration) {
    if (index < 0 || index >= video->count) {
        *seconds = 0;
        *duration = 0;
        return;
    }
    *seconds = video->times[index].seconds;
    *duration = video->times[index].duration;
}

// ---------------------------------------------------------------------------------------------
// YUV to RGB, in 16.16 fixed point: E'y and the colour differences from the coded levels, then
// R = Y + 2(1 - Kr) Cr, G = Y - 2Kb(1 - Kb)/Kg Cb - 2Kr(1 - Kr)/Kg Cr, B = Y + 2(1 - Kb) Cb.

static const char *refusal(enum AVColorSpace matrix, enum AVColorTransferCharacteristic transfer);

typedef struct {
    int32_t luma, red_cr, green_cb, green_cr, blue_cb;
    int offset, centre;
} conversion;

// The coefficients for samples of `bits` bits (8 to 16): the levels scale with 2^(bits - 8).
static conversion make_conversion(int bt709, int full_range, int bits) {
    double kr = bt709 ? 0.2126 : 0.299, kb = bt709 ? 0.0722 : 0.114, kg = 1 - kr - kb;
    double scale = (double)(1 << (bits - 8));
    double luma = (full_range ? 1.0 : 255.0 / 219.0) / scale, chroma = (full_range ? 1.0 : 255.0 / 224.0) / scale;
    conversion c;
    c.luma = (int32_t)lround(luma * 65536);
    c.red_cr = (int32_t)lround(2 * (1 - kr) * chroma * 65536);
    c.blue_cb = (int32_t)lround(2 * (1 - kb) * chroma * 65536);
    c.green_cb = (int32_t)lround(2 * kb * (1 - kb) / kg * chroma * 65536);
    c.green_cr = (int32_t)lround(2 * kr * (1 - kr) / kg * chroma * 65536);
    c.offset = full_range ? 0 : 16 << (bits - 8);
    c.centre = 128 << (bits - 8);
    return c;
}

static inline uint8_t clamp8(int32_t value) {
    value = (value + 32768) >> 16;
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

static inline void convert(const conversion *c, int y, int cb, int cr, uint8_t *out) {
    int32_t luma = (y - c->offset) * c->luma;
    cb -= c->centre;
    cr -= c->centre;
    out[0] = clamp8(luma + c->red_cr * cr);
    out[1] = clamp8(luma - c->green_cb * cb - c->green_cr * cr);
    out[2] = clamp8(luma + c->blue_cb * cb);
}

void imgtool_video_yuv_to_rgb(int y, int cb, int cr, int bt709, int full_range, uint8_t rgb[3]) {
    conversion c = make_conversion(bt709, full_range, 8);
    convert(&c, y, cb, cr, rgb);
}

static inline int sample(const uint8_t *row, int x, int wide) {
    return wide ? ((const uint16_t *)(const void *)row)[x] : row[x];
}

// Converts the decoded frame into `rgba`. Returns 0 with `error` filled for what it cannot show.
static int convert_frame(const AVFrame *frame, uint8_t *rgba, imgtool_video_error *error) {
    if (frame->format == AV_PIX_FMT_GBRP) {
        // RGB stored as planes (VP9 profile 1 with the identity matrix: lossless WebM): copied.
        for (int y = 0; y < frame->height; y++) {
            const uint8_t *g = frame->data[0] + (ptrdiff_t)y * frame->linesize[0];
            const uint8_t *b = frame->data[1] + (ptrdiff_t)y * frame->linesize[1];
            const uint8_t *r = frame->data[2] + (ptrdiff_t)y * frame->linesize[2];
            uint8_t *out = rgba + (size_t)y * (size_t)frame->width * 4;
            for (int x = 0; x < frame->width; x++, out += 4) {
                out[0] = r[x];
                out[1] = g[x];
                out[2] = b[x];
                out[3] = 255;
            }
        }
        return 1;
    }
    int shift_x = 1, shift_y = 1, bits = 8, alpha = 0, full_range = frame->color_range == AVCOL_RANGE_JPEG;
    switch (frame->format) {
    case AV_PIX_FMT_YUVJ420P: full_range = 1; break;
    case AV_PIX_FMT_YUV420P: break;
    case AV_PIX_FMT_YUVA420P: alpha = 1; break;
    case AV_PIX_FMT_YUVJ422P: full_range = 1; shift_y = 0; break;
    case AV_PIX_FMT_YUV422P: shift_y = 0; break;
    case AV_PIX_FMT_YUVJ444P: full_range = 1; shift_x = shift_y = 0; break;
    case AV_PIX_FMT_YUV444P: shift_x = shift_y = 0; break;
    case AV_PIX_FMT_YUV420P10LE: bits = 10; break;
    case AV_PIX_FMT_YUV422P10LE: bits = 10; shift_y = 0; break;
    case AV_PIX_FMT_YUV444P10LE: bits = 10; shift_x = shift_y = 0; break;
    default: {
        char what[128];
        const char *pixels = p_av_get_pix_fmt_name(frame->format);
        snprintf(what, sizeof what, "frames in %s are not supported (8- and 10-bit 4:2:0, 4:2:2 and 4:4:4, and 8-bit RGB planes are)",
                 pixels ? pixels : "an unknown pixel format");
        fail(error, imgtool_video_unsupported, what, 0);
        return 0;
    }
    }
    const char *refused = refusal(frame->colorspace, frame->color_trc);
    if (refused) {
        fail(error, imgtool_video_unsupported, refused, 0);
        return 0;
    }
    int bt709;
    switch (frame->colorspace) {
    case AVCOL_SPC_BT709: bt709 = 1; break;
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M:
    case AVCOL_SPC_FCC:
    case AVCOL_SPC_SMPTE240M:
    case AVCOL_SPC_UNSPECIFIED:
    case AVCOL_SPC_RESERVED: bt709 = 0; break;  // BT.601, as ffmpeg and libswscale take an untagged stream
    default: {
        char what[128];
        const char *matrix = p_av_color_space_name(frame->colorspace);
        snprintf(what, sizeof what, "frames in the %s colour matrix are not supported (BT.601 and BT.709 are)",
                 matrix ? matrix : "unknown");
        fail(error, imgtool_video_unsupported, what, 0);
        return 0;
    }
    }
    conversion c = make_conversion(bt709, full_range, bits);
    int width = frame->width, height = frame->height, wide = bits > 8;
    for (int y = 0; y < height; y++) {
        const uint8_t *luma = frame->data[0] + (ptrdiff_t)y * frame->linesize[0];
        const uint8_t *cb = frame->data[1] + (ptrdiff_t)(y >> shift_y) * frame->linesize[1];
        const uint8_t *cr = frame->data[2] + (ptrdiff_t)(y >> shift_y) * frame->linesize[2];
        const uint8_t *a = alpha ? frame->data[3] + (ptrdiff_t)y * frame->linesize[3] : NULL;
        uint8_t *out = rgba + (size_t)y * (size_t)width * 4;
        for (int x = 0; x < width; x++, out += 4) {
            convert(&c, sample(luma, x, wide), sample(cb, x >> shift_x, wide), sample(cr, x >> shift_x, wide), out);
            out[3] = a ? a[x] : 255;
        }
    }
    return 1;
}

// Decoding starts again from the first frame, the frames before `index` dropped as they come.
static int start_over(imgtool_video *video, int index, imgtool_video_error *error) {
    close_demuxer(&video->demuxer);
    memory_file file = video->demuxer.file;
    if (!open_demuxer(&video->demuxer, file.data, file.size, video->container, error)) return 0;
    p_avcodec_flush_buffers(video->decoder);
    video->sent = 0;
    video->sent_end = 0;
    video->skip_before = AV_NOPTS_VALUE;
    video->find_sent = 0;
    video->drop = index;
    return 1;
}

int imgtool_video_seek(imgtool_video *video, int index, int use_index, imgtool_video_error *error) {
    if (index <= 0 || video->count == 0) return 1;
    if (index >= video->count) index = video->count - 1;
    int64_t target = video->times[index].pts;
    // The key frame shown last at or before the target: the frames from it on in decode order
    // include the target, and none before it is needed (a closed group of pictures; an open
    // one's leading pictures come out before the target and are dropped).
    int key = -1;
    for (int k = 0; k < video->count; k++) {
        const packet_entry *entry = &video->packets[k];
        if (entry->key && entry->pts <= target && (key < 0 || entry->pts >= video->packets[key].pts)) key = k;
    }
    if (key > 0 && use_index) {
        // Through the container's index: MP4's sample table holds decode times, Matroska's cues
        // presentation times (the same for a key frame there).
        const packet_entry *entry = &video->packets[key];
        int64_t time = entry->dts != AV_NOPTS_VALUE ? entry->dts : entry->pts;
        if (p_av_seek_frame(video->demuxer.format, video->stream, time, AVSEEK_FLAG_BACKWARD) >= 0) {
            p_avcodec_flush_buffers(video->decoder);
            video->skip_before = target;
            video->seek_index = index;
            video->find_sent = 1;
            return 1;
        }
    }
    last_log[0] = 0;
    return start_over(video, index, error) ? 0 : -1;
}

int imgtool_video_next_frame(imgtool_video *video, uint8_t *rgba, int width, int height, imgtool_video_error *error) {
    last_log[0] = 0;
    for (;;) {
        int status = p_avcodec_receive_frame(video->decoder, video->frame);
        if (status == 0 && video->drop > 0) {
            video->drop--;
            p_av_frame_unref(video->frame);
            continue;
        }
        if (status == 0 && video->skip_before != AV_NOPTS_VALUE) {
            int64_t time = video->frame->pts != AV_NOPTS_VALUE ? video->frame->pts : video->frame->best_effort_timestamp;
            if (time != AV_NOPTS_VALUE && time < video->skip_before) {
                p_av_frame_unref(video->frame);
                continue;
            }
            // Past the target without meeting it (or no time to tell): the seek cannot be trusted,
            // so decoding starts again from the first frame.
            if (time != video->skip_before) {
                p_av_frame_unref(video->frame);
                if (!start_over(video, video->seek_index, error)) return -1;
                continue;
            }
            video->skip_before = AV_NOPTS_VALUE;
        }
        if (status == 0) {
            int done = 0;
            if (video->frame->width != width || video->frame->height != height) {
                char what[128];
                snprintf(what, sizeof what, "a frame is %dx%d where the stream declares %dx%d (size changes are not supported)",
                         video->frame->width, video->frame->height, width, height);
                fail(error, imgtool_video_unsupported, what, 0);
            } else {
                done = rgba ? convert_frame(video->frame, rgba, error) : 1;
            }
            p_av_frame_unref(video->frame);
            return done ? 1 : -1;
        }
        if (status == AVERROR_EOF) return 0;
        if (status != AVERROR(EAGAIN)) {
            fail(error, imgtool_video_corrupt, "cannot decode a frame", status);
            return -1;
        }
        if (video->sent_end) return 0;
        // The decoder wants the next packet of the stream (or the end, to drain its last frames).
        // The decoder is given the packets listed and no more: a damaged one after them would
        // fail the frames before it still in the decoder.
        for (;;) {
            status = video->sent < video->count ? p_av_read_frame(video->demuxer.format, video->packet) : AVERROR_EOF;
            if (status < 0) {
                video->sent_end = 1;
                status = p_avcodec_send_packet(video->decoder, NULL);
                break;
            }
            if (video->packet->stream_index != video->stream) {
                p_av_packet_unref(video->packet);
                continue;
            }
            if (video->find_sent) {
                // The first packet after a seek: the listed packets before it are not sent.
                video->find_sent = 0;
                int at = -1;
                for (int k = 0; k < video->count && at < 0; k++) {
                    if (video->packets[k].position == video->packet->pos && video->packet->pos >= 0) at = k;
                }
                if (at < 0) {
                    p_av_packet_unref(video->packet);
                    if (!start_over(video, video->seek_index, error)) return -1;
                    continue;
                }
                video->sent = at;
            }
            if (!(video->packet->flags & AV_PKT_FLAG_DISCARD)) video->sent++;
            status = p_avcodec_send_packet(video->decoder, video->packet);
            p_av_packet_unref(video->packet);
            break;
        }
        if (status < 0 && status != AVERROR(EAGAIN) && status != AVERROR_EOF) {
            fail(error, imgtool_video_corrupt, "cannot decode a frame", status);
            return -1;
        }
    }
}

// H.264 encoding for MP4 output, through libavcodec's libx264 encoder (see CVideo.h).
struct imgtool_h264 {
    AVCodecContext *encoder;
    AVFrame *frame;
    AVPacket *packet;
    int sent_end;
};

int imgtool_h264_available(void) {
    return imgtool_video_load(NULL) && p_avcodec_find_encoder_by_name("libx264") != NULL;
}

void imgtool_h264_close(imgtool_h264 *h264) {
    if (!h264) return;
    p_avcodec_free_context(&h264->encoder);
    p_av_frame_free(&h264->frame);
    p_av_packet_free(&h264->packet);
    free(h264);
}

imgtool_h264 *imgtool_h264_open(int width, int height, int crf, const char *preset, int threads, int fps,
                                imgtool_video_error *error) {
    last_log[0] = 0;
    const char *why = NULL;
    if (!imgtool_video_load(&why)) {
        fail(error, imgtool_video_unsupported, why, 0);
        return NULL;
    }
    const AVCodec *codec = p_avcodec_find_encoder_by_name("libx264");
    if (!codec) {
        fail(error, imgtool_video_unsupported, "the libavcodec loaded has no libx264 encoder", 0);
        return NULL;
    }
    imgtool_h264 *h264 = calloc(1, sizeof *h264);
    if (!h264 || !(h264->encoder = p_avcodec_alloc_context3(codec)) || !(h264->frame = p_av_frame_alloc()) ||
        !(h264->packet = p_av_packet_alloc())) {
        imgtool_h264_close(h264);
        fail(error, imgtool_video_unsupported, "out of memory for the H.264 encoder", 0);
        return NULL;
    }
    AVCodecContext *c = h264->encoder;
    c->width = width;
    c->height = height;
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    c->time_base = (AVRational){1, 1000};
    c->framerate = (AVRational){fps > 0 ? fps : 25, 1};
    c->max_b_frames = 0;
    c->thread_count = threads;
    c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    c->colorspace = AVCOL_SPC_BT709;
    c->color_primaries = AVCOL_PRI_BT709;
    c->color_trc = AVCOL_TRC_BT709;
    c->color_range = AVCOL_RANGE_MPEG;
    char value[16];
    snprintf(value, sizeof value, "%d", crf);
    p_av_opt_set(c->priv_data, "crf", value, 0);
    p_av_opt_set(c->priv_data, "preset", preset, 0);
    int status = p_avcodec_open2(c, codec, NULL);
    if (status < 0) {
        fail(error, imgtool_video_unsupported, "libx264 could not start", status);
        imgtool_h264_close(h264);
        return NULL;
    }
    h264->frame->format = AV_PIX_FMT_YUV420P;
    h264->frame->width = width;
    h264->frame->height = height;
    if ((status = p_av_frame_get_buffer(h264->frame, 0)) < 0) {
        fail(error, imgtool_video_unsupported, "out of memory for an H.264 frame", status);
        imgtool_h264_close(h264);
        return NULL;
    }
    return h264;
}

const uint8_t *imgtool_h264_extradata(const imgtool_h264 *h264, int *size) {
    *size = h264->encoder->extradata_size;
    return h264->encoder->extradata;
}

int imgtool_h264_frame(imgtool_h264 *h264, uint8_t *planes[3], int strides[3], imgtool_video_error *error) {
    int status = p_av_frame_make_writable(h264->frame);
    if (status < 0) {
        fail(error, imgtool_video_unsupported, "out of memory for an H.264 frame", status);
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        planes[i] = h264->frame->data[i];
        strides[i] = h264->frame->linesize[i];
    }
    return 1;
}

int imgtool_h264_send(imgtool_h264 *h264, int64_t pts, int end, imgtool_video_error *error) {
    last_log[0] = 0;
    int status;
    if (end) {
        if (h264->sent_end) return 1;
        h264->sent_end = 1;
        status = p_avcodec_send_frame(h264->encoder, NULL);
    } else {
        h264->frame->pts = pts;
        status = p_avcodec_send_frame(h264->encoder, h264->frame);
    }
    if (status < 0 && status != AVERROR_EOF) {
        fail(error, imgtool_video_corrupt, "libx264 could not encode a frame", status);
        return 0;
    }
    return 1;
}

int imgtool_h264_receive(imgtool_h264 *h264, uint8_t **data, int *size, int64_t *pts, int64_t *dts, int *key,
                         imgtool_video_error *error) {
    p_av_packet_unref(h264->packet);
    int status = p_avcodec_receive_packet(h264->encoder, h264->packet);
    if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return 0;
    if (status < 0) {
        fail(error, imgtool_video_corrupt, "libx264 could not encode a frame", status);
        return -1;
    }
    *data = h264->packet->data;
    *size = h264->packet->size;
    *pts = h264->packet->pts;
    *dts = h264->packet->dts;
    *key = (h264->packet->flags & AV_PKT_FLAG_KEY) != 0;
    return 1;
}
