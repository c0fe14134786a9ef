// The two-thread JPEG pipeline: one thread runs libjpeg to planes (entropy decoding and the IDCT,
// `imgtool_jpeg_reader_read_planes`), the other upsamples the chroma and converts to RGBA, a row
// group behind. The second thread's work is what libjpeg-turbo does after the IDCT, done here the
// same way to the bit: its "fancy" (triangle) upsampling, h2v1 and h2v2, with the image's edge rows
// and columns repeated, and its YCbCr to RGB tables (jdcolor.c), written as the arithmetic that
// fills them. The tests compare every row with libjpeg's own pixels.
//
// No libjpeg call is made on the converting thread, so every setjmp stays in jpeg_shim.c's
// functions on the decoding thread.

#include "CLibJPEG.h"
#include "jpeg_pipeline_avx2.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct imgtool_jpeg_pipeline {
    imgtool_jpeg_reader *reader;
    imgtool_jpeg_planes planes;
    uint32_t groups;    // row groups in the image
    uint32_t slots;     // row groups the ring holds
    uint8_t *memory;    // the ring's planes
    uint8_t **rows;     // per slot: group_rows luma rows, then 8 Cb rows, then 8 Cr rows
    // The consumer's own rows: the chroma row above the current group (the last row of the one
    // before), and the upsampled chroma of one output row.
    uint8_t *above_cb, *above_cr;
    uint8_t *wide_cb, *wide_cr;
    int16_t *sums;

    // The two threads meet through `produced` and `consumed`. A thread that must wait says
    // until when (`*_wants`, 0 when it is not waiting) and sleeps on `changed`; the other wakes it
    // only once that is reached. The converting thread, the faster one, waits for a few groups at
    // a time: each wake-up costs the decoding thread a system call and the sleeper an
    // inter-processor interrupt (tens of microseconds in a virtual machine).
    pthread_mutex_t lock;
    pthread_cond_t changed;
    _Atomic uint32_t produced;  // groups in the ring or consumed
    _Atomic uint32_t consumed;  // groups turned into rows
    _Atomic uint32_t producer_wants;
    _Atomic uint32_t consumer_wants;
    _Atomic int failed;  // the decoding thread failed, or the converting thread gave up
    _Atomic int finished;  // the decoding thread has returned
};

// The converting thread waits until BATCH row groups past the one it needs are ready, so that it
// sleeps (and the decoding thread pays a wake-up) once every BATCH groups: it converts a group about
// four times as fast as libjpeg decodes one, so with the ring BATCH + 4 groups deep the decoding
// thread never waits for a slot. With 8 slots and batches of 4, a 4096x4096 4:2:0 image took 260
// context switches, about 0.7 ms of processor time (3 % of the decode); with these, 70. The ring
// of a large image is backed by a transparent huge page where the kernel gives one: one fault
// instead of a fault per 4 KiB page (190 faults for the 1.9 MiB ring of a 4096-wide image).
enum { SLOTS = 20, BATCH = 16, HUGE_PAGE = 2 << 20 };
_Static_assert(BATCH + 1 < SLOTS, "the converting thread waits for BATCH + 1 groups, which the ring must hold");

static size_t rows_per_slot(const imgtool_jpeg_planes *planes) { return planes->group_rows + 16; }

