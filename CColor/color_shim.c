#include "CColor.h"

#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct imgtool_color_transform {
    cmsHTRANSFORM transform;
};

static void set_error(char *error, size_t error_size, const char *message) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "%s", message);
}

// lcms's messages go nowhere by default; each call here reports its own failure.
static cmsHPROFILE open_profile(const uint8_t *data, size_t length) {
    if (data == NULL || length == 0) return cmsCreate_sRGBProfile();
    if (length < 132 || length > 0x7fffffff) return NULL;  // shorter than the header and tag count
    return cmsOpenProfileFromMem(data, (cmsUInt32Number)length);
}

static void signature_text(cmsUInt32Number signature, char out[5]) {
    for (int i = 0; i < 4; i++) {
        char c = (char)((signature >> (24 - 8 * i)) & 0xff);
        out[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    out[4] = 0;
}

int imgtool_icc_inspect(const uint8_t *data, size_t length, imgtool_icc_info *info, char *error, size_t error_size) {
    memset(info, 0, sizeof *info);
    if (data == NULL || length < 132) {
        set_error(error, error_size, "shorter than an ICC header");
        return 0;
    }
    cmsHPROFILE profile = open_profile(data, length);
    if (profile == NULL) {
        set_error(error, error_size, "Little CMS cannot read it");
        return 0;
    }
    cmsColorSpaceSignature space = cmsGetColorSpace(profile);
    switch (space) {
        case cmsSigRgbData: info->space = IMGTOOL_ICC_SPACE_RGB; break;
        case cmsSigGrayData: info->space = IMGTOOL_ICC_SPACE_GRAY; break;
        case cmsSigCmykData: info->space = IMGTOOL_ICC_SPACE_CMYK; break;
        default: info->space = IMGTOOL_ICC_SPACE_OTHER; break;
    }
    signature_text((cmsUInt32Number)space, info->space_signature);
    signature_text((cmsUInt32Number)cmsGetDeviceClass(profile), info->device_class);
    info->version = cmsGetProfileVersion(profile);
    cmsUInt32Number got =
        cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", info->description, sizeof info->description);
    if (got == 0) info->description[0] = 0;
    info->description[sizeof info->description - 1] = 0;
    cmsCloseProfile(profile);
    return 1;
}

static uint8_t *serialise(cmsHPROFILE profile, size_t *length) {
    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(profile, NULL, &size) || size == 0) return NULL;
    uint8_t *bytes = malloc(size);
    if (bytes == NULL) return NULL;
    if (!cmsSaveProfileToMem(profile, bytes, &size)) {
        free(bytes);
        return NULL;
    }
    *length = size;
    return bytes;
}

static void describe(cmsHPROFILE profile, const char *description) {
    cmsMLU *text = cmsMLUalloc(NULL, 1);
    if (text == NULL) return;
    cmsMLUsetASCII(text, "en", "US", description);
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, text);
    cmsMLUfree(text);
}

static cmsToneCurve *transfer_curve(double gamma) {
    if (gamma > 0) return cmsBuildGamma(NULL, gamma);
    const cmsFloat64Number srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    return cmsBuildParametricToneCurve(NULL, 4, srgb);
}

uint8_t *imgtool_icc_make_rgb(const double white[2], const double red[2], const double green[2],
                              const double blue[2], double gamma, const char *description, size_t *length) {
    cmsCIExyY white_point = {white[0], white[1], 1};
    cmsCIExyYTRIPLE primaries = {{red[0], red[1], 1}, {green[0], green[1], 1}, {blue[0], blue[1], 1}};
    cmsToneCurve *curve = transfer_curve(gamma);
    if (curve == NULL) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white_point, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (profile == NULL) return NULL;
    if (description != NULL) describe(profile, description);
    uint8_t *bytes = serialise(profile, length);
    cmsCloseProfile(profile);
    return bytes;
}

uint8_t *imgtool_icc_make_srgb(size_t *length) {
    cmsHPROFILE profile = cmsCreate_sRGBProfile();
    if (profile == NULL) return NULL;
    describe(profile, "sRGB IEC61966-2.1");
    uint8_t *bytes = serialise(profile, length);
    cmsCloseProfile(profile);
    return bytes;
}

void imgtool_icc_free(uint8_t *data) { free(data); }

