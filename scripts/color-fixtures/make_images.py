#!/usr/bin/env python3
"""Makes the colour-management test images and their sRGB references.

Usage: make_images.py OUTDIR   (OUTDIR already holds the profiles from make_profiles.c)
Run through scripts/make-color-fixtures, which builds the profiles first.

Needs Pillow (with ImageCms / littlecms2) and numpy, plus liblcms2.so.2 for the 16-bit
reference (loaded with ctypes). Every pixel is computed here; noise uses a fixed seed.

Writes the images, `<stem>.srgb.png` references (Pillow ImageCms, perceptual intent, to
ImageCms.createProfile("sRGB")), and README.md (with the tool versions and measured numbers).
"""
import ctypes
import io
import math
import os
import random
import struct
import sys
import zlib

import numpy as np
from PIL import Image, ImageCms, TiffImagePlugin, features
import PIL

W, H = 48, 32
OUT = sys.argv[1] if len(sys.argv) > 1 else "."
NOTES = {}  # measured numbers for README.md


def path(name):
    return os.path.join(OUT, name)


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


# ---------------------------------------------------------------- test pictures

def picture_rgb():
    """48x32 float picture (0..1) in the *source* colour space, shape (H, W, 3).

    Bands of 8 rows, six 8-px patches each:
      rows  0-7   saturated red, green, blue, cyan, magenta, yellow
      rows  8-15  skin-like tones with slight seeded noise (+-0.012)
      rows 16-23  greys 0, 0.2, 0.4, 0.6, 0.8, 1.0
      rows 24-27  grey ramp 0..1 across x
      rows 28-31  colour ramp (x, 0.6(1-x), 1-x)
    """
    rng = random.Random(20240601)
    pic = np.zeros((H, W, 3), dtype=np.float64)
    sat = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 0)]
    skin = [(255, 224, 189), (234, 192, 134), (198, 134, 66), (141, 85, 36), (224, 172, 105), (255, 205, 148)]
    greys = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    for y in range(H):
        for x in range(W):
            band, col = y // 8, x // 8
            t = x / (W - 1)
            if band == 0:
                v = sat[col]
            elif band == 1:
                v = [min(1.0, max(0.0, c / 255 + rng.uniform(-0.012, 0.012))) for c in skin[col]]
            elif band == 2:
                v = (greys[col],) * 3
            elif y < 28:
                v = (t, t, t)
            else:
                v = (t, 0.6 * (1 - t), 1 - t)
            pic[y, x] = v
    return pic


def to8(pic):
    return np.clip(np.floor(pic * 255 + 0.5), 0, 255).astype(np.uint8)


def to16(pic):
    return np.clip(np.floor(pic * 65535 + 0.5), 0, 65535).astype(np.uint16)


def picture_cmyk():
    """48x32 CMYK ink amounts (0 = no ink, Pillow's CMYK convention), uint8 (H, W, 4)."""
    pc = lambda *v: tuple(round(c * 2.55) for c in v)
    bands = [
        [pc(100, 0, 0, 0), pc(0, 100, 0, 0), pc(0, 0, 100, 0), pc(0, 0, 0, 100), pc(100, 100, 0, 0), pc(0, 100, 100, 0)],
        [pc(5, 25, 35, 0), pc(10, 35, 50, 0), pc(20, 50, 70, 5), pc(30, 60, 80, 20), pc(0, 15, 25, 0), pc(15, 40, 60, 10)],
        [pc(0, 0, 0, 0), pc(0, 0, 0, 25), pc(0, 0, 0, 50), pc(0, 0, 0, 75), pc(0, 0, 0, 100), pc(60, 40, 40, 100)],
    ]
    img = np.zeros((H, W, 4), dtype=np.uint8)
    for y in range(H):
        for x in range(W):
            band, col = y // 8, x // 8
            t = round(255 * x / (W - 1))
            if band < 3:
                img[y, x] = bands[band][col]
            elif y < 28:
                img[y, x] = (t, 0, 0, 0)  # cyan ramp
            else:
                img[y, x] = (t, round(t * 0.8), round(t * 0.8), 0)  # near-neutral CMY ramp
    return img


