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
liteServer.sendMessage (seen executed through v2); get-methods run by the
server (runSmcMethod, shard proof checked), the wallet's transactions
(getTransactions, hash-chained), its block's transaction list with the
proof checked here, the config (getConfigAll/getConfigParams, proofs
checked) and libraries, each against v2, a shard block's proof (checked);
one transaction by lt (getOneTransaction, proof checked), the outbound
queue sizes against v2's; the same message again refused, and a query the
server does not answer refused with an error.
Prints one JSON line; a failed expectation raises."""
import asyncio
import base64
import json
import sys
import time
import urllib.request

from pytoniq import LiteClient, LiteServerError, RunGetMethodError

from pytoniq_core import Address, Block, Cell
from pytoniq_core.proof.check_proof import check_block_header_proof

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
        out["block_gen_utime"] = info_utime = block.info.gen_utime

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

        # Get-methods run by the server's TVM at the newest block (runSmcMethod
        # mode 7; pytoniq checks the shard proof): equal to v2's answers.
        await client.update_last_blocks()
        got = await client.run_get_method(wallet, "seqno", [])
        must(got == [seqno(base, wallet)], f"seqno {got}")
        got = await client.run_get_method(wallet, "get_public_key", [])
        r = get(f"{base}/api/v2/runGetMethod?address={wallet}&method=get_public_key&stack=%5B%5D")
        must(got == [int(r["result"]["stack"][0][1], 16)], f"public key {got}")
        # With arguments on the stack (a v4 wallet's plugin check: none).
        got = await client.run_get_method(wallet, "is_plugin_installed", [0, 12345])
        must(got == [0], f"is_plugin_installed {got}")
        try:
            await client.run_get_method(wallet, "no_such_method", [])
            must(False, "an unknown method ran")
        except RunGetMethodError as e:
            out["unknown_method_exit_code"] = e.exit_code
        out["get_methods"] = True

        # The wallet's history back from its newest transaction (pytoniq
        # checks each hash against the previous one's prev_trans_hash, the
        # first against the proven account state), equal to v2's.
        txs, blocks = await client.raw_get_transactions(wallet, 3)
        want = get(f"{base}/api/v2/getTransactions?address={wallet}&limit=3")["result"]
        must([t.lt for t in txs] == [int(t["transaction_id"]["lt"]) for t in want],
             f"lts {[t.lt for t in txs]} vs v2")
        out["transactions"] = len(txs)

        # The newest transaction's block lists it, as v2 does. pytoniq's own
        # proof check of this call cannot run (it calls get_hash on a parsed
        # Transaction), so the listing is read at trust level 2 and its
        # proof checked here with pytoniq-core: the block's hash, and each
        # listed transaction's hash in its account block.
        block = blocks[0]
        client.trust_level = 2
        listed = await client.raw_get_block_transactions(block)
        client.trust_level = 1
        raw = await client.liteserver_request("listBlockTransactions", {
            "id": block.to_dict(), "mode": 39, "count": 1024, "want_proof": b""})
        proof = Cell.one_from_boc(raw["proof"])
        check_block_header_proof(proof[0], block.root_hash)
        account_blocks = Block.deserialize(proof[0].begin_parse()).extra.account_blocks[0]
        for t in raw["ids"]:
            tx = account_blocks.get(int(t["account"], 16)).transactions[0].get(t["lt"])
            must(tx.cell.get_hash(0).hex() == t["hash"], f"proven hash of {t}")
        must(len(raw["ids"]) == len(listed) and not raw["incomplete"], "one page")
        v2 = get(f"{base}/api/v2/getBlockTransactions?workchain={block.workchain}"
                 f"&shard={block.shard}&seqno={block.seqno}")["result"]["transactions"]
        must(sorted(t["lt"] for t in listed) == sorted(int(t["lt"]) for t in v2),
             f"block transactions {listed} vs v2 {v2}")
        must(any(t["lt"] == txs[0].lt for t in listed), "the wallet's transaction is listed")
        out["block_transactions"] = len(listed)

        # The same transaction alone (getOneTransaction), equal to v2's; an
        # lt the account has no transaction at is none. pytoniq's own proof
        # check of this call cannot run either (get_hash on a parsed
        # Transaction again), so it is read at trust level 2 and the proof
        # checked here: the block's hash, and the transaction's hash in the
        # wallet's account block.
        client.trust_level = 2
        one = await client.get_one_transaction(wallet, txs[0].lt, block)
        none = await client.get_one_transaction(wallet, txs[0].lt + 1, block)
        client.trust_level = 1
        must(one is not None and one.lt == txs[0].lt, "getOneTransaction gives the transaction")
        must(none is None, f"no transaction at lt+1: {none}")
        raw = await client.liteserver_request("getOneTransaction", {
            "id": block.to_dict(), "account": Address(wallet).to_tl_account_id(), "lt": txs[0].lt})
        tx_root = Cell.one_from_boc(raw["transaction"])
        must(base64.b64decode(want[0]["transaction_id"]["hash"]) == tx_root.get_hash(0),
             "getOneTransaction's hash is v2's")
        proof = Cell.one_from_boc(raw["proof"])
        check_block_header_proof(proof[0], block.root_hash)
        account_blocks = Block.deserialize(proof[0].begin_parse()).extra.account_blocks[0]
        proven = account_blocks.get(int.from_bytes(Address(wallet).hash_part, "big"))
        proven = proven.transactions[0].get(txs[0].lt)
        must(proven.cell.get_hash(0) == tx_root.get_hash(0), "the proven transaction")
        out["one_transaction"] = True

        # Blocks looked up by lt (the transaction's block) and by time (as
        # v2 looks it up), header proofs checked.
        found, _ = await client.lookup_block(block.workchain, block.shard, lt=txs[0].lt)
        must(found == block, f"by lt {found} vs {block}")
        found, hdr = await client.lookup_block(-1, -(2**63), utime=info_utime)
        v2 = get(f"{base}/api/v2/lookupBlock?workchain=-1&shard=-9223372036854775808"
                 f"&unixtime={info_utime}")["result"]
        must(found.seqno == v2["seqno"] and hdr.info.gen_utime <= info_utime, f"by time {found} vs {v2}")
        out["lookups"] = True

        # The shard block's proof from the masterchain block that committed
        # it (pytoniq checks the header proof and finds the shard in it).
        await client.get_shard_block_proof(block)
        out["shard_block_proof"] = True

        # The config of the newest block's state (proofs checked): every
        # param v2 has, and param 34's validators.
        config = await client.get_config_all()
        v2cfg = get(f"{base}/api/v2/getConfigParam?config_id=34")["result"]
        must(34 in config and 0 in config, f"config params {sorted(config)}")
        params = await client.get_config_params([34, 20])
        must(34 in params and 20 in params, f"config params {sorted(params)}")
        must(v2cfg["config"]["bytes"], "v2 has param 34")
        out["config_params"] = len(config)

        # Libraries by hash: one the chain does not hold is not given.
        libs = await client.get_libraries([b"\x07" * 32])
        must(libs == {"07" * 32: None}, f"libraries {libs}")

        # The same message again: the wallet refuses it (replayed seqno).
        try:
            await client.raw_send_message(msg)
            must(False, "a replayed message was accepted")
        except LiteServerError as e:
            out["replay_refused"] = e.code

        # Outbound queues of every shard's newest block, as v2 reports them
        # (the devnet sends nothing meanwhile); of the basechain alone when
        # asked for its root shard.
        sizes = await client.get_out_msg_queue_sizes()
        v2q = get(f"{base}/api/v2/getOutMsgQueueSize")["result"]
        must(sorted((s["id"]["workchain"], s["id"]["seqno"], s["size"]) for s in sizes["shards"])
             == sorted((s["id"]["workchain"], s["id"]["seqno"], s["size"]) for s in v2q["shards"]),
             f"queue sizes {sizes} vs v2 {v2q}")
        must(sizes["ext_msg_queue_size_limit"] == v2q["ext_msg_queue_size_limit"], "queue limit")
        basechain = await client.get_out_msg_queue_sizes(0, -(2**63))
        must([s["id"]["workchain"] for s in basechain["shards"]] == [0], f"basechain {basechain}")
        out["out_msg_queue_sizes"] = len(sizes["shards"])

        # A query the server does not answer is an error, not a hang.
        try:
            await client.raw_get_block_transactions_ext(block)
            must(False, "listBlockTransactionsExt answered")
        except LiteServerError as e:
            must("does not answer" in e.message, e.message)
            out["unsupported_refused"] = e.code
    finally:
        await client.close()
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
