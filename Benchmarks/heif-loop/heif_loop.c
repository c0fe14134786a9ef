// The plain C libheif loop that imgtool's HEIC decoder is measured against (scripts/bench
// formats). Reads the file into memory and decodes the primary image with libheif (1.15 on Debian
// 12, libde265 decoding) to interleaved 8-bit RGBA with libheif's default options, as imgtool
// asks for it. imgtool never links libheif (it loads it at run time: Debian's libheif pulls in
// the GPL x265 encoder); this benchmark binary is not shipped, so it links libheif directly.
//
//   cc -O2 -o heif_loop heif_loop.c -lheif && ./heif_loop photo.heic
#include <libheif/heif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: heif_loop FILE\n");
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

    struct heif_context *ctx = heif_context_alloc();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    struct heif_error error = heif_context_read_from_memory_without_copy(ctx, buf, (size_t)n, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(ctx, &handle);
    if (error.code == heif_error_Ok)
        error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL);
    if (error.code != heif_error_Ok) {
        fprintf(stderr, "%s: %s\n", argv[1], error.message);
        return 1;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    uint64_t sum = 0;
    for (int y = 0; y < height; y += 97) sum += plane[(size_t)y * stride + (size_t)(y % width) * 4];
    printf("1 frames, %dx%d, %llu\n", width, height, (unsigned long long)sum);
    heif_image_release(image);
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    free(buf);
    return 0;
}
