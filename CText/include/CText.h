// CText: the text step's fonts, shaping and glyph rendering (`convert --text`).
//
// FreeType (FTL) opens fonts and renders glyphs (outlines, their FT_Stroker strokes, and colour
// bitmaps such as Noto Color Emoji's CBDT), HarfBuzz (MIT) shapes, FriBidi (LGPL-2.1+) finds the
// embedding levels of mixed-direction text, and fontconfig (MIT-style) matches family names. All
// four report errors by return value, never by longjmp. None is linked: text_shim.c loads
// libfreetype.so.6, libharfbuzz.so.0 and libfribidi.so.0 with dlopen on the first --text (about
// 2 ms of every process otherwise: HarfBuzz brings glib and graphite2), and libfontconfig.so.1 only
// when a family name is looked up, so a machine without fontconfig still draws with font files.
// Every pointer into these libraries stays in text_shim.c: Swift gets numbers and pixel rows.
#ifndef CTEXT_H
#define CTEXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads FreeType, HarfBuzz and FriBidi (once; later calls return the first result). Returns 1
/// when every function needed was found, 0 otherwise, with `*error` (if given) pointing at a
/// static message that names the missing library and its Debian package.
int imgtool_text_load(const char **error);

/// One font face, its FreeType library, its HarfBuzz font and the glyph last rendered. Used by one
/// thread at a time.
typedef struct imgtool_text_font imgtool_text_font;

/// Opens face `index` of the font file in `bytes` (copied). NULL on failure, with FreeType's or
/// HarfBuzz's reason in `error`.
imgtool_text_font *imgtool_text_font_open(
    const uint8_t *bytes, size_t count, int index, char *error, size_t error_size);

/// Frees everything the font holds.
void imgtool_text_font_close(imgtool_text_font *font);

/// Sets the size, in pixels per em: scalable fonts are scaled to it; a font of fixed bitmap
/// strikes only (colour emoji) selects its largest strike, and its bitmaps are then drawn scaled
/// by imgtool_text_font_bitmap_scale. Returns 1, or 0 with the reason in `error`.
int imgtool_text_font_set_size(imgtool_text_font *font, double pixels, char *error, size_t error_size);

/// How much the font's bitmaps are to be scaled to have the size set (1 for outline fonts).
double imgtool_text_font_bitmap_scale(const imgtool_text_font *font);

/// Whether the font's glyphs are colour bitmaps (BGRA).
int imgtool_text_font_is_color(const imgtool_text_font *font);

/// The glyph the font maps `codepoint` to, 0 when it has none (HarfBuzz's cmap lookup).
uint32_t imgtool_text_font_glyph(const imgtool_text_font *font, uint32_t codepoint);

/// The font's family name (FreeType's), or "" when it has none.
const char *imgtool_text_font_family(const imgtool_text_font *font);

/// Ascender (up, positive), descender (down, negative) and line gap at the size set, in 1/64 px.
void imgtool_text_font_extents(
    const imgtool_text_font *font, int32_t *ascender, int32_t *descender, int32_t *line_gap);

/// The box every glyph of the font fits in (the font's own bounding box), at the size set, in
/// 1/64 px from the pen, y up.
void imgtool_text_font_bounds(
    const imgtool_text_font *font, int32_t *x_min, int32_t *y_min, int32_t *x_max, int32_t *y_max);

/// One glyph as HarfBuzz shapes it: the glyph index, the index of the first code point of its
/// cluster in the whole text, and its advance and offset in 1/64 px (y up, as HarfBuzz gives it).
typedef struct {
    uint32_t glyph;
    uint32_t cluster;
    int32_t x_advance;
    int32_t y_advance;
    int32_t x_offset;
    int32_t y_offset;
} imgtool_text_glyph;

/// Shapes code points `start ..< start + length` of `text` (`count` code points, the rest being
/// context for joining) right to left when `rtl` is 1, in ISO 15924 script `script` (HarfBuzz's
/// hb_script_t tag, 0 to let HarfBuzz guess). Returns the number of glyphs, which stay in the font
/// until the next call (imgtool_text_font_copy_glyphs copies them), or -1 when HarfBuzz ran out of
/// memory.
int imgtool_text_font_shape(
    imgtool_text_font *font, const uint32_t *text, int count, int start, int length, int rtl, uint32_t script);

/// Copies up to `capacity` glyphs of the last shaping into `out`, in visual order (right-to-left
/// runs come reversed, as HarfBuzz leaves them).
void imgtool_text_font_copy_glyphs(const imgtool_text_font *font, imgtool_text_glyph *out, int capacity);

/// A rendered glyph: `width` x `height` pixels, rows `pitch` bytes apart, its top-left pixel
/// `left` px right of and `top` px above the pen position. One byte of coverage per pixel, or
/// four (B, G, R, A premultiplied) when `color` is 1. Valid until the font renders again.
typedef struct {
    int32_t left;
    int32_t top;
    int32_t width;
    int32_t height;
    int32_t pitch;
    int32_t color;
    const uint8_t *pixels;
} imgtool_text_bitmap;

/// Renders glyph `glyph` with the pen `x_fraction` and `y_fraction` 1/64 px (0...63) right of and
/// below a whole pixel: its filled shape, or with `stroke_radius` > 0 (1/64 px) the band that
/// many pixels either side of its outline (FT_Stroker, round joins). Colour bitmaps are given as
/// they are stored (no stroke, no fraction). Returns 1, or 0 with FreeType's reason in `error`.
int imgtool_text_font_render(
    imgtool_text_font *font, uint32_t glyph, int32_t x_fraction, int32_t y_fraction, int32_t stroke_radius,
    imgtool_text_bitmap *out, char *error, size_t error_size);

/// The HarfBuzz script (hb_script_t, an ISO 15924 tag) of a code point: Zyyy (common) and Zinh
/// (inherited) for those that take their neighbours'.
uint32_t imgtool_text_script(uint32_t codepoint);

/// FriBidi's embedding levels of `count` code points making one paragraph (rule P2-P3 finds its
/// direction from its first strong character), one per code point into `levels`. Returns the
/// paragraph's level (0 left to right, 1 right to left), or -1 when FriBidi failed.
int imgtool_text_bidi_levels(const uint32_t *text, int count, uint8_t *levels);

/// Loads fontconfig (once). 1 when it is there, 0 otherwise.
int imgtool_text_fontconfig_load(void);

/// The file and face index fontconfig matches for family `family` (a fontconfig pattern such as
/// "DejaVu Sans" or "Noto Sans:bold"). Returns 1 when a font of that family is installed (its
/// path copied into `path`), 0 when fontconfig's best match has another family, -1 without
/// fontconfig.
int imgtool_text_fontconfig_family(const char *family, char *path, size_t path_size, int *index);

/// The file and face index of an installed font that has `codepoint` (fontconfig's best match
/// for a pattern of that one character). 1 when found, 0 when no installed font has it, -1
/// without fontconfig.
int imgtool_text_fontconfig_covering(uint32_t codepoint, int color, char *path, size_t path_size, int *index);

#ifdef __cplusplus
}
#endif

#endif
