// A plain C libpng program: the baseline imgtool's PNG speed is measured against.
//   png_baseline decode IN            decode to 8-bit RGBA (same transforms as imgtool), print a checksum
//   png_baseline encode IN OUT LEVEL STRATEGY   decode, then write 8-bit RGBA at a zlib level and
//                                     strategy (0 default, 1 filtered, 2 huffman, 3 rle), all filters
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *decode(const char *path, png_uint_32 *w, png_uint_32 *h) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "decode failed\n"); exit(1); }
    png_init_io(png, f);
    png_read_info(png, info);
    int color = png_get_color_type(png, info);
    png_set_expand(png);
    png_set_scale_16(png);
    if (!(color & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS)) png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    *w = png_get_image_width(png, info);
    *h = png_get_image_height(png, info);
    size_t stride = png_get_rowbytes(png, info);
    uint8_t *pixels = malloc(stride * *h);
    png_bytep *rows = malloc(sizeof(png_bytep) * *h);
    for (png_uint_32 y = 0; y < *h; y++) rows[y] = pixels + y * stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    fclose(f);
    return pixels;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: png_baseline decode IN | encode IN OUT LEVEL STRATEGY\n"); return 64; }
    png_uint_32 w, h;
    uint8_t *pixels = decode(argv[2], &w, &h);
    if (strcmp(argv[1], "decode") == 0) {
        uint64_t sum = 0;
        for (size_t i = 0; i < (size_t)w * h * 4; i += 4093) sum += pixels[i];
        printf("%ux%u %llu\n", w, h, (unsigned long long)sum);
        return 0;
    }
    if (argc < 6) return 64;
    FILE *out = fopen(argv[3], "wb");
    if (!out) { perror(argv[3]); return 1; }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "encode failed\n"); return 1; }
    png_init_io(png, out);
    png_set_compression_level(png, atoi(argv[4]));
    png_set_compression_strategy(png, atoi(argv[5]));
    png_set_filter(png, 0, PNG_ALL_FILTERS);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (png_uint_32 y = 0; y < h; y++) png_write_row(png, pixels + (size_t)y * w * 4);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(out);
    free(pixels);
    return 0;
}
