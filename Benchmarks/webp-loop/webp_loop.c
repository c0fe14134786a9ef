// The plain C libwebp loop that imgtool's WebP decoder is measured against (issue 20: "within
// 1.3x on one core, ahead on two"). Reads the file into memory and decodes every frame with
// libwebp's own WebPAnimDecoder (straight RGBA, the canvas each frame composited as players show
// it). With a second argument it also copies the canvas out per frame, as a frame reader hands
// out a frame; with a third it lets libwebp use its decoding thread (use_threads = 1).
//
//   cc -O2 -o webp_loop webp_loop.c -lwebpdemux -lwebp && ./webp_loop anim.webp copy
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/demux.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: webp_loop FILE [copy [threads]]\n");
        return 64;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n);
    if (fread(buf, 1, n, f) != (size_t)n) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);
    int copy = argc > 2, threads = argc > 3;

    WebPAnimDecoderOptions options;
    WebPAnimDecoderOptionsInit(&options);
    options.color_mode = MODE_RGBA;
    options.use_threads = threads;
    WebPData data = { buf, (size_t)n };
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&data, &options);
    if (!dec) { fprintf(stderr, "%s: WebPAnimDecoderNew failed\n", argv[1]); return 1; }
    WebPAnimInfo info;
    WebPAnimDecoderGetInfo(dec, &info);
    size_t bytes = (size_t)info.canvas_width * info.canvas_height * 4;
    uint8_t *out = malloc(bytes);
    uint64_t sum = 0;
    int frames = 0;
    while (WebPAnimDecoderHasMoreFrames(dec)) {
        uint8_t *canvas;
        int timestamp;
        if (!WebPAnimDecoderGetNext(dec, &canvas, &timestamp)) { fprintf(stderr, "frame %d failed\n", frames); return 1; }
        const uint8_t *shown = canvas;
        if (copy) { memcpy(out, canvas, bytes); shown = out; }
        sum += shown[((size_t)frames * 7919 * 4) % bytes];
        frames++;
    }
    WebPAnimDecoderDelete(dec);
    printf("%d frames, %llu\n", frames, (unsigned long long)sum);
    free(out);
    free(buf);
    return 0;
}