def alpha_mask():
    """Alpha for p3-rgba.png: opaque, except patches 4/5 of the skin band (128 / 0) and the
    last two bands, which fade 255 -> 0 across x. RGB stays intact under alpha 0."""
    a = np.full((H, W), 255, dtype=np.uint8)
    a[8:16, 32:40] = 128
    a[8:16, 40:48] = 0
    for x in range(W):
        a[24:32, x] = round(255 * (W - 1 - x) / (W - 1))
    return a


def logo():
    """16x16 RGBA: anti-aliased red disc, blue square with a translucent rim, clear background."""
    img = np.zeros((16, 16, 4), dtype=np.uint8)
    for y in range(16):
        for x in range(16):
            d = math.hypot(x + 0.5 - 6.5, y + 0.5 - 6.5)
            cov = min(1.0, max(0.0, 5.5 + 0.5 - d))
            px = [0, 0, 0, 0]
            if cov > 0:
                px = [255, 0, 0, round(255 * cov)]
            if 8 <= x <= 14 and 8 <= y <= 14:
                rim = x in (8, 14) or y in (8, 14)
                px = [0, 0, 255, 160 if rim else 255]
            img[y, x] = px
    return Image.fromarray(img, "RGBA")


# ---------------------------------------------------------------- writers

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png16(name, rgb16, icc, icc_name):
    """16-bit RGB PNG written by hand: IHDR (depth 16, colour type 2), iCCP, IDAT, IEND."""
    h, w, _ = rgb16.shape
    raw = b"".join(b"\x00" + rgb16[y].astype(">u2").tobytes() for y in range(h))
    data = b"\x89PNG\r\n\x1a\n"
    data += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
    data += chunk(b"iCCP", icc_name.encode("latin-1") + b"\x00\x00" + zlib.compress(icc, 9))
    data += chunk(b"IDAT", zlib.compress(raw, 9))
    data += chunk(b"IEND", b"")
    with open(path(name), "wb") as f:
        f.write(data)


def read_png16(name):
    """Decodes our own 16-bit PNG (filter 0 only) back to a uint16 array, plus the iCCP profile."""
    data = read(name)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, icc, ihdr = 8, b"", None, None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"iCCP":
            nul = body.index(b"\x00")
            assert body[nul + 1] == 0
            icc = zlib.decompress(body[nul + 2:])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[:4]
    assert (depth, ctype) == (16, 2)
    raw = zlib.decompress(idat)
    stride = 1 + w * 6
    rows = []
    for y in range(h):
        line = raw[y * stride:(y + 1) * stride]
        assert line[0] == 0
        rows.append(np.frombuffer(line[1:], dtype=">u2").reshape(w, 3))
    return np.stack(rows).astype(np.uint16), icc


def app2_icc(profile_bytes):
    body = b"ICC_PROFILE\x00" + bytes([1, 1]) + profile_bytes
    return b"\xff\xe2" + struct.pack(">H", 2 + len(body)) + body


def jpeg_segments(data):
    """(marker, payload) for the segments before SOS."""
    assert data[:2] == b"\xff\xd8"
    pos, segs = 2, []
    while True:
        assert data[pos] == 0xFF
        marker = data[pos + 1]
        n = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        segs.append((marker, data[pos + 4:pos + 2 + n], pos))
        if marker == 0xDA:
            return segs
        pos += 2 + n


# ---------------------------------------------------------------- lcms through ctypes (16-bit)

class Lcms:
    TYPE_RGB_8 = (4 << 16) | (3 << 3) | 1
    TYPE_RGB_16 = (4 << 16) | (3 << 3) | 2

    def __init__(self):
        self.lib = ctypes.CDLL("liblcms2.so.2")
        L = self.lib
        L.cmsOpenProfileFromMem.restype = ctypes.c_void_p
        L.cmsOpenProfileFromMem.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
        L.cmsCreate_sRGBProfile.restype = ctypes.c_void_p
        L.cmsCreateTransform.restype = ctypes.c_void_p
        L.cmsCreateTransform.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32,
                                         ctypes.c_uint32, ctypes.c_uint32]
        L.cmsDoTransform.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
        L.cmsDeleteTransform.argtypes = [ctypes.c_void_p]
        L.cmsCloseProfile.argtypes = [ctypes.c_void_p]
        L.cmsGetEncodedCMMversion.restype = ctypes.c_int

    def to_srgb8(self, icc, pixels, in_fmt, intent=0):
        L = self.lib
        src = L.cmsOpenProfileFromMem(icc, len(icc))
        dst = L.cmsCreate_sRGBProfile()
        assert src and dst
        xf = L.cmsCreateTransform(src, in_fmt, dst, self.TYPE_RGB_8, intent, 0)
        assert xf
        inp = np.ascontiguousarray(pixels)
        out = np.zeros(pixels.shape[:2] + (3,), dtype=np.uint8)
        L.cmsDoTransform(xf, inp.ctypes.data, out.ctypes.data, pixels.shape[0] * pixels.shape[1])
        L.cmsDeleteTransform(xf)
        L.cmsCloseProfile(src)
        L.cmsCloseProfile(dst)
        return out


