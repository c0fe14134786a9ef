// imgtool's GIF LZW encoder: greedy longest match, one hash probe per pixel.
//
// The dictionary is an open-addressed hash of (prefix code, next index) pairs: each slot holds
// `key << 12 | code` with `key = prefix << 8 | index` (20 bits), all ones when empty, so a
// probe is one load and one compare. Codes are packed least significant bit first into a
// 64-bit buffer and written straight into the sub-blocks.
#include "CGif.h"

#include <math.h>
#include <string.h>

enum { SLOTS = 1 << 13, EMPTY = 0xFFFFFFFFu };

size_t imgtool_gif_lzw_encoded_capacity(size_t count) {
    // At most one code per index, plus a clear code per 4093 codes, the first clear and the
    // end code, each at most 12 bits; one length byte per 255 data bytes; code size byte,
    // terminator and slack for the last partial byte.
    const size_t codes = count + count / 4093 + 4;
    const size_t packed = (codes * 12 + 7) / 8;
    return packed + packed / 255 + 8;
}

typedef struct {
    uint8_t *out;
    size_t block_start;  // where the current sub-block's length byte is
    size_t block_used;   // its data bytes so far; the length byte is written when it is closed
    uint64_t bits;
    int bit_count;
} Writer;

// The sub-block's length is counted here rather than in the length byte: a count kept in the
// output would be stored and loaded again for every byte, one chain of dependent memory
// accesses through the whole image.
static inline void put_byte(Writer *w, uint8_t byte) {
    w->out[w->block_start + 1 + w->block_used] = byte;
    if (++w->block_used == 255) {
        w->out[w->block_start] = 255;
        w->block_start += 256;
        w->block_used = 0;
    }
}

static inline void emit(Writer *w, uint32_t code, int width) {
    w->bits |= (uint64_t)code << w->bit_count;
    w->bit_count += width;
    while (w->bit_count >= 8) {
        put_byte(w, (uint8_t)w->bits);
        w->bits >>= 8;
        w->bit_count -= 8;
    }
}

// Looks up the code of `prefix` followed by `index`; returns it, or -1 with `*slot` at the
// empty slot where it would go.
static inline int32_t find(const uint32_t *slots, uint32_t prefix, uint32_t index, uint32_t *slot) {
    const uint32_t key = prefix << 8 | index;
    uint32_t at = ((key * 0x9E3779B1u) >> 19) & (SLOTS - 1);
    uint32_t entry;
    while ((entry = slots[at]) != EMPTY) {
        if (entry >> 12 == key) return (int32_t)(entry & 0xFFF);
        at = (at + 1) & (SLOTS - 1);
    }
    *slot = at;
    return -1;
}

// How often, in pixels, a frozen table's recent rate is compared with its generation's.
enum { CHECK_PIXELS = 1024 };

// The code table between codes, as the greedy and the flexible coder share it: its entries, the
// next code and the code width, and what the deferred clear measures (bits written and pixels
// coded since the table was last started, its generation, and at the last check of a full table).
typedef struct {
    uint32_t slots[SLOTS];
    uint32_t clear;
    uint32_t next_code;
    int minimum_code_size;
    int width;
    int defer_clear;
    int tables_filled;
    uint64_t bits_written, generation_bits, check_bits;
    size_t generation_start, check_start;
    double generation_rate;  // bits per pixel of the generation when its table filled
} Table;

enum { NO_SLOT = SLOTS };

// Writes the minimum code size and the first clear code, and empties the table.
static void table_start(Table *t, Writer *w, int minimum_code_size, int defer_clear) {
    memset(t->slots, 0xFF, sizeof t->slots);
    t->clear = 1u << minimum_code_size;
    t->next_code = t->clear + 2;
    t->minimum_code_size = minimum_code_size;
    t->width = minimum_code_size + 1;
    t->defer_clear = defer_clear;
    t->tables_filled = 0;
    w->out[0] = (uint8_t)minimum_code_size;
    emit(w, t->clear, t->width);
    t->bits_written = (uint64_t)t->width;
    t->generation_bits = t->bits_written;
    t->check_bits = 0;
    t->generation_start = 0;
    t->check_start = 0;
    t->generation_rate = 0;
}

