"""Reads TON archive packages on its own (the entry format of ton-blockchain/ton's
validator/db/package.cpp, written here from that description) and parses every
block entry with pytoniq-core, an implementation of TON's TL-B that is not ours.
Prints JSON for tests/it/cli_import/packages.rs to hold against the index: each
block's id, root and file hash, its transactions (hash, account, lt, how many
messages each carries), the state update's hashes, and a masterchain block's
shard hashes (its shard layout)."""
import hashlib
import json
import struct
import sys

from pytoniq_core import Cell
from pytoniq_core.tlb.block import Block

PACKAGE_MAGIC = 0xAE8FDD01
ENTRY_MAGIC = 0x1E8B


def entries(path):
    """(name, data) of every whole entry of a package."""
    with open(path, "rb") as f:
        data = f.read()
    assert struct.unpack_from("<I", data, 0)[0] == PACKAGE_MAGIC, path
    off = 4
    while off + 8 <= len(data):
        head, size = struct.unpack_from("<II", data, off)
        assert head & 0xFFFF == ENTRY_MAGIC, (path, off)
        name_len = head >> 16
        end = off + 8 + name_len + size
        if end > len(data):
            break
        name = data[off + 8:off + 8 + name_len].decode()
        yield name, data[off + 8 + name_len:end]
        off = end


def parse_name(name):
    kind, rest = name.split("_(", 1)
    ident, root, file = rest.split(":")
    wc, shard, seqno = ident.rstrip(")").split(",")
    return kind, int(wc), int(shard, 16), int(seqno), root.lower(), file.lower()


def block_entry(name, data):
    kind, wc, shard, seqno, root_hex, file_hex = parse_name(name)
    root = Cell.one_from_boc(data)
    assert hashlib.sha256(data).hexdigest() == file_hex, name
    assert root.hash.hex() == root_hex, name
    block = Block.deserialize(root.begin_parse())
    info = block.info
    assert info.seqno == seqno and info.shard.workchain_id == wc, name
    txs = []
    for account, ab in block.extra.account_blocks[0].items():
        for lt, tx in ab.transactions[0].items():
            messages = (1 if tx.in_msg is not None else 0) + len(tx.out_msgs)
            txs.append({
                "account": "%064x" % account,
                "lt": int(lt),
                "hash": tx.cell.hash.hex(),
                "messages": messages,
            })
    entry = {
        "workchain": wc,
        "shard": "%016x" % shard,
        "seqno": seqno,
        "root_hash": root_hex,
        "file_hash": file_hex,
        "key_block": bool(info.key_block),
        "old_hash": block.state_update.old_hash.hex(),
        "new_hash": block.state_update.new_hash.hex(),
        "transactions": txs,
    }
    custom = block.extra.custom
    if custom is not None:
        shards = []
        for wc_, tree in custom.shard_hashes.items():
            for d in tree.list:
                shards.append({
                    "workchain": wc_,
                    "seqno": d.seq_no,
                    "root_hash": d.root_hash.hex(),
                    "file_hash": d.file_hash.hex(),
                })
        entry["shards"] = shards
    return entry


def main(paths):
    blocks = []
    proofs = 0
    for path in paths:
        for name, data in entries(path):
            if name.startswith("block_"):
                blocks.append(block_entry(name, data))
            else:
                proofs += 1
    print(json.dumps({"blocks": blocks, "proof_entries": proofs}))


if __name__ == "__main__":
    main(sys.argv[1:])