imgtool_jpeg_pipeline *imgtool_jpeg_pipeline_create(imgtool_jpeg_reader *reader, const imgtool_jpeg_planes *planes) {
    if (reader == NULL || planes == NULL || planes->width == 0 || planes->height == 0) return NULL;
    imgtool_jpeg_pipeline *pipe = calloc(1, sizeof *pipe);
    if (pipe == NULL) return NULL;
    pipe->reader = reader;
    pipe->planes = *planes;
    pipe->groups = (planes->height + planes->group_rows - 1) / planes->group_rows;
    pipe->slots = SLOTS;
    size_t slot_bytes = planes->group_rows * planes->luma_stride + 16 * planes->chroma_stride;
    size_t row_count = rows_per_slot(planes) * pipe->slots;
    size_t width = (size_t)planes->chroma_width * 2 + 16;
    size_t ring_bytes = slot_bytes * pipe->slots;
    if (ring_bytes >= HUGE_PAGE / 2) {
        size_t rounded = (ring_bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        pipe->memory = aligned_alloc(HUGE_PAGE, rounded);
        if (pipe->memory != NULL) madvise(pipe->memory, rounded, MADV_HUGEPAGE);
    } else {
        pipe->memory = malloc(ring_bytes);
    }
    pipe->rows = malloc(row_count * sizeof *pipe->rows);
    pipe->above_cb = malloc(planes->chroma_stride);
    pipe->above_cr = malloc(planes->chroma_stride);
    pipe->wide_cb = malloc(width);
    pipe->wide_cr = malloc(width);
    pipe->sums = malloc(((size_t)planes->chroma_width + 2) * sizeof *pipe->sums);
    if (pipe->memory == NULL || pipe->rows == NULL || pipe->above_cb == NULL || pipe->above_cr == NULL ||
        pipe->wide_cb == NULL || pipe->wide_cr == NULL || pipe->sums == NULL || pthread_mutex_init(&pipe->lock, NULL)) {
        free(pipe->memory), free(pipe->rows), free(pipe->above_cb), free(pipe->above_cr);
        free(pipe->wide_cb), free(pipe->wide_cr), free(pipe->sums), free(pipe);
        return NULL;
    }
    pthread_cond_init(&pipe->changed, NULL);
    atomic_init(&pipe->produced, 0);
    atomic_init(&pipe->consumed, 0);
    atomic_init(&pipe->producer_wants, 0);
    atomic_init(&pipe->consumer_wants, 0);
    atomic_init(&pipe->failed, 0);
    atomic_init(&pipe->finished, 0);
    for (uint32_t slot = 0; slot < pipe->slots; slot++) {
        uint8_t *at = pipe->memory + slot * slot_bytes;
        uint8_t **rows = pipe->rows + slot * rows_per_slot(planes);
        for (uint32_t row = 0; row < planes->group_rows; row++, at += planes->luma_stride) rows[row] = at;
        for (uint32_t row = 0; row < 16; row++, at += planes->chroma_stride) rows[planes->group_rows + row] = at;
    }
    return pipe;
}

void imgtool_jpeg_pipeline_destroy(imgtool_jpeg_pipeline *pipe) {
    if (pipe == NULL) return;
    pthread_cond_destroy(&pipe->changed);
    pthread_mutex_destroy(&pipe->lock);
    free(pipe->memory), free(pipe->rows), free(pipe->above_cb), free(pipe->above_cr);
    free(pipe->wide_cb), free(pipe->wide_cr), free(pipe->sums), free(pipe);
}

static uint8_t **slot_rows(const imgtool_jpeg_pipeline *pipe, uint32_t group) {
    return pipe->rows + (group % pipe->slots) * rows_per_slot(&pipe->planes);
}

// Sleeps until `*counter` reaches `target` or the pipeline fails or ends; `*wants` tells the
// other thread what to wake this one for.
static void wait_for(imgtool_jpeg_pipeline *pipe, _Atomic uint32_t *counter, _Atomic uint32_t *wants,
                     uint32_t target) {
    pthread_mutex_lock(&pipe->lock);
    atomic_store(wants, target);
    while (atomic_load(counter) < target && !atomic_load(&pipe->failed) && !atomic_load(&pipe->finished)) {
        pthread_cond_wait(&pipe->changed, &pipe->lock);
    }
    atomic_store(wants, 0);
    pthread_mutex_unlock(&pipe->lock);
}

// Wakes the other thread when what it waits for has come.
static void advance(imgtool_jpeg_pipeline *pipe, _Atomic uint32_t *counter, _Atomic uint32_t *wants, uint32_t value) {
    atomic_store(counter, value);
    uint32_t wanted = atomic_load(wants);
    if (wanted != 0 && value >= wanted) {
        pthread_mutex_lock(&pipe->lock);
        pthread_cond_broadcast(&pipe->changed);
        pthread_mutex_unlock(&pipe->lock);
    }
}

static void wake_all(imgtool_jpeg_pipeline *pipe) {
    pthread_mutex_lock(&pipe->lock);
    pthread_cond_broadcast(&pipe->changed);
    pthread_mutex_unlock(&pipe->lock);
}

imgtool_jpeg_status imgtool_jpeg_pipeline_produce(imgtool_jpeg_pipeline *pipe) {
    imgtool_jpeg_status status = IMGTOOL_JPEG_OK;
    for (uint32_t group = 0; group < pipe->groups && status == IMGTOOL_JPEG_OK; group++) {
        // The slot is free once the group `slots` before this one is consumed.
        if (group >= pipe->slots && atomic_load(&pipe->consumed) < group - pipe->slots + 1) {
            wait_for(pipe, &pipe->consumed, &pipe->producer_wants, group - pipe->slots + 1);
        }
        if (atomic_load(&pipe->failed)) return IMGTOOL_JPEG_MISUSE;
        uint8_t **rows = slot_rows(pipe, group);
        status = imgtool_jpeg_reader_read_planes(pipe->reader, rows, rows + pipe->planes.group_rows,
                                                 rows + pipe->planes.group_rows + 8);
        if (status == IMGTOOL_JPEG_OK) advance(pipe, &pipe->produced, &pipe->consumer_wants, group + 1);
    }
    if (status == IMGTOOL_JPEG_OK) status = imgtool_jpeg_reader_finish(pipe->reader);
    if (status != IMGTOOL_JPEG_OK) atomic_store(&pipe->failed, 1);
    atomic_store(&pipe->finished, 1);
    wake_all(pipe);
    return status;
}

void imgtool_jpeg_pipeline_abandon(imgtool_jpeg_pipeline *pipe) {
    atomic_store(&pipe->failed, 1);
    wake_all(pipe);
}

// MARK: - Upsampling and colour conversion

// libjpeg-turbo's h2v1_fancy_upsample: each chroma sample makes two, 3/4 of it and 1/4 of the
// neighbour on that side, the first rounded down (+1) and the second up (+2); the edge samples
// repeat. `wide` gets 2 x `width` samples.
static void upsample_h2v1(const uint8_t *in, uint32_t width, uint8_t *wide) {
    wide[0] = in[0];
    wide[1] = (uint8_t)((in[0] * 3 + in[1] + 2) >> 2);
    for (uint32_t x = 1; x + 1 < width; x++) {
        int three = in[x] * 3;
        wide[2 * x] = (uint8_t)((three + in[x - 1] + 1) >> 2);
        wide[2 * x + 1] = (uint8_t)((three + in[x + 1] + 2) >> 2);
    }
    uint32_t last = width - 1;
    wide[2 * last] = (uint8_t)((in[last] * 3 + in[last - 1] + 1) >> 2);
    wide[2 * last + 1] = in[last];
}

// libjpeg-turbo's h2v2_fancy_upsample for one output row: the column sums 3 x nearer + farther
// chroma row, then across as h2v1 with weights summing to 16 (+8 and +7 for the rounding); the
// edge columns repeat. `sums` has room for `width` + 2 (one before and one after the row).
static void upsample_h2v2(const uint8_t *near, const uint8_t *far, uint32_t width, int16_t *sums, uint8_t *wide) {
    int16_t *sum = sums + 1;
    uint32_t x = 0;
#if defined(__x86_64__)
    int avx512 = __builtin_cpu_supports("avx512bw"), avx2 = __builtin_cpu_supports("avx2");
    if (avx512) x = imgtool_column_sums_avx512(near, far, width, sum);
    if (avx2) x += imgtool_column_sums_avx2(near + x, far + x, width - x, sum + x);
#endif
    for (; x < width; x++) sum[x] = (int16_t)(near[x] * 3 + far[x]);
    sum[-1] = sum[0];
    sum[width] = sum[width - 1];
    x = 0;
#if defined(__x86_64__)
    if (avx512) x = imgtool_upsample_h2v2_avx512(sum, width, wide);
    if (avx2) x += imgtool_upsample_h2v2_avx2(sum + x, width - x, wide + 2 * x);
#endif
    for (; x < width; x++) {
        int three = sum[x] * 3;
        wide[2 * x] = (uint8_t)((three + sum[x - 1] + 8) >> 4);
        wide[2 * x + 1] = (uint8_t)((three + sum[x + 1] + 7) >> 4);
    }
}

// jdcolor.c's ycc_rgb_convert to RGBA: its tables hold, for x = sample - 128 and 16 fraction bits,
// R: (FIX(1.40200) x + 1/2) >> 16; B: (FIX(1.77200) x + 1/2) >> 16; G: (-FIX(0.34414) x_b + 1/2
// - FIX(0.71414) x_r) >> 16 (the two terms summed before the shift); then clamped to 0-255.
static void ycc_to_rgba(const uint8_t *luma, const uint8_t *cb, const uint8_t *cr, uint32_t width, uint8_t *out) {
    uint32_t x = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi")) {
        x = imgtool_ycc_to_rgba_avx512(luma, cb, cr, width, out);
    }
    if (__builtin_cpu_supports("avx2")) x += imgtool_ycc_to_rgba_avx2(luma + x, cb + x, cr + x, width - x, out + 4 * x);
#endif
    for (; x < width; x++) {
        int y = luma[x], b = cb[x] - 128, r = cr[x] - 128;
        int red = y + ((91881 * r + 32768) >> 16);
        int green = y + ((-22554 * b + 32768 - 46802 * r) >> 16);
        int blue = y + ((116130 * b + 32768) >> 16);
        out[4 * x] = (uint8_t)(red < 0 ? 0 : red > 255 ? 255 : red);
        out[4 * x + 1] = (uint8_t)(green < 0 ? 0 : green > 255 ? 255 : green);
        out[4 * x + 2] = (uint8_t)(blue < 0 ? 0 : blue > 255 ? 255 : blue);
        out[4 * x + 3] = 255;
    }
}