# ---------------------------------------------------------------- main

def srgb_ref(im, icc_bytes, out_mode="RGB"):
    """Pillow ImageCms: profile -> built-in sRGB, perceptual intent (0).

    The result is rebuilt from its pixels so that no info (Pillow would otherwise carry an
    icc_profile of the lcms sRGB profile, which has a creation timestamp) reaches the PNG."""
    src = ImageCms.ImageCmsProfile(io.BytesIO(icc_bytes))
    dst = ImageCms.createProfile("sRGB")
    out = ImageCms.profileToProfile(im, src, dst, renderingIntent=0, outputMode=out_mode)
    return Image.fromarray(np.asarray(out), out.mode)


def main():
    lcms = Lcms()
    p3 = read("display-p3.icc")
    adobe = read("adobe-rgb.icc")
    pro = read("prophoto.icc")
    gray22 = read("gray-22.icc")
    cmyk_icc = read("cmyk-test.icc")
    junk = read("broken-7.icc")

    pic = picture_rgb()
    rgb8 = Image.fromarray(to8(pic), "RGB")

    # --- 8-bit RGB JPEGs, 4:4:4, q95
    rgb8.save(path("p3.jpg"), quality=95, subsampling=0, icc_profile=p3)
    rgb8.save(path("adobe-rgb.jpg"), quality=95, subsampling=0, icc_profile=adobe)

    # --- 16-bit ProPhoto PNG (hand-written)
    pic16 = to16(pic)
    write_png16("prophoto-16.png", pic16, pro, "ProPhoto RGB")

    # --- gray JPEG
    lum = pic @ np.array([0.299, 0.587, 0.114])
    Image.fromarray(to8(lum), "L").save(path("gray.jpg"), quality=95, icc_profile=gray22)

    # --- CMYK JPEG (Pillow writes Adobe APP14 + inverted samples)
    Image.fromarray(picture_cmyk(), "CMYK").save(path("cmyk.jpg"), quality=95, subsampling=0, icc_profile=cmyk_icc)

    # --- RGBA PNG with P3 iCCP
    rgba = np.dstack([to8(pic), alpha_mask()])
    Image.fromarray(rgba, "RGBA").save(path("p3-rgba.png"), icc_profile=p3, optimize=False, compress_level=9)

    # --- untagged logo
    logo().save(path("logo-untagged.png"), compress_level=9)

    # --- JPEG carrying the 7-byte junk profile in APP2 ICC_PROFILE (inserted after APP0/JFIF)
    buf = io.BytesIO()
    rgb8.save(buf, "JPEG", quality=90, subsampling=0)
    plain = buf.getvalue()
    segs = jpeg_segments(plain)
    assert segs[0][0] == 0xE0, "expected JFIF APP0 first"
    cut = segs[1][2]
    with open(path("broken-profile.jpg"), "wb") as f:
        f.write(plain[:cut] + app2_icc(junk) + plain[cut:])

    # --- untagged JPEG with EXIF orientation + GPS
    exif = Image.Exif()
    exif[0x010F] = "imgtool"  # Make
    exif[0x0112] = 6  # Orientation: rotate 90 CW to display
    R = TiffImagePlugin.IFDRational
    exif[0x8825] = {
        0: b"\x02\x02\x00\x00",  # GPSVersionID 2.2.0.0
        1: "N",
        2: (R(48, 1), R(51, 1), R(24, 1)),
        3: "E",
        4: (R(2, 1), R(21, 1), R(3, 1)),
    }
    rgb8.save(path("gps-exif.jpg"), quality=90, subsampling=0, exif=exif.tobytes())

    verify_and_reference(lcms, pic16)