imgtool_color_transform *imgtool_color_transform_new(const uint8_t *source, size_t source_length,
                                                     const uint8_t *destination, size_t destination_length,
                                                     imgtool_pixels pixels, char *error, size_t error_size) {
    cmsUInt32Number in_format, out_format;
    switch (pixels) {
        case IMGTOOL_PIXELS_RGBA8:
            in_format = TYPE_RGBA_8;
            out_format = TYPE_RGBA_8;
            break;
        case IMGTOOL_PIXELS_RGBA16:
            in_format = TYPE_RGBA_16;
            out_format = TYPE_RGBA_16;
            break;
        case IMGTOOL_PIXELS_GRAY_IN_RGBA8:
            in_format = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
            out_format = TYPE_RGBA_8;
            break;
        case IMGTOOL_PIXELS_GRAY_IN_RGBA16:
            in_format = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(2) | EXTRA_SH(3);
            out_format = TYPE_RGBA_16;
            break;
        case IMGTOOL_PIXELS_CMYK8_INVERTED:
            in_format = TYPE_CMYK_8_REV;
            out_format = TYPE_RGBA_8;
            break;
        case IMGTOOL_PIXELS_CMYK8:
            in_format = TYPE_CMYK_8;
            out_format = TYPE_RGBA_8;
            break;
        default:
            set_error(error, error_size, "unknown pixel layout");
            return NULL;
    }
    cmsHPROFILE input = open_profile(source, source_length);
    if (input == NULL) {
        set_error(error, error_size, "Little CMS cannot read the image's profile");
        return NULL;
    }
    cmsHPROFILE output = open_profile(destination, destination_length);
    if (output == NULL) {
        cmsCloseProfile(input);
        set_error(error, error_size, "Little CMS cannot read the output profile");
        return NULL;
    }
    // NOCACHE: one transform serves several threads at once (the one-pixel cache is not shared
    // safely). The alpha sample is an extra channel that is never written, so it survives in place.
    cmsHTRANSFORM transform =
        cmsCreateTransform(input, in_format, output, out_format, INTENT_PERCEPTUAL, cmsFLAGS_NOCACHE);
    cmsCloseProfile(input);
    cmsCloseProfile(output);
    if (transform == NULL) {
        set_error(error, error_size, "Little CMS cannot convert between these profiles");
        return NULL;
    }
    imgtool_color_transform *result = malloc(sizeof *result);
    if (result == NULL) {
        cmsDeleteTransform(transform);
        set_error(error, error_size, "out of memory");
        return NULL;
    }
    result->transform = transform;
    return result;
}

void imgtool_color_transform_apply(const imgtool_color_transform *transform, const void *input, void *output,
                                   size_t count) {
    while (count > 0) {
        cmsUInt32Number chunk = count > 0x10000000 ? 0x10000000 : (cmsUInt32Number)count;
        cmsDoTransform(transform->transform, input, output, chunk);
        count -= chunk;
        input = (const void *)((const uint8_t *)input + (size_t)chunk * 4);
        output = (void *)((uint8_t *)output + (size_t)chunk * 4);
    }
}

void imgtool_color_transform_cmyk_rows(const imgtool_color_transform *transform, uint8_t *pixels, size_t count) {
    imgtool_color_transform_apply(transform, pixels, pixels, count);
    for (size_t i = 0; i < count; i++) pixels[i * 4 + 3] = 255;
}

void imgtool_color_transform_free(imgtool_color_transform *transform) {
    if (transform == NULL) return;
    cmsDeleteTransform(transform->transform);
    free(transform);
}

int imgtool_icc_sample_curves(const uint8_t *data, size_t length, float *out, size_t count) {
    cmsHPROFILE profile = open_profile(data, length);
    if (profile == NULL) return 0;
    int ok = 0;
    if (count >= 2 && cmsIsMatrixShaper(profile)) {
        const cmsToneCurve *curves[3] = {NULL, NULL, NULL};
        if (cmsGetColorSpace(profile) == cmsSigGrayData) {
            curves[0] = curves[1] = curves[2] = cmsReadTag(profile, cmsSigGrayTRCTag);
        } else if (cmsGetColorSpace(profile) == cmsSigRgbData) {
            curves[0] = cmsReadTag(profile, cmsSigRedTRCTag);
            curves[1] = cmsReadTag(profile, cmsSigGreenTRCTag);
            curves[2] = cmsReadTag(profile, cmsSigBlueTRCTag);
        }
        if (curves[0] != NULL && curves[1] != NULL && curves[2] != NULL) {
            for (size_t channel = 0; channel < 3; channel++) {
                for (size_t i = 0; i < count; i++) {
                    float value = cmsEvalToneCurveFloat(curves[channel], (float)i / (float)(count - 1));
                    out[channel * count + i] = value < 0 ? 0 : (value > 1 ? 1 : value);
                }
            }
            ok = 1;
        }
    }
    cmsCloseProfile(profile);
    return ok;
}
