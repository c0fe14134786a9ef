#!/usr/bin/env python3
"""Checks with Pillow the GIFs that `conformance --roundtrip gif --save DIR` wrote: each GIF entry
of the corpus must decode in Pillow to the manifest's frame hashes, delays and loop value.

Usage: scripts/gif-roundtrip-pillow.py CORPUS DIR   (DIR as given to --save)
Inputs with more than 256 colours in a frame (quantized) are expected to differ and are listed.
"""
import json, hashlib, sys, os
from PIL import Image
corpus, saved = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(corpus, 'manifest.json')))
ok = bad = 0
for e in m['entries']:
    f = e['file']
    if not f.startswith('gif/') or e.get('expect') != 'ok': continue
    out = os.path.join(saved, f.split('/')[-1] + '.gif')
    im = Image.open(out)
    hashes = []; delays = []
    for i in range(im.n_frames):
        im.seek(i)
        fr = im.convert('RGBA')
        b = bytearray(fr.tobytes())
        for p in range(0, len(b), 4):
            if b[p+3] == 0: b[p:p+4] = b'\0\0\0\0'
        hashes.append(hashlib.sha256(b).hexdigest())
        delays.append(im.info.get('duration', 0))
    loop = im.info.get('loop')
    want = e['frames_rgba_sha256']
    probs = []
    if hashes != want: probs.append('frames differ at %s' % [i for i,(a,b) in enumerate(zip(hashes,want)) if a!=b][:8] + (' count %d vs %d' % (len(hashes), len(want)) if len(hashes)!=len(want) else ''))
    if e.get('delays_ms') and [float(d) for d in delays] != [float(d) for d in e['delays_ms']]: probs.append('delays %s vs %s' % (delays, e['delays_ms']))
    if e.get('frames',1) > 1 and loop != e.get('loops'): probs.append('loop %s vs %s' % (loop, e.get('loops')))
    if probs: bad += 1; print('FAIL', f, '; '.join(probs))
    else: ok += 1
print(ok, 'passed,', bad, 'failed')
