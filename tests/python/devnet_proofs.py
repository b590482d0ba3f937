"""Checks the devnet's v2 getShardBlockProof with pytoniq-core (whose cell
hashing of Merkle proofs and pruned branches is not ours), against `tonindex
dev` at argv[1]. For a basechain block: the link proof is a Merkle proof whose
hidden root is the committing masterchain block and which still holds the
shard block's root and file hashes; the link back's proofs hide exactly the
older block, the newer block, and the newer block's state, and the state
proof still names the older block. Each proof is smaller than its block.
Prints one JSON line; a failed expectation raises."""
import base64
import json
import sys
import urllib.request

from pytoniq_core import Cell

MERKLE_PROOF = 3


def get(base, path):
    with urllib.request.urlopen(f"{base}/api/v2/{path}") as r:
        body = json.load(r)
    if not body.get("ok"):
        raise AssertionError(f"{path}: {body}")
    return body["result"]


def must(cond, what):
    if not cond:
        raise AssertionError(f"expectation failed: {what}")


def hidden_root(proof_b64):
    """The hash of what a Merkle proof proves: its child's level-0 hash."""
    proof = Cell.one_from_boc(base64.b64decode(proof_b64))
    must(proof.is_exotic and proof.type_ == MERKLE_PROOF, "a Merkle proof cell")
    return proof.refs[0].get_hash(0), proof


def holds(cell, data):
    """Whether some cell of the (pruned) tree has `data` in its bits."""
    want = "".join(f"{b:08b}" for b in data)
    stack, seen = [cell], set()
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        if not (c.is_exotic and c.type_ == 1) and want in c.bits.to01():
            return True
        stack.extend(c.refs)
    return False


def main(base, shard_seqno):
    shard = "-9223372036854775808"
    target = get(base, f"lookupBlock?workchain=0&shard={shard}&seqno={shard_seqno}")
    res = get(base, f"getShardBlockProof?workchain=0&shard={shard}&seqno={shard_seqno}")
    must(res["@type"] == "blocks.shardBlockProof", "type")
    mc, frm = res["mc_id"], res["from"]
    must(frm["seqno"] > mc["seqno"], "proved from a newer masterchain block")
    (link,) = res["links"]
    must(link["id"]["root_hash"] == target["root_hash"], "the link names the block")
    root, proof = hidden_root(link["proof"])
    must(root == base64.b64decode(mc["root_hash"]), "the link proves the committing masterchain block")
    for h in ("root_hash", "file_hash"):
        must(holds(proof, base64.b64decode(target[h])), f"the link holds the shard block's {h}")

    (back,) = res["mc_proof"]
    must(back["from"] == frm and back["to"] == mc and back["to_key_block"] is False, "link back ends")
    dest, _ = hidden_root(back["dest_proof"])
    must(dest == base64.b64decode(mc["root_hash"]), "dest_proof hides the older block")
    newer, _ = hidden_root(back["proof"])
    must(newer == base64.b64decode(frm["root_hash"]), "proof hides the newer block")
    state_root, state = hidden_root(back["state_proof"])
    must(holds(state, base64.b64decode(mc["root_hash"])), "the state names the older block")
    sizes = [len(base64.b64decode(p)) for p in (link["proof"], back["dest_proof"], back["proof"], back["state_proof"])]
    print(json.dumps({"ok": True, "from": frm["seqno"], "mc": mc["seqno"], "proof_bytes": sizes,
                      "state_root": state_root.hex()}))


main(sys.argv[1], int(sys.argv[2]))
