// Split encoding: a baseline JPEG compressed as horizontal parts (each by its own libjpeg
// compressor, through the writer of jpeg_shim.c), joined with Huffman tables optimized for the
// whole image. See the header for the contract; the steps are:
//
// 1. Each part is compressed with libjpeg's standard tables and a restart marker after every MCU
//    row. A part starts at an MCU row, so its coefficients are those of the same rows of a
//    one-piece encode, and the restart marker at its top resets DC prediction as the decoder of
//    the joined file will.
// 2. Its markers are parsed (SOF0, DHT, DRI, SOS) and its entropy-coded data decoded symbol by
//    symbol (T.81 F.2.2: per MCU, each component's blocks in order; per block a DC size category
//    and its extra bits, then AC run/size symbols with their extra bits, ZRL and EOB), counting
//    each table's symbols. Nothing is dequantized or transformed. The symbols and their extra
//    bits are kept (4 bytes each, up to 16 a block).
// 3. The counts of all parts are summed and libjpeg's jpeg_gen_optimal_table (what
//    optimize_coding uses, T.81 K.2) makes a table of each.
// 4. Each part's symbols are written with the new codes, each followed by the same extra bits
//    (a part that had too many to keep is decoded again); restart markers are numbered on from
//    part to part.
//
// Steps 1, 2 and 4 of different parts may run on different threads: they touch only their part.
// Only step 1 calls libjpeg's compressor (through the writer, which owns its setjmp); step 3 calls
// jpeg_gen_optimal_table under a setjmp of its own. Steps 2 and 4 check everything they read and
// report a status, never jump.

#include "CLibJPEG.h"

// jpeglib.h needs size_t and FILE declared before it.
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

// Exported by libjpeg (jchuff.c) but declared only in its private jchuff.h: fills `htbl`'s bits
// and huffval with a code for the counts in freq[0..255], no code longer than 16 bits and none all
// ones. freq needs 257 entries and is overwritten.
extern void jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL *htbl, long freq[]);

enum {
    MESSAGE_CAPACITY = 256,
    // Table slots: DC tables 0-3, then AC tables 0-3.
    TABLE_SLOTS = 8,
    // Most blocks in an MCU (T.81 B.2.3).
    MAX_BLOCKS = 10,
    // Codes up to this long are decoded with one table lookup, and with their extra bits when
    // both fit.
    LOOKUP_BITS = 11,
    // Most bytes one MCU can add when re-coded: ten blocks of 64 symbols, each at most 16 bits of
    // code and 11 of extra bits, every byte possibly stuffed; the bits still buffered from the
    // MCU before; the end of a restart interval (padding and a marker).
    MCU_BYTES_BOUND = 10 * 64 * 27 / 8 * 2 + 64,
};

// MARK: - Huffman tables

typedef struct {
    // For the LOOKUP_BITS next bits: the symbol (bits 0-7) and its code's length (bits 8-12, 0
    // when the code is longer); when the code and the extra bits that follow it fit in
    // LOOKUP_BITS, their length in all (bits 16-20, else 0).
    uint32_t fast[1 << LOOKUP_BITS];
    // For longer codes (T.81 F.2.2.3): the largest code of each length (-1 when none), and what
    // to add to a code of that length to get its symbol's index in `values`.
    int32_t maxcode[17];
    int32_t offset[17];
    uint8_t values[256];
    int defined;
} decode_table;

// How many extra bits follow `symbol` of a DC (`ac` 0) or AC table.
static inline int extra_size(int symbol, int ac) { return ac ? symbol & 15 : symbol; }

// Builds the decoding table for `bits` (counts of codes of each length 1-16, bits[0] unused) and
// `values`; returns NULL or what is wrong with them. Every symbol must be one a baseline scan
// can hold: a DC size category 0-11; an AC EOB, ZRL, or run 0-15 with size 1-10.
static const char *decode_table_build(decode_table *table, int ac, const uint8_t bits[17], const uint8_t *values) {
    memset(table, 0, sizeof *table);
    int count = 0;
    for (int length = 1; length <= 16; length++) count += bits[length];
    if (count > 256) return "a Huffman table has more than 256 codes";
    for (int i = 0; i < count; i++) {
        int symbol = values[i];
        int valid = ac ? symbol == 0x00 || symbol == 0xF0 || ((symbol & 15) >= 1 && (symbol & 15) <= 10) : symbol <= 11;
        if (!valid) return "a Huffman table has a symbol a baseline scan cannot hold";
    }
    memcpy(table->values, values, (size_t)count);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        // As libjpeg: the codes must fit, and none may be all ones.
        if (code + bits[length] >= ((int32_t)1 << length)) return "a Huffman table has more codes than fit";
        table->offset[length] = index - code;
        for (int i = 0; i < bits[length]; i++, index++, code++) {
            if (length > LOOKUP_BITS) continue;
            int symbol = values[index];
            int total = length + extra_size(symbol, ac);
            uint32_t entry = (uint32_t)symbol | (uint32_t)length << 8 | (total <= LOOKUP_BITS ? (uint32_t)total << 16 : 0);
            int shift = LOOKUP_BITS - length;
            for (int fill = 0; fill < (1 << shift); fill++) table->fast[(code << shift) | fill] = entry;
        }
        table->maxcode[length] = bits[length] ? code - 1 : -1;
        code <<= 1;
    }
    table->defined = 1;
    return NULL;
}

