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

size_t imgtool_gif_lzw_encode(const uint8_t *indices, size_t count, int minimum_code_size, uint8_t *out) {
    uint32_t slots[SLOTS];
    const uint32_t clear = 1u << minimum_code_size;
    const uint32_t end_code = clear + 1;
    int width = minimum_code_size + 1;
    uint32_t next_code = clear + 2;

    out[0] = (uint8_t)minimum_code_size;
    Writer w = {out, 1, 0, 0, 0};
    emit(&w, clear, width);
    if (count > 0) {
        memset(slots, 0xFF, sizeof slots);
        uint32_t prefix = indices[0];
        for (size_t position = 1; position < count; position++) {
            const uint32_t index = indices[position];
            const uint32_t key = prefix << 8 | index;
            uint32_t slot = ((key * 0x9E3779B1u) >> 19) & (SLOTS - 1);
            uint32_t entry;
            int found = 0;
            while ((entry = slots[slot]) != EMPTY) {
                if (entry >> 12 == key) {
                    found = 1;
                    break;
                }
                slot = (slot + 1) & (SLOTS - 1);
            }
            if (found) {
                prefix = entry & 0xFFF;
                continue;
            }
            emit(&w, prefix, width);
            if (next_code < 4096) {
                slots[slot] = key << 12 | next_code;
                next_code += 1;
                if (next_code > (1u << width) && width < 12) width += 1;
            } else {
                emit(&w, clear, width);
                memset(slots, 0xFF, sizeof slots);
                width = minimum_code_size + 1;
                next_code = clear + 2;
            }
            prefix = index;
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
    return end + 1;
}
