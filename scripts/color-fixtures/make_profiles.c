/*
 * make_profiles.c - writes the ICC profiles used by the colour-management test fixtures.
 *
 * Build and run (scripts/make-color-fixtures does this in a temp dir):
 *   cc make_profiles.c -llcms2 -lm -o make_profiles && ./make_profiles OUTDIR
 *
 * Writes into OUTDIR:
 *   display-p3.icc  "Display P3"        D65, P3 primaries, sRGB transfer curve
 *   adobe-rgb.icc   "Adobe RGB (1998)"  D65, gamma 563/256 = 2.19921875
 *   prophoto.icc    "ProPhoto RGB"      D50, gamma 1.8
 *   gray-22.icc     "Gray Gamma 2.2"    D50, gamma 2.2
 *   cmyk-test.icc   "imgtool test CMYK" output class, CMYK <-> Lab LUT profile from a toy
 *                                       subtractive ink model (AToB0 9^4 grid, BToA0 17^3 grid)
 *   broken-7.icc    7 bytes of junk
 *   truncated.icc   first 100 bytes of display-p3.icc
 *
 * All profiles are ICC v2.4. lcms stamps the creation time into the header, so after saving
 * the date field (bytes 24..35) is overwritten with a fixed date (2024-06-01 12:00:00) to keep
 * the output deterministic.
 * Finally the CMYK profile is re-opened and checked: CMYK->sRGB and Lab->CMYK->Lab transforms
 * are built and the round-trip error is printed; the program fails if it is unreasonable.
 */
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *outdir;

static void die(const char *msg) {
    fprintf(stderr, "make_profiles: %s\n", msg);
    exit(1);
}

static char *path_of(const char *name) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", outdir, name);
    return buf;
}

static void set_text(cmsHPROFILE h, cmsTagSignature sig, const char *text) {
    cmsMLU *mlu = cmsMLUalloc(NULL, 1);
    if (!mlu || !cmsMLUsetASCII(mlu, "en", "US", text)) die("cmsMLUsetASCII failed");
    if (!cmsWriteTag(h, sig, mlu)) die("cmsWriteTag(text) failed");
    cmsMLUfree(mlu);
}

/* Save with cmsSaveProfileToFile, then pin the header date (bytes 24..35, six big-endian
 * uint16: year, month, day, hour, minute, second) to 2024-06-01 12:00:00 (not January: Pillow 9.4 mis-decodes
 * tm_mon and raises on month 1 in ImageCms' creation_date). */
static void save(cmsHPROFILE h, const char *name, const char *desc) {
    set_text(h, cmsSigProfileDescriptionTag, desc);
    set_text(h, cmsSigCopyrightTag, "No copyright, use freely");
    cmsSetProfileVersion(h, 2.4);
    char *p = path_of(name);
    if (!cmsSaveProfileToFile(h, p)) die("cmsSaveProfileToFile failed");
    cmsCloseProfile(h);
    static const unsigned char date[12] = {0x07, 0xE8, 0, 6, 0, 1, 0, 12, 0, 0, 0, 0};
    FILE *f = fopen(p, "r+b");
    if (!f || fseek(f, 24, SEEK_SET) != 0 || fwrite(date, 1, 12, f) != 12 || fclose(f) != 0)
        die("patching header date failed");
}

/* ---------- RGB / gray matrix-TRC profiles ---------- */

static void rgb_profile(const char *name, const char *desc, cmsCIExyY white,
                        cmsCIExyYTRIPLE prim, cmsToneCurve *trc) {
    cmsToneCurve *curves[3] = {trc, trc, trc};
    cmsHPROFILE h = cmsCreateRGBProfile(&white, &prim, curves);
    if (!h) die("cmsCreateRGBProfile failed");
    save(h, name, desc);
}

