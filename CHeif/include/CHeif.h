// CHeif: libheif, loaded at run time when a HEIC/HEIF file is read.
//
// Debian's libheif1 pulls in the x265 encoder, which is GPL: linking it would change imgtool's
// licence. So nothing links libheif: the first HEIF input loads libheif.so.1 with dlopen (when the
// machine has it: `apt-get install libheif1`) and these functions call through the pointers
// found. The libheif types are declared in heif_loader.c rather than taken from <libheif/heif.h>,
// so building needs nothing of libheif either. Every pointer into libheif's images stays here:
// Swift gets sizes, bytes and RGBA samples.
#ifndef CHEIF_H
#define CHEIF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libheif (once; later calls return the first result). Returns 1 when every function
/// needed was found, 0 otherwise, with `*error` (if given) pointing at a static message.
int imgtool_heif_load(const char **error);

/// libheif's version ("1.15.1"), or NULL when it is not loaded.
const char *imgtool_heif_version(void);

/// Whether the loaded libheif has an HEVC decoder (libde265).
int imgtool_heif_has_hevc_decoder(void);

typedef struct imgtool_heif imgtool_heif;

/// What went wrong, for Swift: libheif's error code and subcode, and its message.
typedef struct {
    int code;
    int subcode;
    char message[256];
} imgtool_heif_error;

/// Parses `size` bytes at `data` (not copied: they must outlive the handle) and finds the
/// primary image. `max_side` bounds both sides before anything is allocated. NULL on failure.
imgtool_heif *imgtool_heif_open(const uint8_t *data, size_t size, int max_side, imgtool_heif_error *error);
void imgtool_heif_close(imgtool_heif *heif);

/// The primary image as displayed (clap, irot, imir applied): size, bits per luma sample, alpha.
void imgtool_heif_info(const imgtool_heif *heif, int *width, int *height, int *bits, int *has_alpha);

/// The primary image's size as coded (its `ispe`), before the clean aperture, rotation and mirror.
void imgtool_heif_stored_size(const imgtool_heif *heif, int *width, int *height);

/// Copies the ICC profile into `out` when it fits `capacity`; returns its size (0: none).
size_t imgtool_heif_icc(const imgtool_heif *heif, uint8_t *out, size_t capacity);

/// Copies the first Exif block into `out` when it fits `capacity`; returns its size (0: none).
size_t imgtool_heif_exif(const imgtool_heif *heif, uint8_t *out, size_t capacity);

/// Copies the first XMP packet (a `mime` item of type application/rdf+xml) into `out` when it fits
/// `capacity`; returns its size (0: none).
size_t imgtool_heif_xmp(const imgtool_heif *heif, uint8_t *out, size_t capacity);

/// Decodes the primary image with its transformations into `out`: `width * height` RGBA pixels,
/// straight alpha (255 when there is none), 8 bits per sample (`sixteen` 0) or 16 (`sixteen` 1),
/// samples above 8 bits rounded from their native depth. `width`/`height` must be what
/// imgtool_heif_info gave. Returns 1, or 0 with `error` filled.
int imgtool_heif_decode(
    const imgtool_heif *heif, int sixteen, void *out, int width, int height, imgtool_heif_error *error);

#ifdef __cplusplus
}
#endif

#endif