// Sets `codes[i]` to the code of each symbol i of `table` (T.81 C.2, C.3) shifted left 5 bits,
// plus its length.
static void codes_build(uint32_t *codes, const JHUFF_TBL *table) {
    memset(codes, 0, 256 * sizeof *codes);
    uint32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        for (int i = 0; i < table->bits[length]; i++, index++, code++) {
            codes[table->huffval[index]] = code << 5 | (uint32_t)length;
        }
        code <<= 1;
    }
}

// MARK: - Reading a part's file

// What the markers of a part's file say, and where its entropy-coded data starts.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint32_t mcu_height;
    uint32_t mcus_per_row;
    uint32_t mcu_rows;
    int blocks_in_mcu;
    // Each block of an MCU's table slots.
    uint8_t block_dc[MAX_BLOCKS];
    uint8_t block_ac[MAX_BLOCKS];
    // Offsets in the file: the SOF's height field, the first byte after SOS.
    size_t height_offset;
    size_t data_offset;
    decode_table tables[TABLE_SLOTS];
} part_layout;

static uint32_t big16(const uint8_t *bytes) { return (uint32_t)bytes[0] << 8 | bytes[1]; }

// Reads the markers of `file` up to SOS; returns NULL or what is wrong.
static const char *layout_parse(part_layout *layout, const uint8_t *file, size_t length) {
    memset(layout, 0, sizeof *layout);
    if (length < 4 || file[0] != 0xFF || file[1] != 0xD8) return "no SOI";
    if (file[length - 2] != 0xFF || file[length - 1] != 0xD9) return "no EOI at the end";
    int components = 0;
    int ids[4] = {0}, h[4] = {0}, v[4] = {0};
    uint32_t restart_interval = 0;
    size_t at = 2;
    for (;;) {
        if (at + 4 > length || file[at] != 0xFF) return "a marker was expected";
        uint8_t marker = file[at + 1];
        size_t size = big16(file + at + 2);
        if (size < 2 || at + 2 + size > length) return "a marker segment runs past the end";
        const uint8_t *segment = file + at + 4;
        size_t body = size - 2;
        if (marker == 0xC0) {
            if (body < 6 || segment[0] != 8) return "the frame is not 8-bit";
            layout->height = big16(segment + 1);
            layout->width = big16(segment + 3);
            layout->height_offset = at + 5;
            components = segment[5];
            if (components < 1 || components > 4 || body != 6 + 3 * (size_t)components) return "bad SOF0";
            for (int c = 0; c < components; c++) {
                ids[c] = segment[6 + 3 * c];
                h[c] = segment[7 + 3 * c] >> 4;
                v[c] = segment[7 + 3 * c] & 15;
                if (h[c] < 1 || h[c] > 4 || v[c] < 1 || v[c] > 4) return "bad sampling factors";
            }
        } else if (marker >= 0xC1 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            return "the frame is not baseline";
        } else if (marker == 0xC4) {
            size_t offset = 0;
            while (offset < body) {
                if (offset + 17 > body) return "bad DHT";
                uint8_t class_id = segment[offset];
                if ((class_id >> 4) > 1 || (class_id & 15) > 3) return "bad DHT table number";
                uint8_t bits[17] = {0};
                size_t count = 0;
                for (int i = 1; i <= 16; i++) {
                    bits[i] = segment[offset + (size_t)i];
                    count += bits[i];
                }
                if (offset + 17 + count > body) return "bad DHT";
                const char *problem = decode_table_build(&layout->tables[(class_id >> 4) * 4 + (class_id & 15)],
                                                         class_id >> 4, bits, segment + offset + 17);
                if (problem != NULL) return problem;
                offset += 17 + count;
            }
        } else if (marker == 0xDD) {
            if (body != 2) return "bad DRI";
            restart_interval = big16(segment);
        } else if (marker == 0xDA) {
            if (components == 0) return "SOS before SOF0";
            if (body < 1) return "bad SOS";
            int in_scan = segment[0];
            if (in_scan != components || body != 4 + 2 * (size_t)in_scan) return "not one scan of every component";
            const uint8_t *tail = segment + 1 + 2 * in_scan;
            if (tail[0] != 0 || tail[1] != 63 || tail[2] != 0) return "not a sequential scan";
            int h_max = 1, v_max = 1;
            for (int c = 0; c < components; c++) {
                h_max = h[c] > h_max ? h[c] : h_max;
                v_max = v[c] > v_max ? v[c] : v_max;
            }
            int blocks = 0;
            for (int s = 0; s < in_scan; s++) {
                int c = 0;
                while (c < components && ids[c] != segment[1 + 2 * s]) c++;
                if (c == components) return "SOS names an unknown component";
                int dc = segment[2 + 2 * s] >> 4, ac = segment[2 + 2 * s] & 15;
                if (dc > 3 || ac > 3 || !layout->tables[dc].defined || !layout->tables[4 + ac].defined) {
                    return "SOS names an undefined Huffman table";
                }
                // One component alone is not interleaved: an MCU is one block.
                int count = in_scan == 1 ? 1 : h[c] * v[c];
                if (blocks + count > MAX_BLOCKS) return "too many blocks in an MCU";
                for (int b = 0; b < count; b++, blocks++) {
                    layout->block_dc[blocks] = (uint8_t)dc;
                    layout->block_ac[blocks] = (uint8_t)(4 + ac);
                }
                if (in_scan == 1) h_max = v_max = 1;
            }
            layout->blocks_in_mcu = blocks;
            uint32_t mcu_width = 8 * (uint32_t)h_max;
            layout->mcu_height = 8 * (uint32_t)v_max;
            layout->mcus_per_row = (layout->width + mcu_width - 1) / mcu_width;
            layout->mcu_rows = (layout->height + layout->mcu_height - 1) / layout->mcu_height;
            if (layout->width == 0 || layout->height == 0) return "an empty frame";
            if (restart_interval != layout->mcus_per_row) return "the restart interval is not one MCU row";
            layout->data_offset = at + 2 + size;
            return NULL;
        }
        at += 2 + size;
    }
}