// Emits `code`, after which the decoder adds the entry `code` then `next` (the next string's first
// value): at `slot`, the empty slot `find` gave for it, or nowhere (NO_SLOT) when the table holds
// that string already (the decoder's entry repeats it). With the table full, clears it or
// (deferring) keeps it while its recent codes cost no more bits a pixel than its generation's.
// `position`: the pixels coded so far.
__attribute__((always_inline)) static inline void emit_and_grow(Table *t, Writer *w, uint32_t code, uint32_t next, uint32_t slot, size_t position) {
    emit(w, code, t->width);
    t->bits_written += (uint64_t)t->width;
    if (t->next_code < 4096) {
        if (slot != NO_SLOT) t->slots[slot] = (code << 8 | next) << 12 | t->next_code;
        t->next_code += 1;
        if (t->next_code > (1u << t->width) && t->width < 12) t->width += 1;
        if (t->next_code == 4096) {
            t->tables_filled += 1;
            if (t->defer_clear) {
                t->generation_rate =
                    (double)(t->bits_written - t->generation_bits) / (double)(position - t->generation_start);
                t->check_start = position;
                t->check_bits = t->bits_written;
            }
        }
    } else if (!t->defer_clear ||
               (position - t->check_start >= CHECK_PIXELS &&
                (double)(t->bits_written - t->check_bits) > t->generation_rate * (double)(position - t->check_start))) {
        // The table is full and (deferring) codes it no longer compresses well: a new one.
        emit(w, t->clear, t->width);
        t->bits_written += (uint64_t)t->width;
        memset(t->slots, 0xFF, sizeof t->slots);
        t->width = t->minimum_code_size + 1;
        t->next_code = t->clear + 2;
        t->generation_bits = t->bits_written;
        t->generation_start = position;
    } else if (position - t->check_start >= CHECK_PIXELS) {
        t->check_start = position;
        t->check_bits = t->bits_written;
    }
}

// Emits the last string's code and the end code, closes the data and writes the terminator;
// returns the bytes written.
static size_t table_finish(Table *t, Writer *w, uint32_t last, int coded_any, int *filled) {
    if (coded_any) {
        emit(w, last, t->width);
        // The decoder adds one more entry after reading the last code; the end code is read at
        // the width that entry implies.
        if (t->next_code < 4096 && t->next_code + 1 > (1u << t->width) && t->width < 12) t->width += 1;
    }
    emit(w, t->clear + 1, t->width);
    if (w->bit_count > 0) put_byte(w, (uint8_t)w->bits);
    // Close the last sub-block (or drop it when empty) and write the terminator.
    w->out[w->block_start] = (uint8_t)w->block_used;
    size_t end = w->block_used == 0 ? w->block_start : w->block_start + 1 + w->block_used;
    w->out[end] = 0;
    if (filled != NULL) *filled = t->tables_filled;
    return end + 1;
}

size_t imgtool_gif_lzw_encode_choosing(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, int minimum_code_size,
    int transparent_index, int defer_clear, uint8_t *out, int *filled) {
    Table t;
    Writer w = {out, 1, 0, 0, 0};
    table_start(&t, &w, minimum_code_size, defer_clear);
    const uint32_t transparent = (uint32_t)transparent_index;
    const int choosing = may_be_transparent != NULL && transparent_index >= 0;
    uint32_t prefix = 0;
    if (count > 0) {
        prefix = choosing && may_be_transparent[0] ? transparent : indices[0];
        uint32_t previous = prefix;  // the value the pixel before was coded as
        for (size_t position = 1; position < count; position++) {
            const uint32_t index = indices[position];
            const int flexible = choosing && may_be_transparent[position];
            // A pixel that may be drawn transparent is coded as the pixel before was when it is
            // one of its two values, else as the transparent index (unchanged pixels drawn
            // transparent make runs across colours); after a pixel not coded transparent, its
            // colour continues the string when the table holds that and not the other. A run of
            // transparent pixels is never broken for a short match in the table: it grows the
            // strings of transparent runs instead.
            uint32_t slot = 0, other_slot = 0;
            const uint32_t first = flexible ? transparent : index;
            const uint32_t second = first == index ? transparent : index;
            int32_t code = find(t.slots, prefix, first, &slot);
            uint32_t chosen = first;
            if (code < 0 && flexible && second != first && previous != transparent) {
                code = find(t.slots, prefix, second, &other_slot);
                if (code >= 0) chosen = second;
            }
            if (code >= 0) {
                prefix = (uint32_t)code;
                previous = chosen;
                continue;
            }
            emit_and_grow(&t, &w, prefix, first, slot, position);
            prefix = first;
            previous = first;
        }
    }
    return table_finish(&t, &w, prefix, count > 0, filled);
}

