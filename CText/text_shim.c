// FreeType, HarfBuzz, FriBidi and fontconfig through dlopen: see include/CText.h for why. The
// headers give the types and prototypes; each function used is called through a pointer found
// with dlsym, declared with __typeof__ of the header's own declaration so that the compiler checks
// every call against the real prototype.
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H
#include <fontconfig/fontconfig.h>
#include <fribidi/fribidi.h>
#include <harfbuzz/hb.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "CText.h"

#define FREETYPE_FUNCTIONS(X)                                                                                     \
    X(FT_Init_FreeType) X(FT_Done_FreeType) X(FT_New_Memory_Face) X(FT_Done_Face) X(FT_Set_Char_Size)             \
    X(FT_Select_Size) X(FT_Load_Glyph) X(FT_Get_Glyph) X(FT_Done_Glyph) X(FT_Glyph_Transform) X(FT_Glyph_Stroke) \
    X(FT_Glyph_Get_CBox)                                                                                          \
    X(FT_Glyph_To_Bitmap) X(FT_Stroker_New) X(FT_Stroker_Set) X(FT_Stroker_Done)
#define HARFBUZZ_FUNCTIONS(X)                                                                                    \
    X(hb_blob_create) X(hb_blob_destroy) X(hb_face_create) X(hb_face_destroy) X(hb_font_create)                  \
    X(hb_font_destroy) X(hb_font_set_scale) X(hb_font_get_nominal_glyph) X(hb_font_get_h_extents)                \
    X(hb_buffer_create) X(hb_buffer_destroy) X(hb_buffer_clear_contents) X(hb_buffer_add_codepoints)             \
    X(hb_buffer_set_direction) X(hb_buffer_set_script) X(hb_buffer_set_language) X(hb_language_get_default)     \
    X(hb_buffer_set_flags) X(hb_buffer_allocation_successful) X(hb_buffer_get_glyph_infos)                       \
    X(hb_buffer_get_glyph_positions) X(hb_buffer_guess_segment_properties) X(hb_shape)                           \
    X(hb_unicode_funcs_get_default) X(hb_unicode_script)
#define FRIBIDI_FUNCTIONS(X) \
    X(fribidi_get_bidi_types) X(fribidi_get_bracket_types) X(fribidi_get_par_embedding_levels_ex)
#define FONTCONFIG_FUNCTIONS(X)                                                                                 \
    X(FcInitLoadConfigAndFonts) X(FcNameParse) X(FcConfigSubstitute) X(FcDefaultSubstitute) X(FcFontMatch)      \
    X(FcPatternGetString) X(FcPatternGetInteger) X(FcPatternGetCharSet) X(FcPatternDestroy) X(FcPatternCreate) \
    X(FcPatternAddCharSet) X(FcPatternAddBool) X(FcCharSetCreate) X(FcCharSetAddChar) X(FcCharSetDestroy)      \
    X(FcCharSetHasChar)

#define DECLARE(name) __typeof__(&name) name;
static struct {
    FREETYPE_FUNCTIONS(DECLARE)
    HARFBUZZ_FUNCTIONS(DECLARE)
    FRIBIDI_FUNCTIONS(DECLARE)
} api;
static struct {
    FONTCONFIG_FUNCTIONS(DECLARE)
} fc;
#undef DECLARE

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_succeeded;
static char load_error[512];

// Loads `soname` and finds each name in `names`, storing the pointers in order from `slots`.
static int load_library(const char *soname, const char *package, const char *const *names, void **slots, int count,
                        char *error, size_t error_size) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(error, error_size, "%s is not installed (apt-get install %s): %s", soname, package, dlerror());
        return 0;
    }
    for (int i = 0; i < count; i++) {
        slots[i] = dlsym(handle, names[i]);
        if (slots[i] == NULL) {
            snprintf(error, error_size, "%s has no %s (too old?)", soname, names[i]);
            return 0;
        }
    }
    return 1;
}