// Entropy-coded data, read bit by bit, left-aligned in a 64-bit buffer. A stuffed 0xFF 0x00 is
// one 0xFF byte. At a marker the data stops: zeros are fed from then on and counted in
// `padding`, and `stop` points at the marker.
typedef struct {
    const uint8_t *next;
    const uint8_t *stop;
    uint64_t bits;
    int count;
    int padding;
} bit_reader;

// Fills the buffer to more than 56 bits. The data ends with EOI, so a 0xFF before `stop` has a
// byte after it.
static inline void reader_fill(bit_reader *reader) {
    // Eight bytes without 0xFF at once.
    if (reader->stop - reader->next >= 8) {
        uint64_t word;
        memcpy(&word, reader->next, 8);
        word = __builtin_bswap64(word);
        uint64_t inverse = ~word;
        if (((inverse - 0x0101010101010101ULL) & ~inverse & 0x8080808080808080ULL) == 0) {
            int take = (64 - reader->count) >> 3;
            if (take < 8) word &= ~(uint64_t)0 << (64 - 8 * take);
            reader->bits |= word >> reader->count;
            reader->count += 8 * take;
            reader->next += take;
            return;
        }
    }
    while (reader->count <= 56) {
        const uint8_t *next = reader->next;
        if (next < reader->stop && (next[0] != 0xFF || next[1] == 0x00)) {
            reader->bits |= (uint64_t)next[0] << (56 - reader->count);
            reader->next = next + (next[0] == 0xFF ? 2 : 1);
        } else {
            reader->stop = next;
            reader->padding += 8;
        }
        reader->count += 8;
    }
}

// Reads the next symbol of `table` (a DC table, or AC with `ac`) and the extra bits after it:
// returns the symbol, or -1 for a code the table does not have, and sets `*extra` to the extra
// bits and `*size` to their count. Needs 32 bits buffered.
static inline __attribute__((always_inline)) int read_symbol(bit_reader *reader, const decode_table *table, int ac,
                                                              uint32_t *extra, int *size) {
    uint32_t entry = table->fast[reader->bits >> (64 - LOOKUP_BITS)];
    int symbol = entry & 0xFF;
    int total = (entry >> 16) & 31;
    if (total != 0) {
        // The code and its extra bits in one.
        *size = extra_size(symbol, ac);
        *extra = (uint32_t)(reader->bits >> (64 - total)) & ((1U << *size) - 1);
        reader->bits <<= total;
        reader->count -= total;
        return symbol;
    }
    int length = (entry >> 8) & 31;
    if (length == 0) {
        for (length = LOOKUP_BITS + 1; length <= 16; length++) {
            int32_t code = (int32_t)(reader->bits >> (64 - length));
            if (code <= table->maxcode[length]) {
                symbol = table->values[code + table->offset[length]];
                break;
            }
        }
        if (length > 16) return -1;
    }
    reader->bits <<= length;
    reader->count -= length;
    *size = extra_size(symbol, ac);
    *extra = *size == 0 ? 0 : (uint32_t)(reader->bits >> (64 - *size));
    reader->bits <<= *size;
    reader->count -= *size;
    return symbol;
}

// Entropy-coded data written bit by bit, 0xFF bytes stuffed with 0x00. The caller reserves room.
typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
    uint64_t bits;
    int count;
} bit_writer;

static int writer_reserve(bit_writer *writer, size_t more) {
    if (writer->capacity - writer->length >= more) return 1;
    size_t capacity = writer->capacity * 2 > writer->length + more ? writer->capacity * 2 : writer->length + more;
    uint8_t *grown = realloc(writer->data, capacity);
    if (grown == NULL) return 0;
    writer->data = grown;
    writer->capacity = capacity;
    return 1;
}

