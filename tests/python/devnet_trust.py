"""pytoniq's LiteClient at trust level 0 (it believes nothing but the init
block of the global config) against `tonindex dev --liteserver-listen
--key-block-every N`: argv[1] is the global config the devnet wrote, argv[2]
the devnet's HTTP base URL.

On connect pytoniq walks the forward block links from the config's init
block to the newest masterchain block: each link's signatures checked
against the validator set that pytoniq reads from the `from` key block's
config proof, with its own signing bytes and node ids. Then older
masterchain blocks are proven backward from the last key block (through
`prev_blocks` to a block, through `last_key_block` to a key block), and a
config read at an older block is proven. Prints one JSON line; a failed
expectation raises."""
import asyncio
import base64
import json
import os
import sys
import tempfile
import urllib.request

from pytoniq import LiteClient


def must(cond, what):
    if not cond:
        raise AssertionError(f"expectation failed: {what}")


def get(url):
    with urllib.request.urlopen(url) as r:
        return json.load(r)


async def main(config_path, base):
    config = json.load(open(config_path))
    init = config["validator"]["init_block"]
    must(init["seqno"] > 0, f"the init block is a key block after the zero state: {init}")
    # pytoniq keeps the key blocks it trusts under ./.blockstore: a fresh one.
    os.chdir(tempfile.mkdtemp())
    client = LiteClient.from_config(config, 0, trust_level=0, timeout=15)
    await client.connect()
    out = {}
    try:
        info = await client.get_masterchain_info()
        last = info["last"]["seqno"]
        key = client.last_key_block
        must(key is not None and key.seqno > init["seqno"], f"a later key block is trusted: {key}")
        out["last"] = last
        out["last_key_block"] = key.seqno
        proven = []
        for seqno in range(init["seqno"] + 1, last + 1):
            block, _ = await client.lookup_block(-1, -(2**63), seqno=seqno)
            want = get(f"{base}/api/v2/lookupBlock?workchain=-1&shard=-9223372036854775808&seqno={seqno}")
            must(block.root_hash == base64.b64decode(want["result"]["root_hash"]), f"block {seqno}")
            proven.append(seqno)
        out["proven"] = proven
        older, _ = await client.lookup_block(-1, -(2**63), seqno=init["seqno"] + 1)
        params = await client.get_config_params([34], older)
        must(34 in params, f"param 34 at block {older.seqno}")
        out["config_at"] = older.seqno
    finally:
        await client.close()
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