#define NAME(name) #name,
#define SLOT(name) (void *)&api.name,
#define FC_SLOT(name) (void *)&fc.name,

// Fills a pointer table member by member: `slots` holds the address of each member.
static int load_group(const char *soname, const char *package, const char *const *names, void *const *members,
                      int count) {
    void *found[64];
    if (count > 64) return 0;
    if (!load_library(soname, package, names, found, count, load_error, sizeof load_error)) return 0;
    for (int i = 0; i < count; i++) memcpy(members[i], &found[i], sizeof(void *));
    return 1;
}

static void load_all(void) {
    static const char *const freetype_names[] = {FREETYPE_FUNCTIONS(NAME)};
    void *const freetype_slots[] = {FREETYPE_FUNCTIONS(SLOT)};
    static const char *const harfbuzz_names[] = {HARFBUZZ_FUNCTIONS(NAME)};
    void *const harfbuzz_slots[] = {HARFBUZZ_FUNCTIONS(SLOT)};
    static const char *const fribidi_names[] = {FRIBIDI_FUNCTIONS(NAME)};
    void *const fribidi_slots[] = {FRIBIDI_FUNCTIONS(SLOT)};
#define COUNT(array) (int)(sizeof(array) / sizeof(array[0]))
    load_succeeded =
        load_group("libfreetype.so.6", "libfreetype6", freetype_names, freetype_slots, COUNT(freetype_names)) &&
        load_group("libharfbuzz.so.0", "libharfbuzz0b", harfbuzz_names, harfbuzz_slots, COUNT(harfbuzz_names)) &&
        load_group("libfribidi.so.0", "libfribidi0", fribidi_names, fribidi_slots, COUNT(fribidi_names));
}

int imgtool_text_load(const char **error) {
    pthread_once(&load_once, load_all);
    if (!load_succeeded && error != NULL) *error = load_error;
    return load_succeeded;
}

struct imgtool_text_font {
    FT_Library library;
    FT_Face face;
    uint8_t *bytes;
    hb_blob_t *blob;
    hb_face_t *hb_face;
    hb_font_t *hb_font;
    hb_buffer_t *buffer;
    FT_Glyph rendered;   // the glyph last rendered, which owns the bitmap handed out
    uint8_t *mono;       // a 1-bit bitmap widened to coverage
    int color;           // colour bitmaps only (CBDT, sbix)
    double bitmap_scale; // strike size to the size asked for
    double pixels;       // the size asked for
};

// FreeType's error text when it was built with it, else its number.
static void freetype_error(FT_Error code, const char *what, char *error, size_t error_size) {
    snprintf(error, error_size, "FreeType: %s failed (error 0x%02X)", what, (unsigned)code);
}

