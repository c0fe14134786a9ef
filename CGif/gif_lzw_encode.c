// imgtool's GIF LZW encoder: greedy longest match, one hash probe per pixel.
//
// The dictionary is an open-addressed hash of (prefix code, next index) pairs: each slot holds
// `key << 12 | code` with `key = prefix << 8 | index` (20 bits), all ones when empty, so a
// probe is one load and one compare. Codes are packed least significant bit first into a
// 64-bit buffer and written straight into the sub-blocks.
#include "CGif.h"

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

size_t imgtool_gif_lzw_encode_choosing(
    const uint8_t *indices, const uint8_t *may_be_transparent, size_t count, int minimum_code_size,
    int transparent_index, int defer_clear, uint8_t *out, int *filled) {
    uint32_t slots[SLOTS];
    const uint32_t clear = 1u << minimum_code_size;
    const uint32_t end_code = clear + 1;
    const uint32_t transparent = (uint32_t)transparent_index;
    const int choosing = may_be_transparent != NULL && transparent_index >= 0;
    int width = minimum_code_size + 1;
    uint32_t next_code = clear + 2;

    out[0] = (uint8_t)minimum_code_size;
    Writer w = {out, 1, 0, 0, 0};
    emit(&w, clear, width);
    int tables_filled = 0;
    if (count > 0) {
        memset(slots, 0xFF, sizeof slots);
        // Bits written and pixels coded: since the table was last started (its generation),
        // and at the last check of a full table.
        uint64_t bits_written = (uint64_t)width;
        uint64_t generation_bits = bits_written;
        size_t generation_start = 0, check_start = 0;
        uint64_t check_bits = 0;
        double generation_rate = 0;  // bits per pixel of the generation when its table filled
        uint32_t prefix = choosing && may_be_transparent[0] ? transparent : indices[0];
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
            int32_t code = find(slots, prefix, first, &slot);
            uint32_t chosen = first;
            if (code < 0 && flexible && second != first && previous != transparent) {
                code = find(slots, prefix, second, &other_slot);
                if (code >= 0) chosen = second;
            }
            if (code >= 0) {
                prefix = (uint32_t)code;
                previous = chosen;
                continue;
            }
            emit(&w, prefix, width);
            bits_written += (uint64_t)width;
            if (next_code < 4096) {
                slots[slot] = (prefix << 8 | first) << 12 | next_code;
                next_code += 1;
                if (next_code > (1u << width) && width < 12) width += 1;
                if (next_code == 4096) tables_filled += 1;
                if (next_code == 4096 && defer_clear) {
                    generation_rate = (double)(bits_written - generation_bits) / (double)(position - generation_start);
                    check_start = position;
                    check_bits = bits_written;
                }
            } else if (!defer_clear ||
                       (position - check_start >= CHECK_PIXELS &&
                        (double)(bits_written - check_bits) > generation_rate * (double)(position - check_start))) {
                // The table is full and (deferring) codes it no longer compresses well: a new one.
                emit(&w, clear, width);
                bits_written += (uint64_t)width;
                memset(slots, 0xFF, sizeof slots);
                width = minimum_code_size + 1;
                next_code = clear + 2;
                generation_bits = bits_written;
                generation_start = position;
            } else if (position - check_start >= CHECK_PIXELS) {
                check_start = position;
                check_bits = bits_written;
            }
            prefix = first;
            previous = first;
        }
        emit(&w, prefix, width);
        // The decoder adds one more entry after reading the last code; the end code is read at
        // the width that entry implies.
        if (next_code < 4096 && next_code + 1 > (1u << width) && width < 12) width += 1;
    }
    emit(&w, end_code, width);
    if (w.bit_count > 0) put_byte(&w, (uint8_t)w.bits);
    // Close the last sub-block (or drop it when empty) and write the terminator.
    out[w.block_start] = (uint8_t)w.block_used;
    size_t end = w.block_used == 0 ? w.block_start : w.block_start + 1 + w.block_used;
    out[end] = 0;
    if (filled != NULL) *filled = tables_filled;
    return end + 1;
}

size_t imgtool_gif_lzw_encode(const uint8_t *indices, size_t count, int minimum_code_size, uint8_t *out) {
    return imgtool_gif_lzw_encode_choosing(indices, NULL, count, minimum_code_size, -1, 0, out, NULL);
}