size_t imgtool_gif_lzw_encode(const uint8_t *indices, size_t count, int minimum_code_size, uint8_t *out) {
    return imgtool_gif_lzw_encode_choosing(indices, NULL, count, minimum_code_size, -1, 0, out, NULL);
}

// ---------------------------------------------------------------------------------------------
// Flexible parsing: the string coded at a position need not be the longest the table holds. Of
// the table's strings starting there (every prefix of the longest is one), the coder takes the
// one whose end lets the next string reach furthest (Matias, Rajpoot and Sahinalp's one-step
// lookahead for LZW), the longest among equals. A shorter string costs a table entry: the
// decoder adds the coded string plus the next one's first value, which the table already holds,
// so the new code repeats an old one.

// Strings longer than LOOKAHEAD_LONGEST are taken whole: they come from flat areas, where
// weighing shorter ones finds little and costs a walk of the table for each. Short strings are
// weighed too: on a screencast, leaving out those under 3 pixels cost 0.4 % and saved no time.
enum { LOOKAHEAD_LONGEST = 32, LOOKAHEAD_SHORTEST = 2 };

// The value pixel `position` starts a string with: transparent where either value shows it.
static inline uint32_t start_value(const uint8_t *indices, const uint8_t *may_be_transparent, int choosing,
                                   uint32_t transparent, size_t position) {
    return choosing && may_be_transparent[position] ? transparent : indices[position];
}

// Follows the table from `position` as the greedy coder does (the same choice for a pixel that
// may be transparent) and returns how many pixels the longest string covers; `codes[k]` (when
// not NULL) receives the code of the string of `k + 1` pixels.
static size_t walk(const uint32_t *slots, const uint8_t *indices, const uint8_t *may_be_transparent, int choosing,
                   uint32_t transparent, size_t position, size_t count, uint16_t *codes) {
    uint32_t prefix = start_value(indices, may_be_transparent, choosing, transparent, position);
    uint32_t previous = prefix;
    size_t length = 1;
    if (codes != NULL) codes[0] = (uint16_t)prefix;
    uint32_t slot;
    for (size_t at = position + 1; at < count && length < 4096; at++, length++) {
        const uint32_t index = indices[at];
        const int flexible = choosing && may_be_transparent[at];
        const uint32_t first = flexible ? transparent : index;
        const uint32_t second = first == index ? transparent : index;
        int32_t code = find(slots, prefix, first, &slot);
        uint32_t chosen = first;
        if (code < 0 && flexible && second != first && previous != transparent) {
            code = find(slots, prefix, second, &slot);
            chosen = second;
        }
        if (code < 0) break;
        prefix = (uint32_t)code;
        previous = chosen;
        if (codes != NULL) codes[length] = (uint16_t)code;
    }
    return length;
}

