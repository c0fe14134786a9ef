// CVideo: libavformat and libavcodec (FFmpeg), loaded at run time when a video is read.
//
// Debian 12 builds FFmpeg with --enable-gpl (x264, x265): linking it would change imgtool's
// licence. So nothing links it: the first video input loads libavformat.so.59 and
// libavcodec.so.59 with dlopen (`apt-get install libavformat59 libavcodec59`), and these
// functions call through the pointers found, typed by FFmpeg's own headers (libavformat-dev,
// libavcodec-dev and libavutil-dev are needed to build, not to run). Every FFmpeg pointer stays
// here: Swift gets sizes, timestamps and RGBA samples, converted from YUV here with the matrix
// and range each frame declares.
#ifndef CVIDEO_H
#define CVIDEO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libavformat and libavcodec (once; later calls return the first result). Returns 1 when
/// every function needed was found, 0 otherwise, with `*error` (if given) pointing at a static
/// message saying what to install. IMGTOOL_LIBAVFORMAT and IMGTOOL_LIBAVCODEC name other files.
int imgtool_video_load(const char **error);

/// "libavformat 59.27.100, libavcodec 59.37.100", or NULL when not loaded.
const char *imgtool_video_versions(void);

typedef struct imgtool_video imgtool_video;

/// What went wrong: a kind and a message (FFmpeg's own last error line after ours, when it gave one).
typedef enum {
    imgtool_video_unsupported = 1,
    imgtool_video_corrupt = 2,
    imgtool_video_truncated = 3,
    imgtool_video_too_large = 4,
} imgtool_video_error_kind;

typedef struct {
    int kind;
    char message[320];
} imgtool_video_error;

/// What the container and the stream header declare, before any frame is converted.
typedef struct {
    /// The coded size (before the rotation).
    int width, height;
    /// Clockwise quarter turns (0 to 3) that the container's display matrix asks for.
    int quarter_turns;
    /// Whether the display matrix mirrors the picture (then left unapplied, quarter_turns 0).
    int mirrored;
    /// Whether the stream has alpha that is decoded (VP8/VP9 in WebM, `alpha_mode` 1).
    int has_alpha;
    /// Frames listed by the demuxer (packets of the video stream that are shown).
    int frame_count;
    /// Whether the demuxer stopped on damage or a cut before the end.
    int cut_short;
    /// Names for messages: the container ("mov,mp4,m4a,3gp,3g2,mj2"), the codec ("h264"),
    /// the colour as declared ("bt709", "tv").
    char container[48];
    char codec[24];
    char matrix[24];
    char range[8];
    char transfer[24];
    char primaries[24];
} imgtool_video_info;

/// Parses the container in `size` bytes at `data` (not copied: they must outlive the handle) with
/// libavformat's demuxer named `container` alone ("mov", "matroska"),
/// finds the best video stream, checks `width * height` against `max_pixels` before any frame is
/// decoded, lists the shown frames' timestamps (stopping past `max_frames`: frame_count is then
/// max_frames + 1), then makes the decoder ready. NULL on failure, `error` filled.
imgtool_video *imgtool_video_open(
    const uint8_t *data, size_t size, const char *container, int64_t max_pixels, int max_frames, imgtool_video_info *info,
    imgtool_video_error *error);
void imgtool_video_close(imgtool_video *video);

/// Frame `index`'s presentation time in seconds (sorted: frames come out of the decoder in this
/// order), and its duration as the container gives it (0 when it gives none).
void imgtool_video_frame_time(const imgtool_video *video, int index, double *seconds, double *duration);

/// Decodes the next frame into `rgba` (`width * height` pixels, the coded size, straight alpha,
/// 255 without alpha), or passes over it unconverted when `rgba` is NULL. Returns 1 for a frame,
/// 0 at the end, -1 on an error (`error` filled).
int imgtool_video_next_frame(imgtool_video *video, uint8_t *rgba, int width, int height, imgtool_video_error *error);

/// Makes the next imgtool_video_next_frame return frame `index` (of the listed frames, in
/// presentation order), before any frame was decoded. The demuxer seeks through the container's
/// index (MP4's sample table, WebM's cues) to the key frame shown last at or before the frame,
/// and the frames decoded before it are dropped without being converted. When that cannot be
/// trusted (no key frame before it, a seek that fails or lands past the frame, a packet the
/// listing does not know), decoding starts from the first frame and drops the frames before
/// `index`; `use_index` 0 takes that way at once (tests). Returns 1 after a seek, 0 when decoding
/// starts from the first frame, -1 on an error (`error` filled).
int imgtool_video_seek(imgtool_video *video, int index, int use_index, imgtool_video_error *error);

/// H.264 encoding for MP4 output through libavcodec's libx264 encoder (GPL, so loaded as the
/// decoders are, never linked): 8-bit 4:2:0, BT.709 limited range in the VUI, no B-frames (each
/// packet's decoding time is its presentation time), the SPS and PPS in the extradata (Annex B),
/// packets in Annex B.
typedef struct imgtool_h264 imgtool_h264;

/// Whether libavcodec loads and has the libx264 encoder.
int imgtool_h264_available(void);

/// Starts an encoder of `width` x `height` (even) at constant rate factor `crf` (0-51) with x264's
/// `preset`, `threads` threads, timestamps in milliseconds, `fps` the average rate (for the
/// level and rate control). NULL with `error` filled on failure.
imgtool_h264 *imgtool_h264_open(int width, int height, int crf, const char *preset, int threads, int fps,
                                imgtool_video_error *error);
void imgtool_h264_close(imgtool_h264 *h264);

/// The SPS and PPS NAL units, Annex B (start codes).
const uint8_t *imgtool_h264_extradata(const imgtool_h264 *h264, int *size);

/// The planes of the next frame to fill (Y, Cb, Cr) and their strides. Returns 1, or 0 with `error`.
int imgtool_h264_frame(imgtool_h264 *h264, uint8_t *planes[3], int strides[3], imgtool_video_error *error);

/// Sends the frame filled through `imgtool_h264_frame`, shown at `pts` ms; `end` 1 sends the end
/// instead. Returns 1, or 0 with `error`.
int imgtool_h264_send(imgtool_h264 *h264, int64_t pts, int end, imgtool_video_error *error);

/// The next packet (valid until the next call): 1, 0 when the encoder wants more frames or has
/// ended, -1 with `error`.
int imgtool_h264_receive(imgtool_h264 *h264, uint8_t **data, int *size, int64_t *pts, int64_t *dts, int *key,
                         imgtool_video_error *error);

/// The YUV to RGB step on its own (tests): one 8-bit sample triple to RGB with `bt709` (else
/// BT.601) coefficients and `full_range` (else limited) levels.
void imgtool_video_yuv_to_rgb(int y, int cb, int cr, int bt709, int full_range, uint8_t rgb[3]);

#ifdef __cplusplus
}
#endif

#endif