imgtool_text_font *imgtool_text_font_open(const uint8_t *bytes, size_t count, int index, char *error,
                                          size_t error_size) {
    if (!imgtool_text_load(NULL)) {
        snprintf(error, error_size, "%s", load_error);
        return NULL;
    }
    if (count == 0 || count > (size_t)INT32_MAX) {
        snprintf(error, error_size, "not a font file (%zu bytes)", count);
        return NULL;
    }
    imgtool_text_font *font = calloc(1, sizeof *font);
    if (font == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    font->bitmap_scale = 1;
    font->bytes = malloc(count);
    if (font->bytes == NULL) {
        snprintf(error, error_size, "out of memory for %zu bytes", count);
        imgtool_text_font_close(font);
        return NULL;
    }
    memcpy(font->bytes, bytes, count);
    FT_Error status = api.FT_Init_FreeType(&font->library);
    if (status != 0) {
        freetype_error(status, "FT_Init_FreeType", error, error_size);
        imgtool_text_font_close(font);
        return NULL;
    }
    status = api.FT_New_Memory_Face(font->library, font->bytes, (FT_Long)count, index, &font->face);
    if (status != 0) {
        font->face = NULL;
        snprintf(error, error_size, "not a font FreeType can read (error 0x%02X)", (unsigned)status);
        imgtool_text_font_close(font);
        return NULL;
    }
    int scalable = FT_IS_SCALABLE(font->face);
    font->color = FT_HAS_COLOR(font->face) && !scalable ? 1 : 0;
    if (!scalable && !(FT_HAS_FIXED_SIZES(font->face) && font->face->num_fixed_sizes > 0)) {
        snprintf(error, error_size, "the font has neither outlines nor bitmap sizes");
        imgtool_text_font_close(font);
        return NULL;
    }
    // HarfBuzz reads the same bytes (FreeType's copy, which outlives both).
    font->blob = api.hb_blob_create((const char *)font->bytes, (unsigned)count, HB_MEMORY_MODE_READONLY, NULL, NULL);
    font->hb_face = api.hb_face_create(font->blob, (unsigned)index);
    font->hb_font = api.hb_font_create(font->hb_face);
    font->buffer = api.hb_buffer_create();
    if (!api.hb_buffer_allocation_successful(font->buffer)) {
        snprintf(error, error_size, "HarfBuzz ran out of memory");
        imgtool_text_font_close(font);
        return NULL;
    }
    return font;
}

void imgtool_text_font_close(imgtool_text_font *font) {
    if (font == NULL) return;
    if (font->rendered != NULL) api.FT_Done_Glyph(font->rendered);
    if (font->buffer != NULL) api.hb_buffer_destroy(font->buffer);
    if (font->hb_font != NULL) api.hb_font_destroy(font->hb_font);
    if (font->hb_face != NULL) api.hb_face_destroy(font->hb_face);
    if (font->blob != NULL) api.hb_blob_destroy(font->blob);
    if (font->face != NULL) api.FT_Done_Face(font->face);
    if (font->library != NULL) api.FT_Done_FreeType(font->library);
    free(font->mono);
    free(font->bytes);
    free(font);
}

int imgtool_text_font_set_size(imgtool_text_font *font, double pixels, char *error, size_t error_size) {
    if (!(pixels >= 1 && pixels <= 100000)) {
        snprintf(error, error_size, "size %g px is out of range", pixels);
        return 0;
    }
    int scale = (int)(pixels * 64 + 0.5);
    font->pixels = pixels;
    api.hb_font_set_scale(font->hb_font, scale, scale);
    if (FT_IS_SCALABLE(font->face)) {
        FT_Error status = api.FT_Set_Char_Size(font->face, 0, scale, 72, 72);
        if (status != 0) {
            freetype_error(status, "FT_Set_Char_Size", error, error_size);
            return 0;
        }
        font->bitmap_scale = 1;
        return 1;
    }
    // Bitmap strikes: the largest, scaled down (or up) to the size.
    int best = 0;
    for (int i = 1; i < font->face->num_fixed_sizes; i++) {
        if (font->face->available_sizes[i].y_ppem > font->face->available_sizes[best].y_ppem) best = i;
    }
    FT_Error status = api.FT_Select_Size(font->face, best);
    if (status != 0) {
        freetype_error(status, "FT_Select_Size", error, error_size);
        return 0;
    }
    double strike = font->face->available_sizes[best].y_ppem / 64.0;
    if (!(strike >= 1)) {
        snprintf(error, error_size, "the font's bitmap size %g px is not usable", strike);
        return 0;
    }
    font->bitmap_scale = pixels / strike;
    return 1;
}

double imgtool_text_font_bitmap_scale(const imgtool_text_font *font) { return font->bitmap_scale; }

int imgtool_text_font_is_color(const imgtool_text_font *font) { return font->color; }

uint32_t imgtool_text_font_glyph(const imgtool_text_font *font, uint32_t codepoint) {
    hb_codepoint_t glyph = 0;
    if (!api.hb_font_get_nominal_glyph(font->hb_font, codepoint, &glyph)) return 0;
    return glyph;
}

const char *imgtool_text_font_family(const imgtool_text_font *font) {
    return font->face->family_name != NULL ? font->face->family_name : "";
}

void imgtool_text_font_extents(const imgtool_text_font *font, int32_t *ascender, int32_t *descender,
                               int32_t *line_gap) {
    hb_font_extents_t extents;
    memset(&extents, 0, sizeof extents);
    api.hb_font_get_h_extents(font->hb_font, &extents);
    *ascender = extents.ascender;
    *descender = extents.descender;
    *line_gap = extents.line_gap;
}

void imgtool_text_font_bounds(const imgtool_text_font *font, int32_t *x_min, int32_t *y_min, int32_t *x_max,
                              int32_t *y_max) {
    const FT_Face face = font->face;
    double scale = 0;
    if (FT_IS_SCALABLE(face) && face->units_per_EM > 0) {
        scale = (double)face->size->metrics.x_ppem * 64 / face->units_per_EM;
        if (face->size->metrics.x_scale > 0) scale = face->size->metrics.x_scale / 65536.0;
    } else {
        // Bitmap strikes (colour emoji): the bitmaps are about an em square on the baseline; a
        // generous box around that, as their font box is often missing.
        double em = font->pixels * 64;
        *x_min = (int32_t)(-em / 2);
        *y_min = (int32_t)(-em);
        *x_max = (int32_t)(em * 2);
        *y_max = (int32_t)(em * 2);
        return;
    }
    // Limited to 8 em either way: a damaged font's box must not make the caption huge.
    double em = face->units_per_EM > 0 ? face->units_per_EM * 8.0 : 0;
#define CLAMPED(v) ((v) < -em ? -em : (v) > em ? em : (v))
    *x_min = (int32_t)(CLAMPED((double)face->bbox.xMin) * scale);
    *y_min = (int32_t)(CLAMPED((double)face->bbox.yMin) * scale);
    *x_max = (int32_t)(CLAMPED((double)face->bbox.xMax) * scale);
    *y_max = (int32_t)(CLAMPED((double)face->bbox.yMax) * scale);
#undef CLAMPED
}

int imgtool_text_font_shape(imgtool_text_font *font, const uint32_t *text, int count, int start, int length, int rtl,
                            uint32_t script) {
    if (count < 0 || start < 0 || length < 0 || start > count || length > count - start) return -1;
    hb_buffer_t *buffer = font->buffer;
    api.hb_buffer_clear_contents(buffer);
    api.hb_buffer_add_codepoints(buffer, text, count, (unsigned)start, length);
    api.hb_buffer_set_direction(buffer, rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
    unsigned flags = HB_BUFFER_FLAG_DEFAULT;
    if (start == 0) flags |= HB_BUFFER_FLAG_BOT;
    if (start + length == count) flags |= HB_BUFFER_FLAG_EOT;
    api.hb_buffer_set_flags(buffer, (hb_buffer_flags_t)flags);
    if (script != 0) {
        api.hb_buffer_set_script(buffer, (hb_script_t)script);
        api.hb_buffer_set_language(buffer, api.hb_language_get_default());
    }
    api.hb_buffer_guess_segment_properties(buffer);
    if (!api.hb_buffer_allocation_successful(buffer)) return -1;
    api.hb_shape(font->hb_font, buffer, NULL, 0);
    if (!api.hb_buffer_allocation_successful(buffer)) return -1;
    unsigned glyphs = 0;
    api.hb_buffer_get_glyph_infos(buffer, &glyphs);
    return glyphs > (unsigned)INT32_MAX ? -1 : (int)glyphs;
}

void imgtool_text_font_copy_glyphs(const imgtool_text_font *font, imgtool_text_glyph *out, int capacity) {
    unsigned count = 0;
    hb_glyph_info_t *infos = api.hb_buffer_get_glyph_infos(font->buffer, &count);
    hb_glyph_position_t *positions = api.hb_buffer_get_glyph_positions(font->buffer, NULL);
    for (unsigned i = 0; i < count && (int)i < capacity; i++) {
        out[i].glyph = infos[i].codepoint;
        out[i].cluster = infos[i].cluster;
        out[i].x_advance = positions[i].x_advance;
        out[i].y_advance = positions[i].y_advance;
        out[i].x_offset = positions[i].x_offset;
        out[i].y_offset = positions[i].y_offset;
    }
}

int imgtool_text_font_render(imgtool_text_font *font, uint32_t glyph, int32_t x_fraction, int32_t y_fraction,
                             int32_t stroke_radius, imgtool_text_bitmap *out, char *error, size_t error_size) {
    if (font->rendered != NULL) {
        api.FT_Done_Glyph(font->rendered);
        font->rendered = NULL;
    }
    // Unhinted, so that the shapes sit where HarfBuzz's unhinted advances put them.
    FT_Int32 flags = font->color ? FT_LOAD_COLOR : (FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP);
    FT_Error status = api.FT_Load_Glyph(font->face, glyph, flags);
    if (status != 0) {
        freetype_error(status, "FT_Load_Glyph", error, error_size);
        return 0;
    }
    FT_Glyph image = NULL;
    status = api.FT_Get_Glyph(font->face->glyph, &image);
    if (status != 0) {
        freetype_error(status, "FT_Get_Glyph", error, error_size);
        return 0;
    }
    if (image->format == FT_GLYPH_FORMAT_OUTLINE) {
        FT_Vector delta = {x_fraction & 63, -(y_fraction & 63)};
        api.FT_Glyph_Transform(image, NULL, &delta);
        if (stroke_radius > 0) {
            FT_Stroker stroker = NULL;
            status = api.FT_Stroker_New(font->library, &stroker);
            if (status != 0) {
                api.FT_Done_Glyph(image);
                freetype_error(status, "FT_Stroker_New", error, error_size);
                return 0;
            }
            api.FT_Stroker_Set(stroker, stroke_radius, FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0);
            status = api.FT_Glyph_Stroke(&image, stroker, 1);
            api.FT_Stroker_Done(stroker);
            if (status != 0) {
                if (image != NULL) api.FT_Done_Glyph(image);
                freetype_error(status, "FT_Glyph_Stroke", error, error_size);
                return 0;
            }
        }
        // A damaged font's outline may reach far outside its em: refused before FreeType allocates
        // a bitmap for it (up to 65535 px a side), beyond 8 em and the stroke either way.
        FT_BBox box;
        api.FT_Glyph_Get_CBox(image, FT_GLYPH_BBOX_PIXELS, &box);
        double reach = font->pixels * 8 + stroke_radius / 64.0 * 2 + 2;
        if ((double)box.xMax - box.xMin > reach || (double)box.yMax - box.yMin > reach) {
            api.FT_Done_Glyph(image);
            snprintf(error, error_size, "glyph %u is %ldx%ld px, far larger than its em (a damaged font?)", glyph,
                     (long)(box.xMax - box.xMin), (long)(box.yMax - box.yMin));
            return 0;
        }
        status = api.FT_Glyph_To_Bitmap(&image, FT_RENDER_MODE_NORMAL, NULL, 1);
        if (status != 0) {
            api.FT_Done_Glyph(image);
            freetype_error(status, "FT_Glyph_To_Bitmap", error, error_size);
            return 0;
        }
    }
    if (image->format != FT_GLYPH_FORMAT_BITMAP) {
        api.FT_Done_Glyph(image);
        snprintf(error, error_size, "glyph %u is neither an outline nor a bitmap", glyph);
        return 0;
    }
    font->rendered = image;
    FT_BitmapGlyph bitmap = (FT_BitmapGlyph)image;
    const FT_Bitmap *map = &bitmap->bitmap;
    out->left = bitmap->left;
    out->top = bitmap->top;
    out->width = (int32_t)map->width;
    out->height = (int32_t)map->rows;
    out->color = 0;
    switch (map->pixel_mode) {
    case FT_PIXEL_MODE_GRAY:
        if (map->num_grays != 256) break;
        out->pitch = map->pitch;
        out->pixels = map->buffer;
        if (map->pitch < 0) {
            snprintf(error, error_size, "glyph %u's bitmap runs upwards", glyph);
            return 0;
        }
        return 1;
    case FT_PIXEL_MODE_BGRA:
        out->pitch = map->pitch;
        out->pixels = map->buffer;
        out->color = 1;
        if (map->pitch < 0) {
            snprintf(error, error_size, "glyph %u's bitmap runs upwards", glyph);
            return 0;
        }
        return 1;
    case FT_PIXEL_MODE_MONO: {
        // One bit per pixel (a bitmap strike without grey levels): widened to 0 or 255.
        free(font->mono);
        size_t size = (size_t)map->width * map->rows;
        font->mono = malloc(size > 0 ? size : 1);
        if (font->mono == NULL || map->pitch < 0) {
            snprintf(error, error_size, "glyph %u's bitmap cannot be read", glyph);
            return 0;
        }
        for (unsigned y = 0; y < map->rows; y++) {
            for (unsigned x = 0; x < map->width; x++) {
                int bit = (map->buffer[y * (unsigned)map->pitch + x / 8] >> (7 - x % 8)) & 1;
                font->mono[(size_t)y * map->width + x] = bit ? 255 : 0;
            }
        }
        out->pitch = (int32_t)map->width;
        out->pixels = font->mono;
        return 1;
    }
    default: break;
    }
    snprintf(error, error_size, "glyph %u has a bitmap of an unsupported kind (%d)", glyph, map->pixel_mode);
    return 0;
}

uint32_t imgtool_text_script(uint32_t codepoint) {
    if (!imgtool_text_load(NULL)) return 0;
    return (uint32_t)api.hb_unicode_script(api.hb_unicode_funcs_get_default(), codepoint);
}

int imgtool_text_bidi_levels(const uint32_t *text, int count, uint8_t *levels) {
    if (!imgtool_text_load(NULL) || count < 0) return -1;
    if (count == 0) return 0;
    FriBidiCharType *types = malloc((size_t)count * sizeof *types);
    FriBidiBracketType *brackets = malloc((size_t)count * sizeof *brackets);
    FriBidiLevel *found = malloc((size_t)count * sizeof *found);
    int result = -1;
    if (types != NULL && brackets != NULL && found != NULL) {
        api.fribidi_get_bidi_types(text, count, types);
        api.fribidi_get_bracket_types(text, count, types, brackets);
        FriBidiParType direction = FRIBIDI_PAR_ON;
        if (api.fribidi_get_par_embedding_levels_ex(types, brackets, count, &direction, found) != 0) {
            for (int i = 0; i < count; i++) levels[i] = (uint8_t)found[i];
            result = FRIBIDI_IS_RTL(direction) ? 1 : 0;
        }
    }
    free(types);
    free(brackets);
    free(found);
    return result;
}

// fontconfig: loaded on the first family name; one configuration for the process, its calls
// made under one lock.
static pthread_once_t fontconfig_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t fontconfig_lock = PTHREAD_MUTEX_INITIALIZER;
static FcConfig *fontconfig_config;

static void load_fontconfig(void) {
    static const char *const names[] = {FONTCONFIG_FUNCTIONS(NAME)};
    void *const slots[] = {FONTCONFIG_FUNCTIONS(FC_SLOT)};
    void *found[64];
    char error[256];
    if (!load_library("libfontconfig.so.1", "libfontconfig1", names, found, COUNT(names), error, sizeof error))
        return;
    for (int i = 0; i < COUNT(names); i++) memcpy(slots[i], &found[i], sizeof(void *));
    fontconfig_config = fc.FcInitLoadConfigAndFonts();
}

int imgtool_text_fontconfig_load(void) {
    pthread_once(&fontconfig_once, load_fontconfig);
    return fontconfig_config != NULL;
}

// Copies the file and index of fontconfig's best match for `pattern` (consumed); 1 when it has
// a file, and when `codepoint` is not 0, that character.
static int best_match(FcPattern *pattern, const char *family, uint32_t codepoint, char *path, size_t path_size,
                      int *index) {
    fc.FcConfigSubstitute(fontconfig_config, pattern, FcMatchPattern);
    fc.FcDefaultSubstitute(pattern);
    FcResult result = FcResultNoMatch;
    FcPattern *match = fc.FcFontMatch(fontconfig_config, pattern, &result);
    fc.FcPatternDestroy(pattern);
    if (match == NULL) return 0;
    int found = 0;
    FcChar8 *file = NULL;
    if (fc.FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch && strlen((const char *)file) < path_size) {
        found = 1;
        if (family != NULL) {
            // fontconfig always answers with something: the family asked for must be one of its names.
            found = 0;
            FcChar8 *name = NULL;
            for (int i = 0; fc.FcPatternGetString(match, FC_FAMILY, i, &name) == FcResultMatch; i++) {
                if (strcasecmp((const char *)name, family) == 0) found = 1;
            }
        }
        if (codepoint != 0) {
            FcCharSet *set = NULL;
            found = fc.FcPatternGetCharSet(match, FC_CHARSET, 0, &set) == FcResultMatch &&
                    fc.FcCharSetHasChar(set, codepoint);
        }
        if (found) {
            snprintf(path, path_size, "%s", (const char *)file);
            int face = 0;
            if (fc.FcPatternGetInteger(match, FC_INDEX, 0, &face) != FcResultMatch) face = 0;
            *index = face;
        }
    }
    fc.FcPatternDestroy(match);
    return found;
}

int imgtool_text_fontconfig_family(const char *family, char *path, size_t path_size, int *index) {
    if (!imgtool_text_fontconfig_load()) return -1;
    pthread_mutex_lock(&fontconfig_lock);
    int found = 0;
    FcPattern *pattern = fc.FcNameParse((const FcChar8 *)family);
    if (pattern != NULL) {
        // The family part of the pattern ("Noto Sans" of "Noto Sans:bold").
        char name[256];
        snprintf(name, sizeof name, "%s", family);
        char *colon = strchr(name, ':');
        if (colon != NULL) *colon = '\0';
        found = best_match(pattern, name, 0, path, path_size, index);
    }
    pthread_mutex_unlock(&fontconfig_lock);
    return found;
}

int imgtool_text_fontconfig_covering(uint32_t codepoint, int color, char *path, size_t path_size, int *index) {
    if (!imgtool_text_fontconfig_load()) return -1;
    pthread_mutex_lock(&fontconfig_lock);
    int found = 0;
    FcPattern *pattern = fc.FcPatternCreate();
    FcCharSet *set = fc.FcCharSetCreate();
    if (pattern != NULL && set != NULL && fc.FcCharSetAddChar(set, codepoint) &&
        fc.FcPatternAddCharSet(pattern, FC_CHARSET, set)) {
        if (color) fc.FcPatternAddBool(pattern, FC_COLOR, FcTrue);
        found = best_match(pattern, NULL, codepoint, path, path_size, index);
        pattern = NULL;
    }
    if (pattern != NULL) fc.FcPatternDestroy(pattern);
    if (set != NULL) fc.FcCharSetDestroy(set);
    pthread_mutex_unlock(&fontconfig_lock);
    return found;
}