static void make_rgb_profiles(void) {
    cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
    cmsCIExyY d50 = {0.3457, 0.3585, 1.0};

    /* Display P3: sRGB parametric curve (ICC type 4 / lcms type 4). A v2 profile cannot hold a
     * parametricCurveType, so the curve is sampled into a 1024-entry curv table (lcms would
     * otherwise write 4096 entries per channel). */
    double srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *para = cmsBuildParametricToneCurve(NULL, 4, srgb);
    if (!para) die("parametric curve failed");
    cmsUInt16Number tab[1024];
    for (int i = 0; i < 1024; i++) {
        double v = cmsEvalToneCurveFloat(para, (cmsFloat32Number)(i / 1023.0));
        tab[i] = (cmsUInt16Number)floor(v * 65535.0 + 0.5);
    }
    cmsFreeToneCurve(para);
    cmsToneCurve *srgb_trc = cmsBuildTabulatedToneCurve16(NULL, 1024, tab);
    cmsCIExyYTRIPLE p3 = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    rgb_profile("display-p3.icc", "Display P3", d65, p3, srgb_trc);
    cmsFreeToneCurve(srgb_trc);

    cmsToneCurve *g_adobe = cmsBuildGamma(NULL, 2.19921875);
    cmsCIExyYTRIPLE adobe = {{0.64, 0.33, 1.0}, {0.21, 0.71, 1.0}, {0.15, 0.06, 1.0}};
    rgb_profile("adobe-rgb.icc", "Adobe RGB (1998)", d65, adobe, g_adobe);
    cmsFreeToneCurve(g_adobe);

    cmsToneCurve *g18 = cmsBuildGamma(NULL, 1.8);
    cmsCIExyYTRIPLE pro = {{0.7347, 0.2653, 1.0}, {0.1596, 0.8404, 1.0}, {0.0366, 0.0001, 1.0}};
    rgb_profile("prophoto.icc", "ProPhoto RGB", d50, pro, g18);
    cmsFreeToneCurve(g18);

    cmsToneCurve *g22 = cmsBuildGamma(NULL, 2.2);
    cmsHPROFILE gray = cmsCreateGrayProfile(&d50, g22);
    if (!gray) die("cmsCreateGrayProfile failed");
    save(gray, "gray-22.icc", "Gray Gamma 2.2");
    cmsFreeToneCurve(g22);
}

/* ---------- toy CMYK ink model ---------- */

/* Per-ink transmittance in three broad bands, expressed as linear-sRGB channels (R, G, B).
 * Paper is a perfect white (1,1,1). Dot gain: a' = a + 0.25 a (1 - a) (peaks at +6% at 50%). */
static const double INK[4][3] = {
    {0.10, 0.58, 0.92}, /* cyan    */
    {0.88, 0.12, 0.50}, /* magenta */
    {0.97, 0.90, 0.07}, /* yellow  */
    {0.04, 0.04, 0.04}, /* black   */
};

static double dot_gain(double a) { return a + 0.25 * a * (1.0 - a); }

/* CMYK ink amounts 0..1 -> linear sRGB (D65-relative, but we map it through the D50-adapted
 * sRGB matrix so paper white lands exactly on the D50 PCS white). */
static void model_rgb(const double cmyk[4], double rgb[3]) {
    for (int ch = 0; ch < 3; ch++) {
        double t = 1.0;
        for (int i = 0; i < 4; i++) {
            double a = dot_gain(cmyk[i]);
            t *= (1.0 - a) + a * INK[i][ch];
        }
        rgb[ch] = t;
    }
}

/* sRGB primaries, Bradford-adapted to D50 (as in the ICC sRGB profile). */
static const double M[3][3] = {
    {0.4360747, 0.3850649, 0.1430804},
    {0.2225045, 0.7168786, 0.0606169},
    {0.0139322, 0.0971045, 0.7141733},
};

static void rgb_to_lab(const double rgb[3], cmsCIELab *lab) {
    cmsCIEXYZ xyz;
    xyz.X = M[0][0] * rgb[0] + M[0][1] * rgb[1] + M[0][2] * rgb[2];
    xyz.Y = M[1][0] * rgb[0] + M[1][1] * rgb[1] + M[1][2] * rgb[2];
    xyz.Z = M[2][0] * rgb[0] + M[2][1] * rgb[1] + M[2][2] * rgb[2];
    cmsXYZ2Lab(cmsD50_XYZ(), lab, &xyz);
}

static void lab_to_rgb(const cmsCIELab *lab, double rgb[3]) {
    static double inv[3][3];
    static int have_inv = 0;
    if (!have_inv) {
        double a = M[0][0], b = M[0][1], c = M[0][2], d = M[1][0], e = M[1][1], f = M[1][2],
               g = M[2][0], h = M[2][1], k = M[2][2];
        double det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
        inv[0][0] = (e * k - f * h) / det; inv[0][1] = (c * h - b * k) / det; inv[0][2] = (b * f - c * e) / det;
        inv[1][0] = (f * g - d * k) / det; inv[1][1] = (a * k - c * g) / det; inv[1][2] = (c * d - a * f) / det;
        inv[2][0] = (d * h - e * g) / det; inv[2][1] = (b * g - a * h) / det; inv[2][2] = (a * e - b * d) / det;
        have_inv = 1;
    }
    cmsCIEXYZ xyz;
    cmsLab2XYZ(cmsD50_XYZ(), &xyz, lab);
    double v[3] = {xyz.X, xyz.Y, xyz.Z};
    for (int i = 0; i < 3; i++) rgb[i] = inv[i][0] * v[0] + inv[i][1] * v[1] + inv[i][2] * v[2];
}

