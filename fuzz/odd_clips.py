#!/usr/bin/env python3
"""Fuzz seeds with odd clip timing: copies of a GLB whose animation key times are rewritten.

  fuzz/odd_clips.py IN.glb OUT_PREFIX

writes OUT_PREFIX-<variant>.glb for: one-pose (every key at 0), negative (all times below 0),
straddling (shifted by half the clip), single (one key per sampler), tiny (times x 1e-9),
long (times x 60), huge (the last key of the first sampler at 1e30 s) and reversed (decreasing
times: invalid input). Seeds only: the fuzzer mutates from there (docs/robustness.md).
"""
import json
import struct
import sys


def read_glb(path):
    data = open(path, "rb").read()
    magic, version, length = struct.unpack_from("<III", data, 0)
    assert magic == 0x46546C67 and version == 2
    at, chunks = 12, []
    while at < length:
        clen, ctype = struct.unpack_from("<II", data, at)
        chunks.append([ctype, bytearray(data[at + 8 : at + 8 + clen])])
        at += 8 + clen
    return json.loads(chunks[0][1].decode("utf-8")), chunks


def write_glb(path, gltf, chunks):
    text = json.dumps(gltf, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    chunks = [[0x4E4F534A, text]] + chunks[1:]
    body = b"".join(struct.pack("<II", len(c), t) + bytes(c) for t, c in chunks)
    open(path, "wb").write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)


def input_accessors(gltf):
    seen = []
    for anim in gltf.get("animations", []):
        for s in anim.get("samplers", []):
            if s["input"] not in seen:
                seen.append(s["input"])
    return seen


def rewrite(gltf, chunks, change):
    for i in input_accessors(gltf):
        acc = gltf["accessors"][i]
        view = gltf["bufferViews"][acc["bufferView"]]
        at = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        n = acc["count"]
        bin_ = chunks[1][1]
        times = list(struct.unpack_from("<%df" % n, bin_, at))
        times = change(i, times)
        struct.pack_into("<%df" % n, bin_, at, *times)
        acc["min"], acc["max"] = [min(times)], [max(times)]


def main():
    src, prefix = sys.argv[1], sys.argv[2]
    first = None
    variants = {
        "one-pose": lambda i, t: [0.0] * len(t),
        "negative": lambda i, t: [x - max(t) - 1 for x in t],
        "straddling": lambda i, t: [x - max(t) / 2 for x in t],
        "tiny": lambda i, t: [x * 1e-9 for x in t],
        "long": lambda i, t: [x * 60 for x in t],
        "huge": lambda i, t: t[:-1] + [1e30] if i == first else t,
        "reversed": lambda i, t: t[::-1],
    }
    for name, change in variants.items():
        gltf, chunks = read_glb(src)
        first = input_accessors(gltf)[0]
        rewrite(gltf, chunks, change)
        write_glb("%s-%s.glb" % (prefix, name), gltf, chunks)
    gltf, chunks = read_glb(src)
    for i in input_accessors(gltf):
        gltf["accessors"][i]["count"] = 1
    write_glb("%s-single.glb" % prefix, gltf, chunks)


if __name__ == "__main__":
    main()
