// The plain C libjxl loop that imgtool's JPEG XL decoder is measured against (scripts/bench
// formats). Reads the file into memory and decodes every frame with libjxl (0.7 on Debian 12) to
// straight 8-bit RGBA in one buffer (frames coalesced, orientation applied, alpha un-premultiplied:
// libjxl's defaults plus what imgtool asks for). The second argument is the number of threads:
// 2 by default, on libjxl's JxlThreadParallelRunner; 1 runs without a runner, on the caller's
// thread, as imgtool does on one core.
//
//   cc -O2 -o jxl_loop jxl_loop.c -ljxl -ljxl_threads && ./jxl_loop photo.jxl 2
#include <jxl/decode.h>
#include <jxl/thread_parallel_runner.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: jxl_loop FILE [threads]\n");
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
    int threads = argc > 2 ? atoi(argv[2]) : 2;

    JxlDecoder *dec = JxlDecoderCreate(NULL);
    void *runner = threads > 1 ? JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    if (runner && JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner) != JXL_DEC_SUCCESS) {
        fprintf(stderr, "JxlDecoderSetParallelRunner failed\n");
        return 1;
    }
    if (JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(dec, buf, (size_t)n) != JXL_DEC_SUCCESS) {
        fprintf(stderr, "decoder settings refused\n");
        return 1;
    }
    JxlDecoderCloseInput(dec);
    JxlPixelFormat format = { 4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0 };
    uint8_t *pixels = NULL;
    size_t bytes = 0;
    uint64_t sum = 0;
    int frames = 0;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(dec);
        if (status == JXL_DEC_SUCCESS) break;
        if (status == JXL_DEC_ERROR || status == JXL_DEC_NEED_MORE_INPUT) {
            fprintf(stderr, "%s: libjxl cannot decode frame %d\n", argv[1], frames);
            return 1;
        }
        if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            if (!pixels) {
                if (JxlDecoderImageOutBufferSize(dec, &format, &bytes) != JXL_DEC_SUCCESS) return 1;
                pixels = malloc(bytes);
            }
            if (JxlDecoderSetImageOutBuffer(dec, &format, pixels, bytes) != JXL_DEC_SUCCESS) return 1;
        } else if (status == JXL_DEC_FULL_IMAGE) {
            sum += pixels[((size_t)frames * 7919 * 4) % bytes];
            frames++;
        }
    }
    printf("%d frames, %llu\n", frames, (unsigned long long)sum);
    JxlDecoderDestroy(dec);
    if (runner) JxlThreadParallelRunnerDestroy(runner);
    free(pixels);
    free(buf);
    return 0;
}