static inline void writer_byte(bit_writer *writer, uint8_t byte) {
    writer->data[writer->length++] = byte;
    if (byte == 0xFF) writer->data[writer->length++] = 0x00;
}

// Appends the low `size` bits of `value` (at most 32 bits buffered plus 27 new).
static inline __attribute__((always_inline)) void writer_put(bit_writer *writer, uint32_t value, int size) {
    writer->bits = (writer->bits << size) | value;
    writer->count += size;
    if (writer->count < 32) return;
    writer->count -= 32;
    uint32_t word = (uint32_t)(writer->bits >> writer->count);
    uint32_t inverse = ~word;
    if (((inverse - 0x01010101U) & ~inverse & 0x80808080U) == 0) {
        uint32_t big = __builtin_bswap32(word);
        memcpy(writer->data + writer->length, &big, 4);
        writer->length += 4;
    } else {
        writer_byte(writer, (uint8_t)(word >> 24));
        writer_byte(writer, (uint8_t)(word >> 16));
        writer_byte(writer, (uint8_t)(word >> 8));
        writer_byte(writer, (uint8_t)word);
    }
}

// Ends a restart interval: pads the last byte with ones (as libjpeg) and writes marker `marker`.
static void writer_end_interval(bit_writer *writer, uint8_t marker) {
    if (writer->count % 8 != 0) writer_put(writer, (1U << (8 - writer->count % 8)) - 1, 8 - writer->count % 8);
    while (writer->count >= 8) {
        writer->count -= 8;
        writer_byte(writer, (uint8_t)(writer->bits >> writer->count));
    }
    writer->bits = 0;
    writer->data[writer->length++] = 0xFF;
    writer->data[writer->length++] = marker;
}

// The symbols of a part, kept from the counting pass so that re-coding need not decode them
// again: one word each, the table slot and symbol in bits 0-10 (slot * 256 + symbol), the number
// of extra bits in bits 11-15, the extra bits from bit 16; and where each MCU row's words end.
// At most `limit` words are kept; past that the store is dropped (`words` NULL) and the part is
// decoded again instead.
typedef struct {
    uint32_t *words;
    size_t count;
    size_t capacity;
    size_t limit;
    size_t *row_ends;
} symbol_store;

static void store_drop(symbol_store *store) {
    free(store->words);
    free(store->row_ends);
    *store = (symbol_store){0};
}

// Room for `more` words, or 0 when the store was dropped for want of it.
static int store_reserve(symbol_store *store, size_t more) {
    if (store->capacity - store->count >= more) return 1;
    size_t capacity = store->capacity * 2 > store->count + more ? store->capacity * 2 : store->count + more;
    if (capacity > store->limit) capacity = store->limit;
    uint32_t *grown = capacity >= store->count + more ? realloc(store->words, capacity * sizeof *grown) : NULL;
    if (grown == NULL) {
        store_drop(store);
        return 0;
    }
    store->words = grown;
    store->capacity = capacity;
    return 1;
}

// One symbol of table `slot` with its extra bits: written with `codes` (emitting), or counted and,
// when `*kept` is not NULL, kept there (slot * 256 + symbol, its size from bit 11, its extra bits
// from bit 16).
static inline __attribute__((always_inline)) void take_symbol(const int emit, int slot, int symbol, uint32_t extra,
                                                              int size, const uint32_t *codes, bit_writer *writer,
                                                              long (*counts)[257], uint32_t **kept) {
    if (emit) {
        uint32_t code = codes[slot * 256 + symbol];
        writer_put(writer, (code >> 5) << size | extra, (int)(code & 31) + size);
    } else {
        counts[slot][symbol]++;
        if (*kept != NULL) *(*kept)++ = (uint32_t)(slot * 256 + symbol) | (uint32_t)size << 11 | extra << 16;
    }
}

