#!/usr/bin/env python3
"""make_area_corpus.py — writes the area-light seeds of corpus/izb (area_*): a ground, two occluders
and a spot light 3 units up with an emitter, in fuzz_izb.c's input layout (its reader, field by
field), so the fuzzer starts from frames with partial shadows and from each refusal (NaN and
negative sizes, M 48, shape 2). usage: make_area_corpus.py tests/fuzz/corpus/izb"""
import struct, sys
def f(v):  # a float: a multiple of 1/16 in range, else raw bits (NaN: the palette)
    if v != v: return [2]
    b = 134 + v*16
    if b == int(b) and 13 <= b <= 255 and abs(v) <= 7.6: return [int(b)]
    u = struct.unpack('>I', struct.pack('>f', v))[0]
    return [12] + list(u.to_bytes(4,'big'))
def make(W, H, size_bytes, area_flag, msel, shape, flags=0, cone=150.0):
    d = [W-1, H-1, 4]
    tris = [(-4,0,-4, -4,0,4, 4,0,4), (-4,0,-4, 4,0,4, 4,0,-4), (-1,1.5,-1, 1,1.5,-0.5, 0,1.5,1.25), (0.5,0.75,0.5, 2,0.75,0.5, 1,2,1.5)]
    for t in tris:
        d.append(2)  # how: not dup/degenerate
        for v in t: d += f(v)
    d.append(1)  # bounds from vertices
    d.append(1)  # spot
    lp = (0.25, 3, 0.5); ld = (0, -1, 0.125)
    for k in range(3): d += f(ld[k]) + f(lp[k])
    if cone is None: d.append(0)
    else: d += [1] + f(cone)
    d += f(-10.0) + f(-50.0)   # yaw, pitch (raw bits)
    cp = (1.0, 7.5, 6.0)
    for k in range(3): d += f(cp[k])
    d.append(1)  # fit clip
    d.append(flags)
    for i in range(W*H): d.append(140 + (i*7) % 36)  # depths 8.75 .. 10.9: about the ground's
    d.append(0)  # no angle
    d += [0, 0, 0]  # not cut, img w, h
    d.append(0)  # one sub-sample per pixel (read before the area bytes)
    d.append(area_flag)
    d += size_bytes
    d += [msel, shape]
    return bytes(d)
out = sys.argv[1]
cases = {
 'area_rect_m16': make(12, 10, [8, 12], 1, 0, 0),
 'area_disk_m64_k2_atomic': make(14, 9, [20, 20], 1, 2, 1, flags=3, cone=120.0),
 'area_line_m32_cull_on': make(9, 9, [16, 0], 1, 1, 0, flags=32),
 'area_bad_size_nan': make(8, 8, f(float('nan'))+f(1.0), 3, 0, 0),
 'area_bad_size_negative': make(8, 8, f(-0.5)+f(1.0), 3, 0, 0),
 'area_bad_m48_shape2': make(8, 8, [8, 8], 1, 5, 2),
}
for n, b in cases.items():
    open(out + '/' + n, 'wb').write(b)