/* AToB0 sampler: 16-bit CMYK grid point -> v2-encoded Lab (lut16 in a v2 profile). */
static cmsInt32Number sample_atob(CMSREGISTER const cmsUInt16Number In[],
                                  CMSREGISTER cmsUInt16Number Out[], CMSREGISTER void *cargo) {
    (void)cargo;
    double cmyk[4], rgb[3];
    for (int i = 0; i < 4; i++) cmyk[i] = In[i] / 65535.0;
    model_rgb(cmyk, rgb);
    cmsCIELab lab;
    rgb_to_lab(rgb, &lab);
    cmsFloat2LabEncodedV2(Out, &lab);
    return 1;
}

static double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

/* Inverse of the model: K from a simple GCR on darkness, then CMY by damped Newton
 * iteration (numeric Jacobian) with K fixed, clamped to 0..1. Out-of-gamut targets end at the
 * nearest reachable corner of the iteration, which is good enough for a test profile. */
static void invert_model(const double target_in[3], double cmyk[4]) {
    double target[3];
    for (int i = 0; i < 3; i++) target[i] = clamp01(target_in[i]);
    double mx = fmax(target[0], fmax(target[1], target[2]));
    double dark = 1.0 - pow(mx, 1.0 / 2.2);
    cmyk[3] = dark > 0.35 ? 0.95 * (dark - 0.35) / 0.65 : 0.0;
    for (int i = 0; i < 3; i++) cmyk[i] = clamp01(1.0 - pow(target[i], 1.0 / 2.2) - cmyk[3]);
    for (int it = 0; it < 40; it++) {
        double rgb[3], err[3], J[3][3];
        model_rgb(cmyk, rgb);
        /* Work in log space (density): products of transmittances become sums. */
        for (int i = 0; i < 3; i++) err[i] = log(fmax(target[i], 1e-4)) - log(fmax(rgb[i], 1e-6));
        for (int j = 0; j < 3; j++) {
            double c2[4] = {cmyk[0], cmyk[1], cmyk[2], cmyk[3]}, r2[3];
            double h = 1e-4;
            c2[j] = cmyk[j] + h;
            model_rgb(c2, r2);
            for (int i = 0; i < 3; i++) J[i][j] = (log(r2[i]) - log(rgb[i])) / h;
        }
        double a = J[0][0], b = J[0][1], c = J[0][2], d = J[1][0], e = J[1][1], f = J[1][2],
               g = J[2][0], hh = J[2][1], k = J[2][2];
        double det = a * (e * k - f * hh) - b * (d * k - f * g) + c * (d * hh - e * g);
        if (fabs(det) < 1e-12) break;
        double dx[3];
        dx[0] = (err[0] * (e * k - f * hh) - b * (err[1] * k - f * err[2]) + c * (err[1] * hh - e * err[2])) / det;
        dx[1] = (a * (err[1] * k - f * err[2]) - err[0] * (d * k - f * g) + c * (d * err[2] - err[1] * g)) / det;
        dx[2] = (a * (e * err[2] - err[1] * hh) - b * (d * err[2] - err[1] * g) + err[0] * (d * hh - e * g)) / det;
        for (int j = 0; j < 3; j++) cmyk[j] = clamp01(cmyk[j] + 0.7 * dx[j]);
    }
}

/* BToA0 sampler: v2-encoded Lab grid point -> 16-bit CMYK. */
static cmsInt32Number sample_btoa(CMSREGISTER const cmsUInt16Number In[],
                                  CMSREGISTER cmsUInt16Number Out[], CMSREGISTER void *cargo) {
    (void)cargo;
    cmsCIELab lab;
    cmsLabEncoded2FloatV2(&lab, In);
    double rgb[3], cmyk[4];
    lab_to_rgb(&lab, rgb);
    invert_model(rgb, cmyk);
    for (int i = 0; i < 4; i++) Out[i] = (cmsUInt16Number)floor(clamp01(cmyk[i]) * 65535.0 + 0.5);
    return 1;
}

static void make_cmyk_profile(void) {
    cmsHPROFILE h = cmsCreateProfilePlaceholder(NULL);
    if (!h) die("placeholder failed");
    cmsSetProfileVersion(h, 2.4);
    cmsSetDeviceClass(h, cmsSigOutputClass);
    cmsSetColorSpace(h, cmsSigCmykData);
    cmsSetPCS(h, cmsSigLabData);
    cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);
    if (!cmsWriteTag(h, cmsSigMediaWhitePointTag, (void *)cmsD50_XYZ())) die("wtpt failed");

    cmsPipeline *a2b = cmsPipelineAlloc(NULL, 4, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, 9, 4, 3, NULL);
    if (!a2b || !clut || !cmsStageSampleCLut16bit(clut, sample_atob, NULL, 0)) die("AToB0 CLUT failed");
    cmsPipelineInsertStage(a2b, cmsAT_END, clut);
    if (!cmsWriteTag(h, cmsSigAToB0Tag, a2b)) die("write AToB0 failed");
    cmsPipelineFree(a2b);

    cmsPipeline *b2a = cmsPipelineAlloc(NULL, 3, 4);
    cmsStage *clut2 = cmsStageAllocCLut16bit(NULL, 17, 3, 4, NULL);
    if (!b2a || !clut2 || !cmsStageSampleCLut16bit(clut2, sample_btoa, NULL, 0)) die("BToA0 CLUT failed");
    cmsPipelineInsertStage(b2a, cmsAT_END, clut2);
    if (!cmsWriteTag(h, cmsSigBToA0Tag, b2a)) die("write BToA0 failed");
    cmsPipelineFree(b2a);
    /* No AToB1/BToA1/AToB2/BToA2 and no gamut tag: other intents fall back to the 0 tables. */

    save(h, "cmyk-test.icc", "imgtool test CMYK");
}

