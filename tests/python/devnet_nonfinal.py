"""pytoniq's LiteClient (PyPI; its TL schema is the C++ node's lite_api.tl,
not our declaration) asks `tonindex dev --block-interval --confirm-gap
--liteserver-listen` for `liteServer.nonfinal.getPendingShardBlocks`:
argv[1] is the global config the devnet wrote, argv[2] the devnet's HTTP
base URL.

During a gap the answer lists the basechain shard block just made, newer
than the top the committed masterchain block names (v2 `shards`); its data
comes from `getBlock` with its root hash checked by pytoniq (trust level 1)
and the seqno and previous block as listed; a shard filter (mode 0) gives
the same list, another workchain none; once that block is committed it is
no longer listed. Prints one JSON line; a failed expectation raises."""
import asyncio
import json
import sys
import time

from pytoniq import LiteClient
from pytoniq_core.tl.block import BlockIdExt
from streaming_common import get_json, must


def committed_top(base):
    """The basechain shard tops of the newest committed masterchain block."""
    last = get_json(base, "/api/v2/getMasterchainInfo")["result"]["last"]["seqno"]
    shards = get_json(base, f"/api/v2/shards?seqno={last}")["result"]["shards"]
    return {(s["workchain"], int(s["shard"]) % 2**64): s["seqno"] for s in shards}


async def pending(client, **filt):
    data = {"mode": 1, **filt} if filt else {"mode": 0}
    return await client.liteserver_request("nonfinal.getPendingShardBlocks", data)


async def main(config_path, base):
    config = json.load(open(config_path))
    client = LiteClient.from_config(config, 0, trust_level=1, timeout=15)
    await client.connect()
    out = {}
    try:
        deadline = time.time() + 30
        listed = []
        while not listed:
            must(time.time() < deadline, "a pending shard block within 30 s")
            answer = await pending(client)
            must(answer["candidates"] == [], f"the devnet signs every block it makes: {answer}")
            listed = answer["signed_blocks"]
            if not listed:
                await asyncio.sleep(0.1)
        top = committed_top(base)
        ids = [BlockIdExt.from_dict(b) for b in listed]
        for b in ids:
            must(b.workchain == 0, f"basechain blocks only: {b}")
            key = (b.workchain, b.shard % 2**64)
            must(b.seqno > top.get(key, -1), f"{b} is newer than the committed top {top}")
        block = await client.raw_get_block(ids[0])
        info = block.info
        must(info.seqno == ids[0].seqno, "the block's seqno is the listed one")
        must(info.prev_ref.prev.seqno == ids[0].seqno - 1, "it extends the previous block of its shard")
        out["listed"] = len(ids)

        # Filtered by shard: the basechain's root shard overlaps every
        # basechain shard; the masterchain has no pending shard block.
        answer = await pending(client, wc=0, shard=-(2**63))
        same = [BlockIdExt.from_dict(b) for b in answer["signed_blocks"]]
        must(same == ids or not same or same[0].seqno > ids[0].seqno, f"filtered {same} vs {ids}")
        answer = await pending(client, wc=-1, shard=-(2**63))
        must(answer["signed_blocks"] == [], f"no masterchain block is pending: {answer}")

        # Committed, it is no longer listed.
        deadline = time.time() + 30
        while True:
            must(time.time() < deadline, "the pending block committed within 30 s")
            top = committed_top(base)
            if any(seqno >= ids[0].seqno for (wc, _), seqno in top.items() if wc == 0):
                break
            await asyncio.sleep(0.1)
        answer = await pending(client)
        now = [BlockIdExt.from_dict(b) for b in answer["signed_blocks"]]
        must(ids[0] not in now, f"a committed block is no longer pending: {now}")
        out["ok"] = True
    finally:
        await client.close()
    print(json.dumps(out))


asyncio.run(main(sys.argv[1], sys.argv[2]))
