"""Packs loose block files (binary BoC) into TON archive packages, as a node
files them: one masterchain package and one basechain package per 100
masterchain blocks, each shard block in the package of the masterchain block
that commits it (approximated here by the masterchain block at or after its
master_ref), entries named block_(wc,shard,seqno):ROOT:FILE. Zero states are
copied beside them. No proof_ entries are written: import the result with
--trust-files. For benchmarks (package import against loose-file import of
the same blocks); needs pytoniq-core.

    python3 scripts/pack_blocks.py IN_DIR OUT_DIR
"""
import hashlib
import os
import shutil
import struct
import sys

from pytoniq_core import Cell
from pytoniq_core.tlb.block import Block


def main(src, dst):
    os.makedirs(dst, exist_ok=True)
    groups = {}
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        data = open(path, "rb").read()
        if name.startswith("zerostate"):
            shutil.copy(path, os.path.join(dst, name))
            continue
        root = Cell.one_from_boc(data)
        info = Block.deserialize(root.begin_parse()).info
        shard = info.shard
        wc = shard.workchain_id
        prefix = shard.shard_prefix | (1 << (63 - shard.shard_pfx_bits))
        if wc == -1:
            mc = info.seqno
        else:
            mc = info.master_ref.master.seqno + 1
        number = (mc // 100) * 100
        entry = "block_(%d,%016x,%d):%s:%s" % (
            wc, prefix, info.seqno, root.hash.hex().upper(), hashlib.sha256(data).hexdigest().upper())
        groups.setdefault((number, wc), []).append((mc, info.seqno, entry, data))
    for (number, wc), entries in groups.items():
        suffix = "" if wc == -1 else ".%d_8000000000000000" % wc
        out = open(os.path.join(dst, "archive.%05d%s.pack" % (number, suffix)), "wb")
        out.write(struct.pack("<I", 0xAE8FDD01))
        for _, _, name, data in sorted(entries, key=lambda e: (e[0], e[1])):
            out.write(struct.pack("<II", 0x1E8B | (len(name) << 16), len(data)))
            out.write(name.encode())
            out.write(data)
        out.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