long imgtool_jpeg_pipeline_next_rows(imgtool_jpeg_pipeline *pipe, uint8_t *dst, ptrdiff_t stride) {
    const imgtool_jpeg_planes *planes = &pipe->planes;
    uint32_t group = atomic_load(&pipe->consumed);
    if (group >= pipe->groups) return 0;
    // The group, and for 4:2:0 the next one's first chroma row (the row below this group's last).
    uint32_t needed = planes->luma_v == 2 && group + 1 < pipe->groups ? group + 2 : group + 1;
    if (atomic_load(&pipe->produced) < needed) {
        uint32_t batch = needed + BATCH - 1 < pipe->groups ? needed + BATCH - 1 : pipe->groups;
        wait_for(pipe, &pipe->produced, &pipe->consumer_wants, batch);
    }
    if (atomic_load(&pipe->failed) || atomic_load(&pipe->produced) < needed) return -1;

    uint8_t **rows = slot_rows(pipe, group);
    uint8_t **cb = rows + planes->group_rows, **cr = cb + 8;
    uint32_t first = group * planes->group_rows;
    uint32_t count = planes->height - first < planes->group_rows ? planes->height - first : planes->group_rows;
    uint32_t cw = planes->chroma_width;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *out = dst + (ptrdiff_t)i * stride;
        const uint8_t *row_cb, *row_cr;
        if (planes->luma_h == 1) {
            row_cb = cb[i];
            row_cr = cr[i];
        } else if (planes->luma_v == 1) {
            upsample_h2v1(cb[i], cw, pipe->wide_cb);
            upsample_h2v1(cr[i], cw, pipe->wide_cr);
            row_cb = pipe->wide_cb;
            row_cr = pipe->wide_cr;
        } else {
            uint32_t j = i / 2, chroma_row = group * 8 + j;
            const uint8_t *far_cb, *far_cr;
            if (i % 2 == 0) {  // the upper row of the pair leans on the chroma row above
                far_cb = chroma_row == 0 ? cb[j] : j == 0 ? pipe->above_cb : cb[j - 1];
                far_cr = chroma_row == 0 ? cr[j] : j == 0 ? pipe->above_cr : cr[j - 1];
            } else if (chroma_row + 1 >= planes->chroma_height) {  // the image's last chroma row repeats
                far_cb = cb[j];
                far_cr = cr[j];
            } else if (j == 7) {
                uint8_t **next = slot_rows(pipe, group + 1);
                far_cb = next[planes->group_rows];
                far_cr = next[planes->group_rows + 8];
            } else {
                far_cb = cb[j + 1];
                far_cr = cr[j + 1];
            }
            upsample_h2v2(cb[j], far_cb, cw, pipe->sums, pipe->wide_cb);
            upsample_h2v2(cr[j], far_cr, cw, pipe->sums, pipe->wide_cr);
            row_cb = pipe->wide_cb;
            row_cr = pipe->wide_cr;
        }
        ycc_to_rgba(rows[i], row_cb, row_cr, planes->width, out);
    }
    if (planes->luma_v == 2) {
        memcpy(pipe->above_cb, cb[7], cw);
        memcpy(pipe->above_cr, cr[7], cw);
    }
    advance(pipe, &pipe->consumed, &pipe->producer_wants, group + 1);
    return (long)count;
}
