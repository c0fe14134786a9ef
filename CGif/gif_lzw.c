// A GIF LZW decoder that writes each code's string by copying it from earlier output.
//
// giflib follows each code's chain of prefixes one byte at a time onto a stack and pops it
// into the row: a dependent load per pixel. But a table entry's string is always the string
// of the code before it plus one byte, and that byte is the first of the next code's string,
// which is written right after it. So every entry's string already lies, in one piece, in the
// output: the table keeps where (and how long), and a code is one short copy, like an LZ77
// match. Only the table bookkeeping mirrors giflib's (RunningCode, RunningBits, MaxCode1), so
// the code widths and the table are giflib's to the bit.
#include "CGif.h"

#include <string.h>

enum { LZW_TABLE = 4096 };

// Copies `length` bytes from `source` to `target` in 8-byte steps. `target - source` is at
// least `length`, so every byte of the string is read before anything lands on it; the bytes
// written past the string are rewritten by the codes that follow. The caller checks that the
// rounded-up length fits in the buffer.
static inline void copy_string(uint8_t *target, const uint8_t *source, size_t length) {
    for (size_t i = 0; i < length; i += 8) {
        uint64_t chunk;
        memcpy(&chunk, source + i, 8);
        memcpy(target + i, &chunk, 8);
    }
}

int imgtool_gif_lzw_decode(
    const uint8_t *data, size_t size, size_t start, int minimum_code_size, uint8_t *out, size_t count) {
    if (minimum_code_size < 2 || minimum_code_size > 8 || start > size) return -1;
    uint32_t where[LZW_TABLE];  // where each entry's string starts in `out`
    uint16_t length[LZW_TABLE];  // and its length

    const int clear = 1 << minimum_code_size;
    const int end_code = clear + 1;
    // giflib's counters: RunningCode counts codes read since a clear (plus end_code + 1);
    // the entry a code defines is RunningCode - 2 after the read.
    int running_code = end_code + 1;
    int bits = minimum_code_size + 1;
    int max_code1 = 1 << bits;
    int next_free = clear + 2;
    int last = -1;  // giflib's LastCode; -1 is NO_SUCH_CODE
    size_t last_at = 0, last_length = 0;

    uint64_t buffer = 0;
    int buffered = 0;
    size_t in = start, block_end = start;
    size_t at = 0;

    while (at < count) {
        if (buffered < bits) {
            while (buffered <= 56) {
                if (in == block_end) {
                    if (in >= size) break;
                    size_t block = data[in];
                    if (block == 0) break;
                    if (in + 1 + block > size) return -1;  // a cut sub-block: giflib fails on it
                    in += 1;
                    block_end = in + block;
                }
                buffer |= (uint64_t)data[in++] << buffered;
                buffered += 8;
            }
            if (buffered < bits) return -1;  // the data ends before the pixels do
        }
        const int code = (int)(buffer & ((1u << bits) - 1));
        buffer >>= bits;
        buffered -= bits;
        if (running_code < LZW_TABLE + 1 && ++running_code > max_code1 && bits < 12) {
            max_code1 <<= 1;
            bits += 1;
        }
        if (code == clear) {
            running_code = end_code + 1;
            bits = minimum_code_size + 1;
            max_code1 = 1 << bits;
            next_free = clear + 2;
            last = -1;
            continue;
        }
        if (code == end_code) return -1;  // giflib: "Image EOF detected before image complete"

        const int slot = running_code - 2;
        size_t string_length;
        if (code < clear) {
            out[at] = (uint8_t)code;
            string_length = 1;
        } else if (code < next_free) {
            string_length = length[code];
            if (at + ((string_length + 7) & ~(size_t)7) <= count) {
                copy_string(out + at, out + where[code], string_length);
            } else {
                const size_t n = string_length < count - at ? string_length : count - at;
                for (size_t i = 0; i < n; i++) out[at + i] = out[where[code] + i];
            }
        } else if (code == slot && code == next_free && last >= 0) {
            // The entry being defined by this very code: the last string plus its own first byte.
            string_length = last_length + 1;
            if (at + ((string_length + 7) & ~(size_t)7) <= count) {
                copy_string(out + at, out + last_at, last_length);
                out[at + last_length] = out[last_at];
            } else {
                const size_t n = string_length < count - at ? string_length : count - at;
                for (size_t i = 0; i < n; i++) out[at + i] = out[last_at + i];
                if (last_length < n) out[at + last_length] = out[last_at];
            }
        } else {
            return -1;  // a code past the table: giflib's own (lenient) handling decides
        }

        if (last >= 0 && slot < LZW_TABLE && slot == next_free) {
            where[slot] = (uint32_t)last_at;
            length[slot] = (uint16_t)(last_length + 1);
            next_free = slot + 1;
        }
        last = code;
        last_at = at;
        last_length = string_length;
        at += string_length;
    }
    return 0;
}