/* ---------- junk profiles ---------- */

static void make_broken(void) {
    static const unsigned char junk[7] = {'n', 'o', 't', 'I', 'C', 'C', 0xFF};
    FILE *f = fopen(path_of("broken-7.icc"), "wb");
    if (!f || fwrite(junk, 1, 7, f) != 7 || fclose(f) != 0) die("write broken-7.icc failed");

    unsigned char head[100];
    f = fopen(path_of("display-p3.icc"), "rb");
    if (!f || fread(head, 1, 100, f) != 100) die("read display-p3.icc failed");
    fclose(f);
    f = fopen(path_of("truncated.icc"), "wb");
    if (!f || fwrite(head, 1, 100, f) != 100 || fclose(f) != 0) die("write truncated.icc failed");
}

/* ---------- self check of the CMYK profile ---------- */

static void check_cmyk(void) {
    cmsHPROFILE cmyk = cmsOpenProfileFromFile(path_of("cmyk-test.icc"), "r");
    if (!cmyk) die("cannot reopen cmyk-test.icc");
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsHPROFILE lab = cmsCreateLab4Profile(NULL);
    cmsHTRANSFORM to_srgb = cmsCreateTransform(cmyk, TYPE_CMYK_8, srgb, TYPE_RGB_8, INTENT_PERCEPTUAL, 0);
    cmsHTRANSFORM c2l = cmsCreateTransform(cmyk, TYPE_CMYK_DBL, lab, TYPE_Lab_DBL, INTENT_PERCEPTUAL, 0);
    cmsHTRANSFORM l2c = cmsCreateTransform(lab, TYPE_Lab_DBL, cmyk, TYPE_CMYK_DBL, INTENT_PERCEPTUAL, 0);
    if (!to_srgb || !c2l || !l2c) die("cannot build transforms with cmyk-test.icc");

    static const unsigned char probes[][4] = {
        {0, 0, 0, 0}, {255, 0, 0, 0}, {0, 255, 0, 0}, {0, 0, 255, 0}, {0, 0, 0, 255},
        {255, 255, 255, 255}, {128, 128, 128, 0}, {20, 40, 60, 0},
    };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        unsigned char rgb[3];
        cmsDoTransform(to_srgb, probes[i], rgb, 1);
        fprintf(stderr, "  cmyk(%3d,%3d,%3d,%3d) -> sRGB(%3d,%3d,%3d)\n", probes[i][0], probes[i][1],
                probes[i][2], probes[i][3], rgb[0], rgb[1], rgb[2]);
    }

    /* Lab -> CMYK -> Lab round trip over colours the ink model can print. */
    double worst = 0, sum = 0;
    int n = 0;
    for (int c = 0; c <= 100; c += 20)
        for (int m = 0; m <= 100; m += 20)
            for (int y = 0; y <= 100; y += 20) {
                double dev[4] = {c / 100.0, m / 100.0, y / 100.0, 0}, rgb[3];
                model_rgb(dev, rgb);
                cmsCIELab want, got;
                rgb_to_lab(rgb, &want);
                double ink[4];
                cmsDoTransform(l2c, &want, ink, 1);
                cmsDoTransform(c2l, ink, &got, 1);
                double de = cmsDeltaE(&want, &got);
                sum += de;
                n++;
                if (de > worst) worst = de;
            }
    fprintf(stderr, "  Lab->CMYK->Lab round trip on %d in-gamut colours: mean dE76 %.2f, max %.2f\n", n,
            sum / n, worst);
    if (sum / n > 3.0 || worst > 12.0) die("CMYK profile round trip is too poor");

    cmsDeleteTransform(to_srgb);
    cmsDeleteTransform(c2l);
    cmsDeleteTransform(l2c);
    cmsCloseProfile(cmyk);
    cmsCloseProfile(srgb);
    cmsCloseProfile(lab);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    make_rgb_profiles();
    make_cmyk_profile();
    make_broken();
    check_cmyk();
    return 0;
}