// Decodes every MCU of a part's data (`layout` read from `file`). Counting (`emit` 0), adds each
// symbol to `counts` and, while `store->words` is not NULL, keeps it there. Emitting, writes each
// symbol to `writer` with `codes` (by table slot * 256 + symbol, the code shifted left 5 bits plus
// its length; they have every symbol the data holds), a restart marker
// after each MCU row numbered on from `first_interval`, and EOI instead after the image's last
// row (`last_part`). Returns NULL or what is wrong with the data.
static inline __attribute__((always_inline)) const char *
walk_data(const part_layout *layout, const uint8_t *file, size_t length, const int emit, long (*counts)[257],
          symbol_store *store, const uint32_t *codes, bit_writer *writer, uint32_t first_interval, int last_part) {
    bit_reader reader = {.next = file + layout->data_offset, .stop = file + length};
    const int blocks = layout->blocks_in_mcu;
    for (uint32_t interval = 0; interval < layout->mcu_rows; interval++) {
        for (uint32_t mcu = 0; mcu < layout->mcus_per_row; mcu++) {
            if (emit && !writer_reserve(writer, MCU_BYTES_BOUND)) return "out of memory";
            if (!emit && store->words != NULL) store_reserve(store, (size_t)blocks * 64);
            uint32_t *kept = emit || store->words == NULL ? NULL : store->words + store->count;
            for (int block = 0; block < blocks; block++) {
                const int dc_slot = layout->block_dc[block], ac_slot = layout->block_ac[block];
                uint32_t extra;
                int size;
                if (reader.count < 32) reader_fill(&reader);
                int symbol = read_symbol(&reader, &layout->tables[dc_slot], 0, &extra, &size);
                if (symbol < 0) return "a bad DC code";
                take_symbol(emit, dc_slot, symbol, extra, size, codes, writer, counts, &kept);
                const decode_table *ac = &layout->tables[ac_slot];
                // k: the zigzag index of the next coefficient; a symbol moves it past its run of
                // zeros and its coefficient (ZRL, run 15 without one: sixteen zeros).
                for (int k = 1; k < 64;) {
                    if (reader.count < 32) reader_fill(&reader);
                    symbol = read_symbol(&reader, ac, 1, &extra, &size);
                    if (symbol < 0) return "a bad AC code";
                    take_symbol(emit, ac_slot, symbol, extra, size, codes, writer, counts, &kept);
                    if (symbol == 0) break;  // EOB
                    k += (symbol >> 4) + 1;
                    if (k > 64) return "a run of zeros past the end of a block";
                }
            }
            if (kept != NULL) store->count = (size_t)(kept - store->words);
        }
        // The row ends at a byte padded with ones, then the next restart marker (EOI after the
        // last row).
        reader_fill(&reader);
        int left = reader.count - reader.padding;
        if (left < 0) return "the data of an MCU row ends early";
        if (left >= 8) return "data after the last MCU of a row";
        if (left > 0 && (reader.bits >> (64 - left)) != ((uint64_t)1 << left) - 1) return "padding bits are not ones";
        int last_row = interval + 1 == layout->mcu_rows;
        uint8_t expected = last_row ? 0xD9 : (uint8_t)(0xD0 + interval % 8);
        if (reader.stop + 2 > file + length || reader.stop[0] != 0xFF || reader.stop[1] != expected) {
            return "a restart marker is missing or out of order";
        }
        reader = (bit_reader){.next = reader.stop + 2, .stop = file + length};
        if (emit) {
            writer_end_interval(writer, last_row && last_part ? 0xD9 : (uint8_t)(0xD0 + (first_interval + interval) % 8));
        } else if (store->words != NULL) {
            store->row_ends[interval] = store->count;
        }
    }
    if (reader.next != file + length) return "data after EOI";
    return NULL;
}

static const char *count_symbols(const part_layout *layout, const uint8_t *file, size_t length,
                                 long (*counts)[257], symbol_store *store) {
    return walk_data(layout, file, length, 0, counts, store, NULL, NULL, 0, 0);
}

static const char *recode_symbols(const part_layout *layout, const uint8_t *file, size_t length,
                                  const uint32_t *codes, bit_writer *writer, uint32_t first_interval, int last_part) {
    return walk_data(layout, file, length, 1, NULL, NULL, codes, writer, first_interval, last_part);
}

// Writes the kept symbols of a part's `rows` MCU rows with `codes`, as recode_symbols does.
static const char *recode_stored(const symbol_store *store, uint32_t rows, const uint32_t *codes, bit_writer *writer,
                                 uint32_t first_interval, int last_part) {
    const uint32_t *words = store->words;
    size_t start = 0;
    for (uint32_t row = 0; row < rows; row++) {
        size_t end = store->row_ends[row];
        // At most 27 bits a symbol, each byte possibly stuffed.
        if (!writer_reserve(writer, (end - start) * 7 + MCU_BYTES_BOUND)) return "out of memory";
        for (size_t i = start; i < end; i++) {
            uint32_t word = words[i];
            uint32_t code = codes[word & 0x7FF];
            int size = (word >> 11) & 31;
            writer_put(writer, (code >> 5) << size | word >> 16, (int)(code & 31) + size);
        }
        start = end;
        int last = row + 1 == rows && last_part;
        writer_end_interval(writer, last ? 0xD9 : (uint8_t)(0xD0 + (first_interval + row) % 8));
    }
    return NULL;
}

// MARK: - Parts and the join

typedef struct {
    imgtool_jpeg_writer *writer;
    imgtool_jpeg_write_params params;
    uint32_t first_row;
    uint32_t row_count;
    int begun;
    int finished;
    int transcoded;
    // The part's own file as libjpeg wrote it, in the writer's buffer.
    const uint8_t *file;
    size_t file_length;
    part_layout layout;
    long counts[TABLE_SLOTS][257];
    symbol_store store;
    bit_writer output;
    char message[MESSAGE_CAPACITY];
} split_part;

struct imgtool_jpeg_split {
    int part_count;
    int keep_symbols;
    int joined;
    split_part *parts;
    uint32_t codes[TABLE_SLOTS * 256];
    uint8_t *header;
    size_t header_length;
    char message[MESSAGE_CAPACITY];
};