size_t imgtool_gif_lzw_encode_flexible(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, int minimum_code_size,
    int transparent_index, int defer_clear, int candidates, uint8_t *out, int *filled) {
    Table t;
    uint16_t codes[4096];
    Writer w = {out, 1, 0, 0, 0};
    table_start(&t, &w, minimum_code_size, defer_clear);
    const uint32_t transparent = (uint32_t)transparent_index;
    const int choosing = may_be_transparent != NULL && transparent_index >= 0;
    size_t position = 0;
    uint32_t last = 0;
    while (position < count) {
        const size_t longest = walk(t.slots, indices, may_be_transparent, choosing, transparent, position, count, codes);
        size_t length = longest;
        if (position + longest < count && longest >= LOOKAHEAD_SHORTEST && longest <= LOOKAHEAD_LONGEST) {
            size_t reach = longest + walk(t.slots, indices, may_be_transparent, choosing, transparent,
                                          position + longest, count, NULL);
            const size_t lowest = longest > (size_t)candidates ? longest - (size_t)candidates : 1;
            for (size_t shorter = longest - 1; shorter >= lowest; shorter--) {
                const size_t further = shorter + walk(t.slots, indices, may_be_transparent, choosing, transparent,
                                                      position + shorter, count, NULL);
                if (further > reach) {
                    reach = further;
                    length = shorter;
                }
                if (shorter == 1) break;
            }
        }
        last = codes[length - 1];
        position += length;
        if (position >= count) break;
        // The decoder's new entry: the coded string and the next one's first value.
        const uint32_t next = start_value(indices, may_be_transparent, choosing, transparent, position);
        uint32_t slot;
        if (find(t.slots, last, next, &slot) >= 0) slot = NO_SLOT;
        emit_and_grow(&t, &w, last, next, slot, position);
    }
    return table_finish(&t, &w, last, count > 0, filled);
}

// ---------------------------------------------------------------------------------------------
// Lossy LZW: the dictionary as a trie (each code's children chained), so that a string can be
// continued by any child whose colour is close enough to the pixel, not only by its own index.

enum { NONE = 0xFFFF };

static float srgb_to_linear(float v) {
    return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f);
}

// OkLab of a packed colour (red in the low byte).
static void oklab_of(uint32_t color, float lab[3]) {
    const float r = srgb_to_linear((float)(color & 0xFF) / 255.0f);
    const float g = srgb_to_linear((float)(color >> 8 & 0xFF) / 255.0f);
    const float b = srgb_to_linear((float)(color >> 16 & 0xFF) / 255.0f);
    const float l = cbrtf(0.4122214708f * r + 0.5363325363f * g + 0.0514459929f * b);
    const float m = cbrtf(0.2119034982f * r + 0.6806995451f * g + 0.1073969566f * b);
    const float s = cbrtf(0.0883024619f * r + 0.2817188376f * g + 0.6299787005f * b);
    lab[0] = 0.2104542553f * l + 0.7936177850f * m - 0.0040720468f * s;
    lab[1] = 1.9779984951f * l - 2.4285922050f * m + 0.4505937099f * s;
    lab[2] = 0.0259040371f * l + 0.7827717662f * m - 0.8086757660f * s;
}

// One step of the search for the longest string the table holds within the error: a node, how
// many pixels its string covers, and the error diffused to the pixel after it.
typedef struct {
    uint16_t node;
    uint16_t length;
    float error[3];
    float total;  // the squared errors of the string so far
} Step;

// How many table entries the search for one string looks at, at most: dithered areas have
// many strings within the error, and the longest is found early in practice.
enum { SEARCH_BUDGET = 4096 };

