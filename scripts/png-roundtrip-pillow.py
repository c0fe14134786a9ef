#!/usr/bin/env python3
"""Checks with Pillow that PNGs imgtool writes (image data deflated in blocks on several threads)
decode to the pixels they were made from: grey at 1, 2, 4, 8 and 16 bits, grey with alpha, RGB,
RGBA, a palette with tRNS, 16-bit RGB, at zlib levels 0-9 and at sizes from 1x1 and one row to
images of several blocks. Prints one line per failure and `N passed, N failed`; exits 1 on any.

Usage: scripts/png-roundtrip-pillow.py [IMGTOOL]   (default .build/debug/imgtool, then release)
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from PIL import Image
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pillow", "numpy"], check=True)
    import numpy as np
    from PIL import Image

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
candidates = sys.argv[1:] or [os.path.join(root, ".build/debug/imgtool"), os.path.join(root, ".build/release/imgtool")]
imgtool = next((c for c in candidates if os.path.exists(c)), None)
if imgtool is None:
    sys.exit("png-roundtrip-pillow: no imgtool binary (build first, or pass its path)")

rng = np.random.default_rng(2026)


def picture(mode, width, height):
    """An image in `mode` whose pixels force that storage (noise where many values are needed)."""
    y, x = np.mgrid[0:height, 0:width]
    if mode == "1":
        return Image.fromarray(((x // 3 + y) % 2 * 255).astype(np.uint8), "L")
    if mode == "L2":
        return Image.fromarray(((x + 2 * y) % 4 * 85).astype(np.uint8), "L")
    if mode == "L4":
        return Image.fromarray(((x * 3 + y) % 16 * 17).astype(np.uint8), "L")
    if mode == "L":
        return Image.fromarray(((x * 7 + y * 13) % 256).astype(np.uint8) ^ rng.integers(0, 4, (height, width), np.uint8), "L")
    if mode == "I;16":
        return Image.fromarray(rng.integers(0, 65536, (height, width)).astype(np.uint16))
    if mode == "LA":
        v = rng.integers(0, 256, (height, width, 2), np.uint8)
        return Image.fromarray(v, "LA")
    if mode == "RGB":
        return Image.fromarray(rng.integers(0, 256, (height, width, 3), np.uint8), "RGB")
    if mode == "RGBA":
        return Image.fromarray(rng.integers(0, 256, (height, width, 4), np.uint8), "RGBA")
    if mode == "P":
        colours = rng.integers(0, 256, (200, 4), np.uint8)
        colours[:, 3] = np.where(np.arange(200) % 5 == 0, 100, 255)
        return Image.fromarray(colours[(x // 4 + y // 3) % 200], "RGBA")
    raise ValueError(mode)


def pixels(image):
    """Comparable samples: RGBA (16-bit grey as itself), alpha-0 pixels as 0."""
    if image.mode in ("I;16", "I"):
        return np.asarray(image).astype(np.int64)
    a = np.asarray(image.convert("RGBA")).copy()
    a[a[..., 3] == 0] = 0
    return a


sizes = [(1, 1), (3000, 1), (1, 700), (37, 23), (1100, 800)]
modes = ["1", "L2", "L4", "L", "I;16", "LA", "RGB", "RGBA", "P"]
passed = failed = 0
with tempfile.TemporaryDirectory() as work:
    for mode in modes:
        for width, height in sizes:
            source = os.path.join(work, f"in-{mode.replace(';', '')}-{width}x{height}.png")
            image = picture(mode, width, height)
            image.save(source, compress_level=1)
            expected = pixels(Image.open(source))
            # Every level on the small sizes; the large one at the extremes and the default.
            levels = list(range(10)) if width * height < 100000 else [0, 1, 6, 9, None]
            for level in levels:
                out = os.path.join(work, "out.png")
                cmd = [imgtool, "convert", source, out, "--force"] + ([] if level is None else ["--level", str(level)])
                result = subprocess.run(cmd, capture_output=True, text=True)
                label = f"{mode} {width}x{height} level {'default' if level is None else level}"
                if result.returncode != 0:
                    failed += 1
                    print(f"FAIL {label}: imgtool exited {result.returncode}: {result.stderr.strip()}")
                    continue
                try:
                    with Image.open(out) as written:
                        written.load()
                        got = pixels(written)
                except Exception as error:  # noqa: BLE001 - any decoder failure is a failure here
                    failed += 1
                    print(f"FAIL {label}: Pillow cannot read it: {error}")
                    continue
                if got.shape != expected.shape or not np.array_equal(got, expected):
                    failed += 1
                    print(f"FAIL {label}: pixels differ")
                else:
                    passed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