static imgtool_jpeg_status part_fail(split_part *part, imgtool_jpeg_status status, const char *text) {
    if (part->message[0] == '\0') snprintf(part->message, sizeof part->message, "%s", text);
    return status;
}

// A failed writer call: its message becomes the part's.
static imgtool_jpeg_status part_writer_fail(split_part *part, imgtool_jpeg_status status) {
    return part_fail(part, status, imgtool_jpeg_writer_message(part->writer));
}

imgtool_jpeg_split *imgtool_jpeg_split_create(int part_count, int keep_symbols) {
    if (part_count < 1 || part_count > IMGTOOL_JPEG_MAX_PARTS) return NULL;
    imgtool_jpeg_split *split = calloc(1, sizeof *split);
    if (split == NULL) return NULL;
    split->parts = calloc((size_t)part_count, sizeof *split->parts);
    if (split->parts == NULL) {
        free(split);
        return NULL;
    }
    split->part_count = part_count;
    split->keep_symbols = keep_symbols;
    return split;
}

static split_part *split_part_at(imgtool_jpeg_split *split, int part) {
    return split != NULL && part >= 0 && part < split->part_count ? &split->parts[part] : NULL;
}

imgtool_jpeg_status imgtool_jpeg_split_begin_part(imgtool_jpeg_split *split, int index,
                                                  const imgtool_jpeg_write_params *params, uint32_t first_row,
                                                  uint32_t row_count) {
    split_part *part = split_part_at(split, index);
    if (part == NULL || params == NULL || part->begun) return IMGTOOL_JPEG_MISUSE;
    uint32_t mcu_width = params->subsample ? 16 : 8, mcu_height = params->subsample == 1 ? 16 : 8;
    if (params->width == 0 || params->height == 0 || params->progressive || params->arithmetic ||
        params->restart_interval != 0 || first_row % mcu_height != 0 || row_count == 0 ||
        (uint64_t)first_row + row_count > params->height) {
        return part_fail(part, IMGTOOL_JPEG_MISUSE, "bad parameters for a part of a split JPEG");
    }
    part->begun = 1;
    part->params = *params;
    part->first_row = first_row;
    part->row_count = row_count;
    part->writer = imgtool_jpeg_writer_create();
    if (part->writer == NULL) return part_fail(part, IMGTOOL_JPEG_TOO_LARGE, "out of memory");
    imgtool_jpeg_write_params own = *params;
    own.height = row_count;
    own.optimize = 0;
    own.restart_interval = (params->width + mcu_width - 1) / mcu_width;
    imgtool_jpeg_status status = imgtool_jpeg_writer_begin(part->writer, &own);
    return status == IMGTOOL_JPEG_OK ? status : part_writer_fail(part, status);
}

imgtool_jpeg_status imgtool_jpeg_split_write_rows(imgtool_jpeg_split *split, int index, const uint8_t *rows,
                                                  size_t stride, uint32_t row_count) {
    split_part *part = split_part_at(split, index);
    if (part == NULL || part->writer == NULL || part->finished) return IMGTOOL_JPEG_MISUSE;
    imgtool_jpeg_status status = imgtool_jpeg_writer_write_rows(part->writer, rows, stride, row_count);
    return status == IMGTOOL_JPEG_OK ? status : part_writer_fail(part, status);
}

imgtool_jpeg_status imgtool_jpeg_split_finish_part(imgtool_jpeg_split *split, int index) {
    split_part *part = split_part_at(split, index);
    if (part == NULL || part->writer == NULL || part->finished) return IMGTOOL_JPEG_MISUSE;
    imgtool_jpeg_status status = imgtool_jpeg_writer_finish(part->writer);
    if (status != IMGTOOL_JPEG_OK) return part_writer_fail(part, status);
    // The whole part is in the writer's buffer, which stays until the writer is destroyed.
    part->file = imgtool_jpeg_writer_output(part->writer, &part->file_length);
    const char *problem = layout_parse(&part->layout, part->file, part->file_length);
    if (problem == NULL && part->layout.height != part->row_count) problem = "the frame is not the part's height";
    if (problem == NULL && split->keep_symbols) {
        // At most 16 symbols a block (64 bytes, half of what libjpeg's own optimize_coding keeps
        // of each block); the first guess is generous for photos (4 bits a symbol in all).
        const part_layout *layout = &part->layout;
        symbol_store *store = &part->store;
        store->limit = (size_t)layout->mcu_rows * layout->mcus_per_row * (size_t)layout->blocks_in_mcu * 16;
        store->capacity = part->file_length * 2 < store->limit ? part->file_length * 2 : store->limit;
        store->words = malloc(store->capacity * sizeof *store->words);
        store->row_ends = malloc(layout->mcu_rows * sizeof *store->row_ends);
        if (store->words == NULL || store->row_ends == NULL) store_drop(store);
    }
    if (problem == NULL) {
        problem = count_symbols(&part->layout, part->file, part->file_length, part->counts, &part->store);
    }
    if (problem != NULL) {
        char text[MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "libjpeg's encoding of a part does not read back: %s", problem);
        return part_fail(part, IMGTOOL_JPEG_CORRUPT, text);
    }
    part->finished = 1;
    return IMGTOOL_JPEG_OK;
}

