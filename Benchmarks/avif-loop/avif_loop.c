// The plain C libavif loop that imgtool's AVIF decoder is measured against (scripts/bench formats).
// Reads the file into memory, parses it with libavif (0.11.1 on Debian 12, dav1d decoding) and
// decodes every frame with avifDecoderNextImage (a still is one frame), each converted with
// avifImageYUVToRGB to straight 8-bit RGBA in one buffer, as imgtool's frame reader does. The
// second argument is the decoder's maxThreads (default 1: one thread).
//
//   cc -O2 -o avif_loop avif_loop.c -lavif && ./avif_loop photo.avif 2
#include <avif/avif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: avif_loop FILE [threads]\n");
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
    int threads = argc > 2 ? atoi(argv[2]) : 1;

    avifDecoder *dec = avifDecoderCreate();
    dec->maxThreads = threads < 1 ? 1 : threads;
    avifResult result = avifDecoderSetIOMemory(dec, buf, (size_t)n);
    if (result == AVIF_RESULT_OK) result = avifDecoderParse(dec);
    if (result != AVIF_RESULT_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], avifResultToString(result), dec->diag.error);
        return 1;
    }
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, dec->image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    avifRGBImageAllocatePixels(&rgb);
    uint64_t sum = 0;
    int frames = 0;
    while ((result = avifDecoderNextImage(dec)) == AVIF_RESULT_OK) {
        if (dec->image->width != rgb.width || dec->image->height != rgb.height) {
            fprintf(stderr, "frame %d changes size\n", frames);
            return 1;
        }
        if ((result = avifImageYUVToRGB(dec->image, &rgb)) != AVIF_RESULT_OK) {
            fprintf(stderr, "frame %d: %s\n", frames, avifResultToString(result));
            return 1;
        }
        size_t bytes = (size_t)rgb.rowBytes * rgb.height;
        sum += rgb.pixels[((size_t)frames * 7919 * 4) % bytes];
        frames++;
    }
    if (result != AVIF_RESULT_NO_IMAGES_REMAINING) {
        fprintf(stderr, "frame %d: %s (%s)\n", frames, avifResultToString(result), dec->diag.error);
        return 1;
    }
    printf("%d frames, %llu\n", frames, (unsigned long long)sum);
    avifRGBImageFreePixels(&rgb);
    avifDecoderDestroy(dec);
    free(buf);
    return 0;
}
