// The plain C giflib loop that imgtool's GIF decoder is measured against (issue 4: "within 1.3x").
// Reads the file into memory, walks the records with DGifGetRecordType, decodes each frame with
// DGifGetLine and composes it on one RGBA canvas with the same rules as GIFFrameReader (transparent
// index untouched, disposal 2 clears, 3 restores, clipping). With a second argument it also copies
// the canvas out per frame, as a frame reader hands out a frame.
//
//   cc -O2 -o giflib_loop giflib_loop.c -lgif && ./giflib_loop anim.gif copy
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef struct { const unsigned char *p; size_t n, off; } Mem;
static int rd(GifFileType *g, GifByteType *b, int len) { Mem *m = g->UserData; size_t a = m->n - m->off; if ((size_t)len < a) a = len; memcpy(b, m->p + m->off, a); m->off += a; return (int)a; }
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(n); fread(buf, 1, n, f); fclose(f);
  int copy = argc > 2;
  Mem m = { buf, n, 0 }; int err;
  GifFileType *g = DGifOpen(&m, rd, &err);
  int W = g->SWidth, H = g->SHeight;
  uint32_t *canvas = calloc((size_t)W * H, 4), *out = malloc((size_t)W * H * 4), *saved = malloc((size_t)W*H*4);
  unsigned char *line = malloc(65536);
  int disposal = 0, trans = -1, frames = 0; int pd = 0, px=0, py=0, pw=0, ph=0;
  uint64_t sum = 0; GifRecordType t;
  do {
    if (DGifGetRecordType(g, &t) == GIF_ERROR) break;
    if (t == EXTENSION_RECORD_TYPE) {
      int code; GifByteType *e; DGifGetExtension(g, &code, &e);
      if (code == 0xF9 && e && e[0] >= 4) { disposal = (e[1] >> 2) & 7; trans = (e[1] & 1) ? e[4] : -1; }
      while (e) DGifGetExtensionNext(g, &e);
    } else if (t == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageHeader(g) == GIF_ERROR) break;
      if (pd == 2) for (int y = py; y < py+ph; y++) memset(canvas + (size_t)y*W + px, 0, pw*4);
      if (pd == 3) for (int y = 0; y < ph; y++) memcpy(canvas + (size_t)(py+y)*W + px, saved + (size_t)y*pw, pw*4);
      int L = g->Image.Left, T = g->Image.Top, w = g->Image.Width, h = g->Image.Height;
      int cx0 = L < W ? L : W, cy0 = T < H ? T : H, cx1 = L+w < W ? L+w : W, cy1 = T+h < H ? T+h : H;
      if (disposal == 3) for (int y = cy0; y < cy1; y++) memcpy(saved + (size_t)(y-cy0)*(cx1-cx0), canvas + (size_t)y*W + cx0, (cx1-cx0)*4);
      ColorMapObject *cm = g->Image.ColorMap ? g->Image.ColorMap : g->SColorMap;
      uint32_t lut[256]; for (int i = 0; i < 256; i++) lut[i] = 0xFF000000u;
      if (cm) for (int i = 0; i < cm->ColorCount && i < 256; i++) lut[i] = cm->Colors[i].Red | cm->Colors[i].Green << 8 | cm->Colors[i].Blue << 16 | 0xFF000000u;
      static const int st[4] = {0,4,2,1}, sp[4] = {8,8,4,2};
      int passes = g->Image.Interlace ? 4 : 1;
      for (int p = 0; p < passes; p++) for (int r = passes == 1 ? 0 : st[p]; r < h; r += passes == 1 ? 1 : sp[p]) {
        if (DGifGetLine(g, line, w) == GIF_ERROR) { fprintf(stderr, "err %d\n", g->Error); return 1; }
        int y = T + r; if (y < cy0 || y >= cy1) continue;
        uint32_t *d = canvas + (size_t)y*W + cx0; unsigned char *s = line + (cx0 - L);
        for (int x = 0; x < cx1 - cx0; x++) if (s[x] != trans) d[x] = lut[s[x]];
      }
      pd = disposal; px = cx0; py = cy0; pw = cx1-cx0; ph = cy1-cy0; disposal = 0; trans = -1;
      if (copy) { memcpy(out, canvas, (size_t)W*H*4); sum += out[(frames * 7919) % (W*H)]; } else sum += canvas[(frames*7919)%(W*H)];
      frames++;
    }
  } while (t != TERMINATE_RECORD_TYPE);
  DGifCloseFile(g, &err);
  printf("%d frames, %llu\n", frames, (unsigned long long)sum);
  return 0;
}