size_t imgtool_gif_lzw_encode_lossy(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, size_t row_width,
    int minimum_code_size, int transparent_index, const uint32_t *table, int table_count, float max_error,
    uint8_t *out, uint8_t *coded) {
    float lab[256][3];
    for (int i = 0; i < 256; i++) {
        if (i < table_count) {
            oklab_of(table[i], lab[i]);
        } else {
            lab[i][0] = lab[i][1] = lab[i][2] = 1e9f;
        }
    }
    uint16_t first_child[4096], next_sibling[4096], parent[4096];
    uint8_t suffix[4096];
    static _Thread_local Step stack[SEARCH_BUDGET * 2 + 256];
    const uint32_t clear = 1u << minimum_code_size;
    const uint32_t end_code = clear + 1;
    const int transparent = transparent_index;
    const float limit = max_error * max_error;
    const int flags = may_be_transparent != NULL && transparent >= 0;
    int width = minimum_code_size + 1;
    uint32_t next_code = clear + 2;
    for (uint32_t code = 0; code < clear; code++) suffix[code] = (uint8_t)code;

    out[0] = (uint8_t)minimum_code_size;
    Writer w = {out, 1, 0, 0, 0};
    emit(&w, clear, width);
    memset(first_child, 0xFF, sizeof first_child);
    size_t start = 0;
    while (start < count) {
        // The string starts with the pixel's own value (transparent where that shows it).
        const uint32_t root = flags && may_be_transparent[start] ? (uint32_t)transparent : indices[start];
        uint32_t best = root;
        size_t best_length = 1;
        float best_total = 0;
        int top = 0, looked = 0;
        stack[top++] = (Step){(uint16_t)root, 1, {0, 0, 0}, 0};
        while (top > 0 && looked < SEARCH_BUDGET) {
            const Step step = stack[--top];
            if (step.length > best_length || (step.length == best_length && step.total < best_total)) {
                best = step.node;
                best_length = step.length;
                best_total = step.total;
            }
            const size_t position = start + step.length;
            if (position >= count) continue;
            const int index = indices[position];
            const int flexible = flags && may_be_transparent[position];
            const int must_be_transparent = index == transparent && !flexible;
            // The error carried to this pixel, three quarters of what the one before left (none
            // at the start of a row).
            float carried[3] = {0, 0, 0};
            if (position % row_width != 0) {
                carried[0] = step.error[0] * 0.75f;
                carried[1] = step.error[1] * 0.75f;
                carried[2] = step.error[2] * 0.75f;
            }
            for (uint32_t child = first_child[step.node]; child != NONE; child = next_sibling[child]) {
                looked += 1;
                const int value = suffix[child];
                Step next = {(uint16_t)child, (uint16_t)(step.length + 1), {0, 0, 0}, step.total};
                if (value == transparent) {
                    if (!must_be_transparent && !flexible) continue;
                } else if (must_be_transparent) {
                    continue;
                } else if (value == index) {
                    // The pixel's own value costs nothing; the carried error fades.
                    memcpy(next.error, carried, sizeof carried);
                } else {
                    // Off by the colour difference plus the carried error, or half of it, whichever
                    // is smaller: a string may give back half of what the pixels before it took.
                    const float dl = lab[index][0] - lab[value][0];
                    const float da = lab[index][1] - lab[value][1];
                    const float db = lab[index][2] - lab[value][2];
                    const float fl = dl + carried[0], fa = da + carried[1], fb = db + carried[2];
                    const float hl = dl + carried[0] * 0.5f, ha = da + carried[1] * 0.5f, hb = db + carried[2] * 0.5f;
                    const float full = fl * fl + fa * fa + fb * fb;
                    const float half = hl * hl + ha * ha + hb * hb;
                    const float distance = full < half ? full : half;
                    if (distance > limit) continue;
                    next.error[0] = fl;
                    next.error[1] = fa;
                    next.error[2] = fb;
                    next.total += distance;
                }
                if (top < (int)(sizeof stack / sizeof stack[0])) stack[top++] = next;
            }
        }
        // The pixels of the chosen string, from its last back to its first.
        if (coded != NULL) {
            uint32_t code = best;
            for (size_t k = best_length; k-- > 0;) {
                coded[start + k] = suffix[code];
                code = k > 0 ? parent[code] : code;
            }
        }
        emit(&w, best, width);
        start += best_length;
        if (start >= count) break;
        // The table gains the string followed by the next string's first value.
        const uint32_t following = flags && may_be_transparent[start] ? (uint32_t)transparent : indices[start];
        if (next_code < 4096) {
            suffix[next_code] = (uint8_t)following;
            parent[next_code] = (uint16_t)best;
            first_child[next_code] = NONE;
            next_sibling[next_code] = first_child[best];
            first_child[best] = (uint16_t)next_code;
            next_code += 1;
            if (next_code > (1u << width) && width < 12) width += 1;
        } else {
            emit(&w, clear, width);
            memset(first_child, 0xFF, sizeof first_child);
            width = minimum_code_size + 1;
            next_code = clear + 2;
        }
    }
    if (count > 0 && next_code < 4096 && next_code + 1 > (1u << width) && width < 12) width += 1;
    emit(&w, end_code, width);
    if (w.bit_count > 0) put_byte(&w, (uint8_t)w.bits);
    out[w.block_start] = (uint8_t)w.block_used;
    size_t end = w.block_used == 0 ? w.block_start : w.block_start + 1 + w.block_used;
    out[end] = 0;
    return end + 1;
}