// MARK: Optimal tables

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} join_errors;

static void join_error_exit(j_common_ptr cinfo) { longjmp(((join_errors *)cinfo->err)->jump, 1); }

// Makes `table` the optimal code for `counts` (libjpeg's K.2). Counts are halved while their sum
// passes what jpeg_gen_optimal_table's arithmetic allows (it looks for frequencies below 1e9),
// which only an image of billions of blocks reaches. Returns NULL or libjpeg's message.
static const char *optimal_table(const long counts[257], JHUFF_TBL *table, char message[MESSAGE_CAPACITY]) {
    long freq[257] = {0};
    long total = 0;
    for (int i = 0; i < 256; i++) {
        freq[i] = counts[i];
        total += counts[i];
    }
    while (total >= 500000000L) {
        total = 0;
        for (int i = 0; i < 256; i++) {
            if (freq[i] > 0) freq[i] = (freq[i] + 1) / 2;
            total += freq[i];
        }
    }
    struct jpeg_compress_struct cinfo;
    join_errors errors;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = join_error_exit;
    if (setjmp(errors.jump)) {
        char text[JMSG_LENGTH_MAX];
        errors.pub.format_message((j_common_ptr)&cinfo, text);
        snprintf(message, MESSAGE_CAPACITY, "%s", text);
        return message;
    }
    memset(table, 0, sizeof *table);
    jpeg_gen_optimal_table(&cinfo, table, freq);
    return NULL;
}

static imgtool_jpeg_status join_fail(imgtool_jpeg_split *split, imgtool_jpeg_status status, const char *text) {
    if (split->message[0] == '\0') snprintf(split->message, sizeof split->message, "%s", text);
    return status;
}

// Appends a DHT segment holding `table` as class `class_id` (0x00-0x03 DC, 0x10-0x13 AC).
static void header_dht(uint8_t *out, size_t *length, uint8_t class_id, const JHUFF_TBL *table) {
    size_t count = 0;
    for (int i = 1; i <= 16; i++) count += table->bits[i];
    size_t size = 2 + 1 + 16 + count;
    uint8_t *at = out + *length;
    at[0] = 0xFF;
    at[1] = 0xC4;
    at[2] = (uint8_t)(size >> 8);
    at[3] = (uint8_t)size;
    at[4] = class_id;
    for (int i = 1; i <= 16; i++) at[4 + i] = table->bits[i];
    memcpy(at + 21, table->huffval, count);
    *length += 2 + size;
}

imgtool_jpeg_status imgtool_jpeg_split_join(imgtool_jpeg_split *split) {
    if (split == NULL || split->joined) return IMGTOOL_JPEG_MISUSE;
    const split_part *first = &split->parts[0];
    uint32_t next_row = 0;
    for (int i = 0; i < split->part_count; i++) {
        const split_part *part = &split->parts[i];
        if (!part->finished) return join_fail(split, IMGTOOL_JPEG_MISUSE, "a part of a split JPEG is not finished");
        if (part->first_row != next_row || memcmp(&part->params, &first->params, sizeof part->params) != 0) {
            return join_fail(split, IMGTOOL_JPEG_MISUSE, "the parts of a split JPEG do not make one image");
        }
        next_row += part->row_count;
        // The same markers but for the frame's height: the same tables, sampling and interval.
        const part_layout *a = &part->layout, *b = &first->layout;
        if (a->data_offset != b->data_offset || a->height_offset != b->height_offset ||
            memcmp(part->file, first->file, a->height_offset) != 0 ||
            memcmp(part->file + a->height_offset + 2, first->file + b->height_offset + 2,
                   a->data_offset - a->height_offset - 2) != 0) {
            return join_fail(split, IMGTOOL_JPEG_MISUSE, "the parts of a split JPEG have different markers");
        }
        if (i + 1 < split->part_count && part->row_count % part->layout.mcu_height != 0) {
            return join_fail(split, IMGTOOL_JPEG_MISUSE, "a part of a split JPEG ends inside an MCU row");
        }
    }
    if (next_row != first->params.height) {
        return join_fail(split, IMGTOOL_JPEG_MISUSE, "the parts of a split JPEG do not cover the image");
    }

    // Each table the scan uses, built from the counts of every part.
    JHUFF_TBL tables[TABLE_SLOTS];
    int used[TABLE_SLOTS] = {0};
    for (int block = 0; block < first->layout.blocks_in_mcu; block++) {
        used[first->layout.block_dc[block]] = 1;
        used[first->layout.block_ac[block]] = 1;
    }
    for (int slot = 0; slot < TABLE_SLOTS; slot++) {
        if (!used[slot]) continue;
        long counts[257] = {0};
        for (int i = 0; i < split->part_count; i++) {
            for (int symbol = 0; symbol < 256; symbol++) counts[symbol] += split->parts[i].counts[slot][symbol];
        }
        const char *problem = optimal_table(counts, &tables[slot], split->message);
        if (problem != NULL) return IMGTOOL_JPEG_CORRUPT;
        codes_build(split->codes + slot * 256, &tables[slot]);
        for (int symbol = 0; symbol < 256; symbol++) {
            if (counts[symbol] > 0 && split->codes[slot * 256 + symbol] == 0) {
                return join_fail(split, IMGTOOL_JPEG_CORRUPT, "an optimal Huffman table left out a symbol");
            }
        }
    }

    // The markers: the first part's, with the whole image's height and each DHT segment replaced
    // by the new tables it named, one segment each (as libjpeg writes them), each table once.
    size_t limit = first->layout.data_offset + TABLE_SLOTS * (4 + 17 + 256);
    split->header = malloc(limit);
    if (split->header == NULL) return join_fail(split, IMGTOOL_JPEG_TOO_LARGE, "out of memory");
    int written[TABLE_SLOTS] = {0};
    size_t length = 0;
    memcpy(split->header, first->file, 2);
    length = 2;
    size_t at = 2;
    while (at < first->layout.data_offset) {
        size_t size = big16(first->file + at + 2);
        if (first->file[at + 1] == 0xC4) {
            const uint8_t *segment = first->file + at + 4;
            size_t offset = 0;
            while (offset + 17 <= size - 2) {
                uint8_t class_id = segment[offset];
                int slot = (class_id >> 4) * 4 + (class_id & 15);
                size_t count = 0;
                for (int i = 1; i <= 16; i++) count += segment[offset + (size_t)i];
                // A table the scan does not use is left out.
                if (used[slot] && !written[slot]) header_dht(split->header, &length, class_id, &tables[slot]);
                written[slot] = 1;
                offset += 17 + count;
            }
        } else {
            memcpy(split->header + length, first->file + at, 2 + size);
            if (at + 5 == first->layout.height_offset) {
                split->header[length + 5] = (uint8_t)(first->params.height >> 8);
                split->header[length + 6] = (uint8_t)first->params.height;
            }
            length += 2 + size;
        }
        at += 2 + size;
    }
    split->header_length = length;
    split->joined = 1;
    return IMGTOOL_JPEG_OK;
}

