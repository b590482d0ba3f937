"""pytoniq's LiteClient (PyPI; an implementation of ADNL-TCP and the lite API
that is not ours) against `tonindex dev --liteserver-listen`: argv[1] is the
global config the devnet wrote, argv[2] the devnet's HTTP base URL.

The client connects from the config (handshake with the listed key), at
trust level 1: it checks the block hash of every block it is given, the
Merkle proof of every block header, and getAllShardsInfo's two proofs (the
block header down to its state update, the state down to its shard hashes).
Then: masterchain info equal to v2's, a block and its header, the shards
equal to v2's, time and version, account states with their proofs (a
basechain wallet and a masterchain account, balances equal to v2's; an
unused address is no account), a wallet v4r2 transfer sent through
liteServer.sendMessage (seen executed through v2), the same message again
refused, and a query the server does not answer refused with an error.
Prints one JSON line; a failed expectation raises."""
import asyncio
import base64
import json
import sys
import time
import urllib.request

from pytoniq import LiteClient, LiteServerError

from wallet_transfer import transfer


def must(cond, what):
    if not cond:
        raise AssertionError(f"expectation failed: {what}")


def get(url):
    with urllib.request.urlopen(url) as r:
        return json.load(r)


def seqno(base, address):
    r = get(f"{base}/api/v2/runGetMethod?address={address}&method=seqno&stack=%5B%5D")
    return int(r["result"]["stack"][0][1], 16)


async def main(config_path, base):
    config = json.load(open(config_path))
    must(config["liteservers"][0]["id"]["@type"] == "pub.ed25519", "config key type")
    client = LiteClient.from_config(config, 0, trust_level=1, timeout=15)
    await client.connect()
    out = {}
    try:
        info = await client.get_masterchain_info()
        last = client.last_mc_block
        must(info["last"]["seqno"] >= last.seqno, "masterchain info")
        zs = config["validator"]["zero_state"]
        must(info["init"]["root_hash"] == base64.b64decode(zs["root_hash"]).hex(), "init root hash")
        v2 = get(f"{base}/api/v2/getMasterchainInfo")["result"]
        must(v2["last"]["seqno"] >= info["last"]["seqno"], "v2 is as new")
        out["mc_seqno"] = info["last"]["seqno"]

        block = await client.raw_get_block(last)
        must(block.info.seqno == last.seqno, "the block's own seqno")
        header = await client.raw_get_block_header(last)
        must(header.info.seqno == last.seqno, "the header's seqno")
        out["block_gen_utime"] = block.info.gen_utime

        shards = await client.get_all_shards_info(last)
        want = get(f"{base}/api/v2/shards?seqno={last.seqno}")["result"]["shards"]
        must(
            sorted((s.workchain, s.seqno) for s in shards)
            == sorted((s["workchain"], s["seqno"]) for s in want),
            f"shards {shards} vs v2 {want}",
        )
        must(
            {s.root_hash.hex() for s in shards}
            == {base64.b64decode(s["root_hash"]).hex() for s in want},
            "shard root hashes",
        )
        out["shards"] = len(shards)

        now = (await client.get_time())["now"]
        must(abs(now - time.time()) < 60, f"time {now}")
        version = await client.get_version()
        must(version["version"] > 0, f"version {version}")

        # Accounts with their proofs (checked at trust level 1): a basechain
        # wallet and a masterchain account funded here, against v2's reads;
        # an address nobody used is no account.
        mc_addr = "-1:" + "54" * 32
        req = urllib.request.Request(
            f"{base}/dev/fund",
            data=json.dumps({"address": mc_addr, "amount": "2500000000"}).encode(),
            method="POST",
        )
        urllib.request.urlopen(req).read()
        await client.update_last_blocks()
        accounts = get(f"{base}/dev/accounts")
        for addr in (accounts[1]["address"], mc_addr):
            account, shard_account = await client.raw_get_account_state(addr)
            must(account is not None, f"{addr} is an account")
            want = int(get(f"{base}/api/v2/getAddressBalance?address={addr}")["result"])
            must(account.storage.balance.grams == want, f"{addr}: {account.storage.balance.grams} vs {want}")
            out.setdefault("accounts", []).append(addr)
        account, _ = await client.raw_get_account_state("0:" + "00" * 31 + "01")
        must(account is None, "an unused address is no account")

        # A transfer from genesis wallet 0 (v4r2) to wallet 1, signed here.
        msg, wallet, before = transfer(base)
        status = await client.raw_send_message(msg)
        must(status == 1, f"send status {status}")
        for _ in range(100):
            if seqno(base, wallet) == before + 1:
                break
            await asyncio.sleep(0.1)
        must(seqno(base, wallet) == before + 1, "the transfer was executed")
        out["sent"] = True

        # The same message again: the wallet refuses it (replayed seqno).
        try:
            await client.raw_send_message(msg)
            must(False, "a replayed message was accepted")
        except LiteServerError as e:
            out["replay_refused"] = e.code

        # A query the server does not answer is an error, not a hang.
        try:
            await client.liteserver_request("getLibraries", {"library_list": []})
            must(False, "getLibraries answered")
        except LiteServerError as e:
            must("does not answer" in e.message, e.message)
            out["unsupported_refused"] = e.code
    finally:
        await client.close()
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
