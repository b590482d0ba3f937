"""Parses the blocks `tonindex dev --export-blocks DIR` wrote with pytoniq-core
(an implementation that is not ours) and prints what they say as JSON, for
tests/it/devnet.rs to hold against the index: each block's id, root and file
hash, value flow fees, every transaction hash with its account and lt, the
state update's old and new hashes, its shard and split/merge flags, its
previous blocks, and a masterchain block's shard hashes.
Also parses the zerostates (their root hashes)."""
import hashlib
import json
import os
import sys

from pytoniq_core import Cell
from pytoniq_core.tlb.block import Block, ShardStateUnsplit


def txs_of(extra):
    """Every transaction of the block's account blocks (augmented
    dictionaries come back as (dict, extras))."""
    out = []
    for account, ab in extra.account_blocks[0].items():
        for lt, tx in ab.transactions[0].items():
            out.append({"account": "%064x" % account, "lt": int(lt), "hash": tx.cell.hash.hex()})
    return out


def shard_hex(ident):
    """The 64-bit shard id (prefix bits, then a tag bit) of a ShardIdent,
    whose shard_prefix holds the prefix bits left-aligned."""
    return "%016x" % (ident.shard_prefix | (1 << (63 - ident.shard_pfx_bits)))


def prev_refs(info):
    """The previous block(s) a block names: (seqno, root hash) each."""
    ref = info.prev_ref
    refs = [ref.prev1, ref.prev2] if info.after_merge else [ref.prev]
    return [{"seqno": r.seqno, "root_hash": r.root_hash.hex()} for r in refs]


def main(folder):
    blocks = []
    zerostates = {}
    for name in sorted(os.listdir(folder)):
        data = open(os.path.join(folder, name), "rb").read()
        root = Cell.one_from_boc(data)
        if name.startswith("zerostate"):
            ShardStateUnsplit.deserialize(root.begin_parse())
            zerostates[name] = root.hash.hex()
            continue
        block = Block.deserialize(root.begin_parse())
        info = block.info
        shard = info.shard
        upd = block.state_update
        entry = {
            "file": name,
            "workchain": shard.workchain_id,
            "shard_pfx_bits": shard.shard_pfx_bits,
            "shard": shard_hex(shard),
            "after_split": bool(info.after_split),
            "after_merge": bool(info.after_merge),
            "before_split": bool(info.before_split),
            "want_merge": bool(info.want_merge),
            "prev": prev_refs(info),
            "seqno": info.seqno,
            "root_hash": root.hash.hex(),
            "file_hash": hashlib.sha256(data).hexdigest(),
            "global_id": block.global_id,
            "start_lt": info.start_lt,
            "end_lt": info.end_lt,
            "key_block": bool(info.key_block),
            "old_hash": upd.old_hash.hex(),
            "new_hash": upd.new_hash.hex(),
            "transactions": txs_of(block.extra),
        }
        custom = block.extra.custom
        if custom is not None:
            shards = []
            for wc, tree in custom.shard_hashes.items():
                for d in tree.list:
                    shards.append({
                        "workchain": wc,
                        "shard": "%016x" % d.next_validator_shard,
                        "seqno": d.seq_no,
                        "root_hash": d.root_hash.hex(),
                        "file_hash": d.file_hash.hex(),
                        "before_split": bool(d.before_split),
                        "before_merge": bool(d.before_merge),
                    })
            entry["shards"] = shards
        blocks.append(entry)
    print(json.dumps({"blocks": blocks, "zerostates": zerostates}))


if __name__ == "__main__":
    main(sys.argv[1])