imgtool_jpeg_status imgtool_jpeg_split_transcode_part(imgtool_jpeg_split *split, int index) {
    split_part *part = split_part_at(split, index);
    if (part == NULL || !split->joined || part->transcoded) return IMGTOOL_JPEG_MISUSE;
    bit_writer *output = &part->output;
    size_t header = index == 0 ? split->header_length : 0;
    // The new codes are rarely longer in all than the standard ones.
    output->capacity = header + part->file_length + part->file_length / 8 + MCU_BYTES_BOUND;
    output->data = malloc(output->capacity);
    if (output->data == NULL) return part_fail(part, IMGTOOL_JPEG_TOO_LARGE, "out of memory");
    if (header > 0) memcpy(output->data, split->header, header);
    output->length = header;
    uint32_t first_interval = part->first_row / part->layout.mcu_height;
    int last_part = index + 1 == split->part_count;
    const char *problem =
        part->store.words != NULL
            ? recode_stored(&part->store, part->layout.mcu_rows, split->codes, output, first_interval, last_part)
            : recode_symbols(&part->layout, part->file, part->file_length, split->codes, output, first_interval,
                             last_part);
    if (problem != NULL) {
        char text[MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "re-coding a part of a split JPEG: %s", problem);
        return part_fail(part, strcmp(problem, "out of memory") == 0 ? IMGTOOL_JPEG_TOO_LARGE : IMGTOOL_JPEG_CORRUPT,
                         text);
    }
    // The first encoding, its symbols and the compressor are no longer needed.
    store_drop(&part->store);
    imgtool_jpeg_writer_destroy(part->writer);
    part->writer = NULL;
    part->file = NULL;
    part->transcoded = 1;
    return IMGTOOL_JPEG_OK;
}

const uint8_t *imgtool_jpeg_split_output(const imgtool_jpeg_split *split, int index, size_t *length) {
    const split_part *part = split != NULL && index >= 0 && index < split->part_count ? &split->parts[index] : NULL;
    if (part == NULL || !part->transcoded) {
        if (length != NULL) *length = 0;
        return NULL;
    }
    if (length != NULL) *length = part->output.length;
    return part->output.data;
}

const char *imgtool_jpeg_split_message(const imgtool_jpeg_split *split, int index) {
    if (split == NULL) return "";
    if (index >= 0 && index < split->part_count) return split->parts[index].message;
    return split->message;
}

void imgtool_jpeg_split_destroy(imgtool_jpeg_split *split) {
    if (split == NULL) return;
    for (int i = 0; i < split->part_count; i++) {
        imgtool_jpeg_writer_destroy(split->parts[i].writer);
        store_drop(&split->parts[i].store);
        free(split->parts[i].output.data);
    }
    free(split->parts);
    free(split->header);
    free(split);
}