def verify_and_reference(lcms, pic16):
    # ---------------- verification of what was written
    for name, icc_name, mode in [("p3.jpg", "display-p3.icc", "RGB"), ("adobe-rgb.jpg", "adobe-rgb.icc", "RGB"),
                                 ("gray.jpg", "gray-22.icc", "L"), ("cmyk.jpg", "cmyk-test.icc", "CMYK"),
                                 ("p3-rgba.png", "display-p3.icc", "RGBA")]:
        im = Image.open(path(name))
        assert im.size == (W, H) and im.mode == mode, (name, im.size, im.mode)
        assert im.info.get("icc_profile") == read(icc_name), name

    # 4:4:4 sampling in the RGB JPEGs (SOF0 component sampling factors all 0x11)
    for name in ["p3.jpg", "adobe-rgb.jpg", "cmyk.jpg"]:
        sof = [s for s in jpeg_segments(read(name)) if s[0] in (0xC0, 0xC1, 0xC2)][0][1]
        ncomp = sof[5]
        factors = [sof[6 + 3 * i + 1] for i in range(ncomp)]
        assert all(f == 0x11 for f in factors), (name, factors)

    # CMYK JPEG: Adobe APP14 present, Pillow decodes it as inverted ("CMYK;I"), values round-trip.
    segs = jpeg_segments(read("cmyk.jpg"))
    adobe = [s[1] for s in segs if s[0] == 0xEE and s[1].startswith(b"Adobe")]
    assert adobe, "no Adobe APP14 marker in cmyk.jpg"
    NOTES["adobe_transform"] = adobe[0][11]
    cm = Image.open(path("cmyk.jpg"))
    NOTES["cmyk_rawmode"] = cm.tile[0][3][0] if isinstance(cm.tile[0][3], tuple) else cm.tile[0][3]
    assert NOTES["cmyk_rawmode"] == "CMYK;I", NOTES["cmyk_rawmode"]
    ink = np.asarray(cm).astype(int)
    NOTES["cmyk_readback_maxdiff"] = int(np.abs(ink - picture_cmyk().astype(int)).max())
    assert NOTES["cmyk_readback_maxdiff"] <= 8

    # 16-bit PNG: our decoder round-trips exactly; Pillow opens it and sees the profile.
    back16, icc = read_png16("prophoto-16.png")
    assert icc == read("prophoto.icc") and np.array_equal(back16, pic16)
    pim = Image.open(path("prophoto-16.png"))
    assert pim.size == (W, H) and pim.info.get("icc_profile") == read("prophoto.icc")
    NOTES["prophoto_pillow_mode"] = pim.mode

    # broken-profile.jpg: APP2 ICC_PROFILE with the 7 junk bytes, image still decodes.
    app2 = [s[1] for s in jpeg_segments(read("broken-profile.jpg")) if s[0] == 0xE2]
    assert app2 == [b"ICC_PROFILE\x00\x01\x01" + read("broken-7.icc")]
    Image.open(path("broken-profile.jpg")).load()

    # gps-exif.jpg
    g = Image.open(path("gps-exif.jpg"))
    ex = g.getexif()
    gps = ex.get_ifd(0x8825)
    assert ex[0x0112] == 6 and ex[0x010F] == "imgtool", dict(ex)
    assert gps[1] == "N" and gps[3] == "E", gps
    assert tuple(float(v) for v in gps[2]) == (48, 51, 24) and tuple(float(v) for v in gps[4]) == (2, 21, 3), gps
    assert "icc_profile" not in g.info
    NOTES["gps"] = {k: (tuple(float(x) for x in v) if isinstance(v, tuple) else v) for k, v in gps.items()}

    lg = Image.open(path("logo-untagged.png"))
    assert lg.mode == "RGBA" and lg.size == (16, 16) and "icc_profile" not in lg.info

    # ---------------- sRGB references (Pillow ImageCms, perceptual)
    for stem, ext, icc_name in [("p3", "jpg", "display-p3.icc"), ("adobe-rgb", "jpg", "adobe-rgb.icc"),
                                ("gray", "jpg", "gray-22.icc"), ("cmyk", "jpg", "cmyk-test.icc")]:
        im = Image.open(path(f"{stem}.{ext}"))
        im.load()
        srgb_ref(im, read(icc_name)).save(path(f"{stem}.srgb.png"), compress_level=9)

    im = Image.open(path("p3-rgba.png"))
    im.load()
    rgb = srgb_ref(im.convert("RGB"), read("display-p3.icc"))
    rgb.putalpha(im.getchannel("A"))
    rgb.save(path("p3-rgba.srgb.png"), compress_level=9)

    # 16-bit: lcms (same library Pillow links) through ctypes, TYPE_RGB_16 -> TYPE_RGB_8.
    ref16 = lcms.to_srgb8(read("prophoto.icc"), back16.astype(np.uint16), Lcms.TYPE_RGB_16)
    Image.fromarray(ref16, "RGB").save(path("prophoto-16.srgb.png"), compress_level=9)

    # Cross-checks: ctypes path == Pillow path on 8-bit data; 16-bit vs 8-bit-rounded input.
    p3im = Image.open(path("p3.jpg")).convert("RGB")
    via_ctypes = lcms.to_srgb8(read("display-p3.icc"), np.asarray(p3im), Lcms.TYPE_RGB_8)
    NOTES["ctypes_vs_pillow_p3_maxdiff"] = int(np.abs(via_ctypes.astype(int) -
                                                      np.asarray(Image.open(path("p3.srgb.png"))).astype(int)).max())
    rounded8 = Image.fromarray(np.floor(back16 / 257.0 + 0.5).astype(np.uint8), "RGB")
    via_pillow8 = np.asarray(srgb_ref(rounded8, read("prophoto.icc"))).astype(int)
    d = np.abs(via_pillow8 - ref16.astype(int))
    NOTES["prophoto_16_vs_8_max"] = int(d.max())
    NOTES["prophoto_16_vs_8_mean"] = float(d.mean())

    # Naive inverted-CMYK formula vs the profile-based reference.
    stored = 255 - ink  # what the Adobe-style JPEG stores
    c, m, y, k = (stored[..., i] for i in range(4))
    naive = np.dstack([c * k / 255.0, m * k / 255.0, y * k / 255.0])
    naive = np.floor(naive + 0.5)
    ref = np.asarray(Image.open(path("cmyk.srgb.png"))).astype(float)
    diff = np.abs(naive - ref)
    NOTES["naive_mean"] = float(diff.mean())
    NOTES["naive_max"] = int(diff.max())
    NOTES["naive_mean_per_channel"] = [float(diff[..., i].mean()) for i in range(3)]
    NOTES["naive_max_per_channel"] = [int(diff[..., i].max()) for i in range(3)]
    yy, xx, ch = np.unravel_index(np.argmax(diff), diff.shape)
    NOTES["naive_worst"] = (int(xx), int(yy), tuple(int(v) for v in ink[yy, xx]),
                            tuple(int(v) for v in naive[yy, xx]), tuple(int(v) for v in ref[yy, xx]))

    for f in os.listdir(OUT):  # references and the logo must be untagged
        if f.endswith(".srgb.png") or f == "logo-untagged.png":
            info = Image.open(path(f)).info
            assert not ({"icc_profile", "srgb", "gamma", "chromaticity"} & set(info)), (f, info)
    write_readme(lcms)
    for k, v in NOTES.items():
        print(f"  {k}: {v}")


