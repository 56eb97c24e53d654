#!/usr/bin/env python3
"""Checks a macOS executable that cannot be run here (`make release` builds them on Linux).

    .ci/macho.py FILE ARCH      (ARCH: arm64 or x86_64)

Reads the Mach-O header and load commands and fails unless the file is a 64-bit executable of
ARCH with an entry point, links only the system's own libraries (/usr/lib/...), names the
lowest macOS version it runs on, and (arm64) carries a code signature whose hashes match every
page: macOS on Apple silicon kills an unsigned executable at once. Prints one line of what it found."""
import hashlib
import struct
import sys

CPU = {0x0100000C: "arm64", 0x01000007: "x86_64"}
LC_LOAD_DYLIB, LC_CODE_SIGNATURE, LC_MAIN, LC_BUILD_VERSION = 0xC, 0x1D, 0x80000028, 0x32
LC_VERSION_MIN_MACOSX = 0x24


def fail(msg):
    sys.exit(f"macho: {sys.argv[1]}: {msg}")


def verify_signature(data, off, size):
    """Whether the embedded signature's code directory hashes every page of the file up to its
    code limit as the file is now (an ad-hoc signature is exactly that)."""
    blob = data[off:off + size]
    magic, _, count = struct.unpack_from(">III", blob)
    if magic != 0xFADE0CC0:
        return False
    for i in range(count):
        kind, at = struct.unpack_from(">II", blob, 12 + 8 * i)
        if kind != 0:  # the code directory
            continue
        cd = blob[at:]
        if struct.unpack_from(">I", cd)[0] != 0xFADE0C02:
            return False
        hash_off, _, _, n_code, limit = struct.unpack_from(">IIIII", cd, 16)
        hash_size, hash_type, _, page_log = struct.unpack_from(">BBBB", cd, 36)
        if hash_type != 2 or hash_size != 32:  # SHA-256
            return False
        page = 1 << page_log
        for slot in range(n_code):
            chunk = data[slot * page:min((slot + 1) * page, limit)]
            want = cd[hash_off + slot * 32:hash_off + (slot + 1) * 32]
            if hashlib.sha256(chunk).digest() != want:
                return False
        return n_code > 0
    return False


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in CPU.values():
        sys.exit(__doc__)
    path, arch = sys.argv[1], sys.argv[2]
    try:
        data = open(path, "rb").read()
    except OSError as e:
        fail(e.strerror)
    if len(data) < 32 or struct.unpack_from("<I", data)[0] != 0xFEEDFACF:
        fail("not a 64-bit little-endian Mach-O file")
    _, cputype, _, filetype, ncmds, _, _, _ = struct.unpack_from("<IiIIIIII", data)
    found = CPU.get(cputype & 0xFFFFFFFF, hex(cputype))
    if found != arch:
        fail(f"built for {found}, not {arch}")
    if filetype != 2:
        fail(f"file type {filetype}, not an executable (MH_EXECUTE)")
    off, dylibs, signed, entry, minos = 32, [], False, False, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if size < 8 or off + size > len(data):
            fail("a load command runs past the file")
        if cmd == LC_LOAD_DYLIB:
            name_off = struct.unpack_from("<I", data, off + 8)[0]
            dylibs.append(data[off + name_off:off + size].split(b"\0")[0].decode())
        elif cmd == LC_CODE_SIGNATURE:
            dataoff, datasize = struct.unpack_from("<II", data, off + 8)
            signed = dataoff + datasize <= len(data) and verify_signature(data, dataoff, datasize)
        elif cmd == LC_MAIN:
            entry = True
        elif cmd == LC_BUILD_VERSION:
            v = struct.unpack_from("<I", data, off + 12)[0]
            minos = f"{v >> 16}.{(v >> 8) & 0xFF}"
        elif cmd == LC_VERSION_MIN_MACOSX:
            v = struct.unpack_from("<I", data, off + 8)[0]
            minos = f"{v >> 16}.{(v >> 8) & 0xFF}"
        off += size
    if not entry:
        fail("no entry point (LC_MAIN)")
    if minos is None:
        fail("no lowest macOS version (LC_BUILD_VERSION)")
    foreign = [d for d in dylibs if not d.startswith(("/usr/lib/", "/System/Library/"))]
    if foreign:
        fail(f"links libraries a Mac does not have: {', '.join(foreign)}")
    if arch == "arm64" and not signed:
        fail("no valid code signature: macOS on Apple silicon would kill it")
    libs = ", ".join(d.rsplit("/", 1)[-1] for d in dylibs)
    sign = "ad-hoc signature" if signed else "unsigned"
    print(f"Mach-O {arch} executable, macOS {minos} or later, {sign}, links {libs}")


main()