def write_readme(lcms):
    files = sorted(f for f in os.listdir(OUT) if f != "README.md")
    sizes = "\n".join(f"| `{f}` | {os.path.getsize(path(f))} |" for f in files)
    v = lcms.lib.cmsGetEncodedCMMversion()
    n = NOTES
    pc = lambda xs, fmt: " / ".join(fmt % x for x in xs)
    text = f"""# Colour-management test fixtures

Small, deterministic inputs for colour-management tests, and sRGB reference renderings made
by an independent CMS binding. Everything here is generated; do not edit by hand.

Regenerate (from the repository root; needs `cc`, liblcms2-dev, Pillow with littlecms2, numpy):

    scripts/make-color-fixtures

The driver compiles `scripts/color-fixtures/make_profiles.c` (`cc make_profiles.c -llcms2 -lm`)
in a temporary directory, runs it to write the profiles, then runs
`scripts/color-fixtures/make_images.py` to write the images, the references and this README.
It deletes the old fixture files first, so a run always rebuilds the whole folder.

Generated with Pillow {PIL.__version__} (ImageCms, littlecms {features.version("littlecms2")}),
numpy {np.__version__}, liblcms2 {v // 1000}.{v % 1000 // 10} (for the profiles and the 16-bit
reference), Python {sys.version.split()[0]}.

## Profiles (lcms2, ICC v2.4, written by `make_profiles.c`)

All have a `desc` tag (given below) and `cprt` "No copyright, use freely". The header date is
pinned to 2024-06-01 12:00:00 so the bytes are deterministic.

| file | description | contents |
|---|---|---|
| `display-p3.icc` | Display P3 | matrix/TRC; D65 white; R(0.680,0.320) G(0.265,0.690) B(0.150,0.060); sRGB curve (parametric type 4: g=2.4, a=1/1.055, b=0.055/1.055, c=1/12.92, d=0.04045) sampled into a 1024-entry `curv` (v2 has no `para`), one tag shared by rTRC/gTRC/bTRC |
| `adobe-rgb.icc` | Adobe RGB (1998) | matrix/TRC; D65; R(0.64,0.33) G(0.21,0.71) B(0.15,0.06); gamma 2.19921875 (563/256) |
| `prophoto.icc` | ProPhoto RGB | matrix/TRC; D50 (0.3457,0.3585); R(0.7347,0.2653) G(0.1596,0.8404) B(0.0366,0.0001); gamma 1.8 (stored as u8Fixed8 461/256) |
| `gray-22.icc` | Gray Gamma 2.2 | `cmsCreateGrayProfile`, D50, gamma 2.2 |
| `cmyk-test.icc` | imgtool test CMYK | output class, CMYK data, Lab PCS; `A2B0` lut16 CLUT 9x9x9x9 (CMYK->Lab) and `B2A0` lut16 CLUT 17x17x17 (Lab->CMYK); no other intents (they fall back to 0) |
| `broken-7.icc` | - | 7 bytes of junk (`notICC` + 0xFF) |
| `truncated.icc` | - | the first 100 bytes of `display-p3.icc` |

`cmyk-test.icc` is a toy: each ink has a transmittance in three bands (treated as linear sRGB
R/G/B; cyan 0.10/0.58/0.92, magenta 0.88/0.12/0.50, yellow 0.97/0.90/0.07, black 0.04), dot gain
a + 0.25a(1-a), paper = perfect white (= D50 PCS white), product of transmittances -> XYZ (D50
sRGB matrix) -> Lab. `B2A0` picks K with a simple GCR on darkness and solves CMY by Newton
iteration against the same model. `make_profiles.c` re-opens the profile, builds CMYK->sRGB and
Lab->CMYK->Lab transforms and fails if the round trip is poor (mean dE76 about 1.7, max about 7.8
over a 6x6x6 CMY grid). It is not a real press profile; do not expect realistic colours.

## Images

All images are 48x32 unless noted. RGB content (values chosen in the source colour space), in
8-row bands of six 8-px patches: saturated R, G, B, C, M, Y; six skin-like tones with seeded
noise (+-3/255); greys 0, 0.2, 0.4, 0.6, 0.8, 1.0; then a 4-row grey ramp 0..1 across x and a
4-row colour ramp (x, 0.6(1-x), 1-x).

| file | what |
|---|---|
| `p3.jpg` | RGB JPEG, quality 95, 4:4:4, `display-p3.icc` embedded (APP2) |
| `adobe-rgb.jpg` | same picture, `adobe-rgb.icc` embedded |
| `prophoto-16.png` | 16-bit RGB PNG (IHDR depth 16, colour type 2), iCCP "ProPhoto RGB" with `prophoto.icc`; written byte by byte (filter 0, zlib level 9) because Pillow cannot write 16-bit RGB PNG. The same picture at full 16-bit precision (ramps use all 16 bits). Pillow opens it as mode `{n["prophoto_pillow_mode"]}` (it drops to 8 bits) |
| `gray.jpg` | L JPEG, quality 95, `gray-22.icc`; luma 0.299R+0.587G+0.114B of the picture |
| `cmyk.jpg` | CMYK JPEG, quality 95, 4:4:4, `cmyk-test.icc`. Pillow writes Adobe-style files: APP14 "Adobe" marker (transform {n["adobe_transform"]}) and **inverted** samples (stored = 255 - ink); Pillow reads it back with rawmode `{n["cmyk_rawmode"]}` (max read-back error {n["cmyk_readback_maxdiff"]}). Content, as ink %: C, M, Y, K, C+M, M+Y; six skin tones; K 0/25/50/75/100 and rich black 60/40/40/100; a cyan ramp; a C=x, M=Y=0.8x ramp |
| `p3-rgba.png` | 8-bit RGBA PNG, iCCP with `display-p3.icc`; the picture with alpha 128 and 0 on two skin patches and an alpha ramp 255->0 across x on the bottom 8 rows (RGB kept under alpha 0) |
| `logo-untagged.png` | 16x16 RGBA, no colour chunks (treat as sRGB): anti-aliased red (255,0,0) disc, blue (0,0,255) square with alpha-160 rim, transparent background |
| `broken-profile.jpg` | untagged RGB JPEG (quality 90) with an APP2 `ICC_PROFILE` segment (seq 1 of 1) holding the 7 bytes of `broken-7.icc`, inserted right after APP0 |
| `gps-exif.jpg` | untagged RGB JPEG (quality 90) with EXIF: Orientation 6, Make "imgtool", GPS IFD: GPSVersionID 2.2.0.0, GPSLatitudeRef N, GPSLatitude 48/1 51/1 24/1, GPSLongitudeRef E, GPSLongitude 2/1 21/1 3/1. Stored 48x32; displays as 32x48 |

## sRGB references

`<stem>.srgb.png` is `<stem>.<ext>` decoded by Pillow exactly as stored, then converted with
Pillow `ImageCms.profileToProfile` from the embedded profile to `ImageCms.createProfile("sRGB")`
(lcms `cmsCreate_sRGBProfile`), rendering intent **perceptual (0)**, no flags, 8-bit RGB, saved
untagged:

- `p3.srgb.png`, `adobe-rgb.srgb.png`, `gray.srgb.png` (RGB), `cmyk.srgb.png` (from Pillow's
  CMYK ink values, i.e. after Pillow undoes the Adobe inversion).
- `p3-rgba.srgb.png`: RGBA; RGB converted as above, alpha copied unchanged (unpremultiplied).
- `prophoto-16.srgb.png`: Pillow cannot hand 16-bit RGB to ImageCms, so this one is made from
  the 16-bit samples with the same lcms library called through ctypes (`TYPE_RGB_16` ->
  `TYPE_RGB_8`, perceptual, flags 0, `cmsCreate_sRGBProfile`). On 8-bit data the ctypes path
  and Pillow's agree to within {n["ctypes_vs_pillow_p3_maxdiff"]} (checked on `p3.jpg`). Converting an 8-bit-rounded copy
  through Pillow instead differs from this reference by max {n["prophoto_16_vs_8_max"]}, mean {n["prophoto_16_vs_8_mean"]:.3f}; tests
  that decode the PNG at 16 bits should match to about 1; tests that decode at 8 bits need a
  tolerance of at least {n["prophoto_16_vs_8_max"]}.

Our decoders and transforms (other JPEG IDCT, other lcms flags/precision) are not expected to be
bit-exact: compare with a small tolerance (a few levels per channel).

## Naive CMYK conversion vs the profile

The naive formula on the stored (inverted) samples, R = C'*K'/255, G = M'*K'/255,
B = Y'*K'/255 (C' = 255 - C ink etc.), compared with `cmyk.srgb.png` over all 48x32 pixels:

- mean absolute difference {n["naive_mean"]:.2f} (R/G/B: {pc(n["naive_mean_per_channel"], "%.2f")}),
- max {n["naive_max"]} (R/G/B: {pc(n["naive_max_per_channel"], "%d")}); worst pixel at x={n["naive_worst"][0]}, y={n["naive_worst"][1]}: ink {n["naive_worst"][2]},
  naive {n["naive_worst"][3]}, reference {n["naive_worst"][4]}.

So a test that accepts the naive path for `cmyk.jpg` proves nothing about profile handling;
a correct CMS path must land much closer to the reference than this.

## Files

| file | bytes |
|---|---|
{sizes}
"""
    with open(path("README.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
