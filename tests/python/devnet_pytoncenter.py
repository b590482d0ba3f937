"""pytoncenter (PyPI, 0.0.14), unchanged, against `tonindex dev`: its API v3
client (AsyncTonCenterClientV3, whose pydantic models validate every answer)
and its API v2 client, pointed at the devnet with `custom_endpoint`.

argv[1] = base URL; argv[2] = JSON naming what devnet_jettons.mjs and
devnet_nfts.mjs made on this devnet (`minter`, `alice_wallet`, `bob_wallet`,
`fake`, `collection`, `items`).

A fresh tonutils wallet v4r2 is funded by the faucet; its first transfer (a
text comment) is estimated and sent through the v3 client, and waited for
with the client's own `wait_message_exists`. Then every read the clients
offer is made through them, and what they parse is held against what the
wallet did, against each other (v2 against v3), and against the Jetton
master's own getters (their stacks read with pytoniq-core). Prints one JSON line; a failed expectation raises."""
import asyncio
import base64
import json
import sys
import warnings
from datetime import datetime, timezone

from pytoniq_core import Address as CoreAddress
from pytoniq_core import Cell, begin_cell
from ton_core import NetworkGlobalID
from tonutils.clients import ToncenterClient

from pytoncenter.address import Address
from pytoncenter.v2.api import AsyncTonCenterClientV2
from pytoncenter.v3.api import AsyncTonCenterClientV3
from pytoncenter.v3.models import (
    EstimateFeeRequest,
    ExternalMessage,
    GetAccountRequest,
    GetAddressBookRequest,
    GetAdjacentTransactionsRequest,
    GetBlockRequest,
    GetJettonBurnsRequest,
    GetJettonTransfersRequest,
    GetJettonWalletsRequest,
    GetMasterchainBlockShardsRequest,
    GetMasterchainBlockShardStateRequest,
    GetMessageByHashRequest,
    GetMessagesRequest,
    GetNFTCollectionsRequest,
    GetNFTItemsRequest,
    GetNFTTransfersRequest,
    GetSpecifiedJettonWalletRequest,
    GetTransactionByHashRequest,
    GetTransactionByMasterchainBlockRequest,
    GetTransactionsRequest,
    GetTransactionTraceRequest,
    GetMethodParameterInput,
    GetWalletRequest,
    RunGetMethodRequest,
    TextComment,
    WaitMessageExistsRequest,
)
from streaming_common import funded_transfer, genesis, must

COMMENT = "from pytoncenter"
AMOUNT = 500_000_000  # what streaming_common's transfers carry


def b64(cell):
    return base64.b64encode(cell.to_boc()).decode()


def same(a, b):
    """Two addresses in any form are one account."""
    return Address(str(a)).to_string(False) == Address(str(b)).to_string(False)


async def send_and_wait(base, v3, to):
    """The wallet's first transfer: estimated, sent and waited for through the
    v3 client. (the wallet's raw address, its transaction)"""
    tu = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    async with tu:
        me, message, _ = await funded_transfer(base, tu, to, COMMENT)
    init = message.init
    fee = await v3.estimate_fee(
        EstimateFeeRequest(address=me, body=b64(message.body), init_code=b64(init.code), init_data=b64(init.data))
    )
    must(fee.source_fees.gas_fee > 0 and fee.source_fees.storage_fee >= 0, f"estimated fees: {fee}")
    # tonlib's raw query, which toncenter's answer comes from, knows no destinations.
    must(fee.destination_fees == [], f"no destination fees: {fee}")
    sent = await v3.send_message(ExternalMessage(boc=base64.b64encode(bytes.fromhex(message.as_hex)).decode()))
    must(len(base64.b64decode(sent.message_hash)) == 32, f"message hash: {sent}")
    async for tx in v3.wait_message_exists(WaitMessageExistsRequest(msg_hash=sent.message_hash, max_retry=300, interval=0.1)):
        return me, tx
    raise AssertionError("wait_message_exists ended without a transaction")


async def check_transaction(v3, me, to, tx):
    """The wallet's transaction, its child and its trace, each as v3 shows them."""
    must(same(tx.account, me) and tx.orig_status == "uninit" and tx.end_status == "active", f"sender: {tx}")
    must(tx.in_msg.source is None and tx.mc_block_seqno is not None and tx.block_ref is not None, "external in")
    must(len(tx.out_msgs) == 1, f"one out message: {tx.out_msgs}")
    out = tx.out_msgs[0]
    must(same(out.destination, to) and out.value == AMOUNT, f"the transfer: {out}")
    decoded = out.message_content.decoded
    must(isinstance(decoded, TextComment) and decoded.comment == COMMENT, f"the comment: {decoded}")
    must(tx.account_state_after.account_status == "active" and tx.account_state_after.code_hash, "state after")

    again, book = await v3.get_transactions(GetTransactionByHashRequest(hash=tx.hash))
    must(again.hash == tx.hash and again.lt == tx.lt, "the transaction by hash")
    raw_me = Address(me).to_string(False).upper()
    must(book[raw_me].user_friendly.startswith("UQ"), f"a wallet shows non-bounceable: {book}")

    children, _ = await v3.get_adjacent_transactions(GetAdjacentTransactionsRequest(hash=tx.hash, direction="out"))
    must(len(children) == 1 and same(children[0].account, to), f"the receiver: {children}")
    child = children[0]
    must(child.in_msg.hash == out.hash and child.in_msg.value == AMOUNT, "the receiver's in message is ours")
    must(child.in_msg.message_content.decoded == decoded, "the receiver reads the same comment")
    parents, _ = await v3.get_adjacent_transactions(GetAdjacentTransactionsRequest(hash=child.hash, direction="in"))
    must([p.hash for p in parents] == [tx.hash], f"the parent: {parents}")
    trace = await v3.get_trace_alternative(GetTransactionTraceRequest(hash=child.hash))
    must(trace.id == tx.hash and [c.id for c in trace.children] == [child.hash], f"the trace: {trace}")

    mine, _ = await v3.get_transactions(GetTransactionsRequest(account=me, sort="asc"))
    must(len(mine) == 2 and mine[1].hash == tx.hash, f"funding, then the transfer: {[t.hash for t in mine]}")
    at = datetime.fromtimestamp(tx.now, timezone.utc)
    window, _ = await v3.get_transactions(GetTransactionsRequest(account=me, start_utime=at, end_utime=at))
    must(tx.hash in [t.hash for t in window], "a window around its time holds it")
    ranged, _ = await v3.get_transactions(GetTransactionsRequest(account=me, start_lt=tx.lt, end_lt=tx.lt))
    must([t.hash for t in ranged] == [tx.hash], "an lt range of one")
    in_block, _ = await v3.get_transactions_by_masterchain_block(
        GetTransactionByMasterchainBlockRequest(seqno=tx.mc_block_seqno)
    )
    must(tx.hash in [t.hash for t in in_block], "its masterchain block lists it")

    by_hash = await v3.get_messages(GetMessageByHashRequest(hash=out.hash))
    must(by_hash is not None and by_hash.value == AMOUNT and by_hash.created_lt == out.created_lt, "message by hash")
    sent = await v3.get_messages(GetMessagesRequest(source=me))
    must(out.hash in [m.hash for m in sent], f"messages from the wallet: {sent}")
    return tx, child


async def check_blocks(v3, tx):
    """The blocks around the transaction, as the v3 block models read them."""
    info = await v3.get_masterchain_info()
    must(info.first.seqno <= tx.mc_block_seqno <= info.last.seqno and info.last.workchain == -1, f"mc info: {info}")
    mc = await v3.get_blocks(GetBlockRequest(workchain=-1, shard="8000000000000000", seqno=tx.mc_block_seqno))
    must(len(mc) == 1 and mc[0].seqno == tx.mc_block_seqno, f"the masterchain block: {mc}")
    ref = tx.block_ref
    shards = await v3.get_masterchain_block_shards(GetMasterchainBlockShardsRequest(seqno=tx.mc_block_seqno))
    blocks = [(b.workchain, b.shard, b.seqno) for b in shards]
    must((ref.workchain, ref.shard, ref.seqno) in blocks, f"the tx's block is in {blocks}")
    found = [b for b in shards if (b.workchain, b.shard, b.seqno) == (ref.workchain, ref.shard, ref.seqno)][0]
    must(found.tx_count >= 1 and found.start_lt <= tx.lt <= found.end_lt, f"the tx's block: {found}")
    state = await v3.get_masterchain_block_shard_state(GetMasterchainBlockShardStateRequest(seqno=tx.mc_block_seqno))
    must({b.workchain for b in state} == {-1, 0}, f"shard state: {state}")
    return len(shards)


async def check_account(v3, v2, me):
    """The wallet as both APIs and a get-method see it."""
    account = await v3.get_account(GetAccountRequest(address=me))
    wallet = await v3.get_wallet(GetWalletRequest(address=me))
    must(account.status == "active" and account.code and account.balance > 0, f"account: {account}")
    must(wallet.wallet_type == "wallet v4 r2" and wallet.seqno == 1 and wallet.balance == account.balance, f"{wallet}")
    seqno = await v3.run_get_method(RunGetMethodRequest(address=me, method="seqno", stack=[]))
    must(seqno.exit_code == 0 and [(e.type, e.value) for e in seqno.stack] == [("num", "0x1")], f"seqno: {seqno}")

    info = await v2.get_address_information(me)
    must(int(info["balance"]) == account.balance and info["state"] == "active", f"v2 information: {info}")
    must(info["last_transaction_id"]["hash"] == account.last_transaction_hash, "one last transaction")
    winfo = await v2.get_wallet_information(me)
    must(winfo["wallet"] and winfo["seqno"] == 1, f"v2 wallet information: {winfo}")
    must(int(await v2.get_address_balance(me)) == account.balance, "v2 balance")
    must(await v2.get_address_state(me) == "active", "v2 state")
    v2_seqno = await v2.run_get_method(me, "seqno", [])
    must(v2_seqno == [{"type": "num", "value": "0x1"}], f"v2 seqno: {v2_seqno}")
    detected = await v2.detect_address(me)
    must(detected["raw_form"] == Address(me).to_string(False), f"detectAddress: {detected}")
    packed = await v2.pack_address(me)
    must(same(packed, me) and same(await v2.unpack_address(packed), me), "pack and unpack")
    txs = await v2.get_transactions(me, limit=10)
    must(len(txs) == 2 and txs[0]["transaction_id"]["hash"] == account.last_transaction_hash, "v2 transactions")
    return txs[0]


async def check_v2_chain(v2, sent):
    """The v2 chain reads (blocks, shards, config, locating transactions)."""
    info = await v2.get_masterchain_info()
    last = info["last"]
    shards = await v2.get_shards(last["seqno"])
    must(len(shards["shards"]) >= 1, f"shards: {shards}")
    header = await v2.get_block_header(-1, -(2**63), last["seqno"])
    must(header["id"]["root_hash"] == last["root_hash"], f"header: {header}")
    looked = await v2.lookup_block(-1, -(2**63), seqno=last["seqno"])
    must(looked["file_hash"] == last["file_hash"], f"lookupBlock: {looked}")
    block_txs = await v2.get_block_transactions(-1, -(2**63), last["seqno"], count=5)
    must(block_txs["id"]["seqno"] == last["seqno"], f"block transactions: {block_txs}")
    config = await v2.get_config_param(34)
    must(config["config"]["bytes"], f"config 34: {config}")
    must((await v2.get_consensus_block())["consensus_block"] >= last["seqno"] - 1, "consensus block")
    out = sent["out_msgs"][0]
    located = await v2.try_locate_tx(out["source"], out["destination"], int(out["created_lt"]))
    result = await v2.try_locate_result_tx(out["source"], out["destination"], int(out["created_lt"]))
    source = await v2.try_locate_source_tx(out["source"], out["destination"], int(out["created_lt"]))
    must(located == result and same(located["address"]["account_address"], out["destination"]), f"{located}")
    must(source["transaction_id"] == sent["transaction_id"], f"the source transaction: {source}")


async def check_jettons(v3, v2, made):
    """The Jetton devnet_jettons.mjs made, through both clients and the getter."""
    master = await v3.get_jetton_masters(made["minter"])
    must(master is not None and master.mintable, f"the master: {master}")
    must(master.jetton_content is not None and master.jetton_content.symbol, f"content: {master.jetton_content}")
    wallets = await v3.get_jetton_wallets(GetJettonWalletsRequest(jetton_address=made["minter"]))
    addresses = {w.address.to_string(False) for w in wallets}
    real = {Address(made["alice_wallet"]).to_string(False), Address(made["bob_wallet"]).to_string(False)}
    must(addresses == real, f"the real wallets and not the fake: {addresses}")
    must(master.total_supply == sum(w.balance for w in wallets), "supply is what the wallets hold")
    for w in wallets:
        one = await v3.get_jetton_wallets(GetSpecifiedJettonWalletRequest(owner_address=w.owner, jetton_address=made["minter"]))
        must(one is not None and one.address == w.address and one.balance == w.balance, f"by owner: {one}")
        owner = begin_cell().store_address(CoreAddress(w.owner.to_string(False))).end_cell()
        derived = await v3.run_get_method(
            RunGetMethodRequest(
                address=made["minter"],
                method="get_wallet_address",
                stack=[GetMethodParameterInput(type="slice", value=b64(owner))],
            )
        )
        must(derived.exit_code == 0 and derived.stack[0].type == "slice", f"get_wallet_address: {derived}")
        slot = Cell.one_from_boc(base64.b64decode(derived.stack[0].value)).begin_parse().load_address()
        must(same(slot.to_str(is_user_friendly=False), w.address), f"the master derives {w.address}: {slot}")
    data = await v3.run_get_method(RunGetMethodRequest(address=made["minter"], method="get_jetton_data", stack=[]))
    # (pytoncenter's JettonDataDecoder reads the admin with tonpy, whose
    # newer releases answer an object its Address does not take.)
    must(data.exit_code == 0 and [e.type for e in data.stack[:3]] == ["num", "num", "slice"], f"{data}")
    must(int(data.stack[0].value, 16) == master.total_supply, f"the getter's supply: {data.stack[0]}")
    must(int(data.stack[1].value, 16) != 0, "the getter says mintable")
    admin = Cell.one_from_boc(base64.b64decode(data.stack[2].value)).begin_parse().load_address()
    must(same(admin.to_str(is_user_friendly=False), master.admin_address), f"the admin: {admin}")
    token = await v2.get_token_data(made["minter"])
    must(token["contract_type"] == "jetton_master" and int(token["total_supply"]) == master.total_supply, f"{token}")

    transfers = await v3.get_jetton_transfers(GetJettonTransfersRequest(jetton_master=made["minter"]))
    must(transfers and all(t.source_wallet.to_string(False) in real for t in transfers), f"transfers: {transfers}")
    must(all(same(t.jetton_master, made["minter"]) and t.amount > 0 for t in transfers), "transfers' Jetton")
    burns = await v3.get_jetton_burns(GetJettonBurnsRequest(jetton_master=made["minter"]))
    must(len(burns) == 1 and same(burns[0].jetton_master, made["minter"]), f"the burn: {burns}")
    return len(transfers)


async def check_nfts(v3, v2, made):
    """The collection devnet_nfts.mjs made: two items, one transferred."""
    collections = await v3.get_nft_collections(GetNFTCollectionsRequest(collection_address=made["collection"]))
    must(len(collections) == 1 and collections[0].next_item_index == 2, f"the collection: {collections}")
    items = await v3.get_nft_items(GetNFTItemsRequest(collection_address=made["collection"]))
    must(sorted(i.index for i in items) == [0, 1] and all(i.init for i in items), f"the items: {items}")
    must({i.address.to_string(False) for i in items} == {Address(a).to_string(False) for a in made["items"]}, "items")
    must(all(same(i.collection_address, made["collection"]) for i in items), "each item's collection")
    transfers = await v3.get_nft_transfers(GetNFTTransfersRequest(collection_address=made["collection"]))
    must(len(transfers) == 1, f"one transfer: {transfers}")
    moved = [i for i in items if i.address == transfers[0].nft_address][0]
    must(same(moved.owner_address, transfers[0].new_owner), "the new owner holds it")
    token = await v2.get_token_data(made["collection"])
    must(token["contract_type"] == "nft_collection" and int(token["next_item_index"]) == 2, f"{token}")
    return len(items)


async def main(base, made):
    warnings.simplefilter("ignore")  # "no API key" warnings: the devnet takes none
    v3 = AsyncTonCenterClientV3("mainnet", custom_endpoint=f"{base}/api/v3", api_key="", qps=1000)
    v2 = AsyncTonCenterClientV2("mainnet", custom_endpoint=f"{base}/api/v2", api_key="", qps=1000)
    to = genesis(base)[3]["address"]
    me, tx = await send_and_wait(base, v3, to)
    await check_transaction(v3, me, to, tx)
    blocks = await check_blocks(v3, tx)
    sent = await check_account(v3, v2, me)
    await check_v2_chain(v2, sent)
    book = await v3.get_address_book(GetAddressBookRequest(address=[me, to]))
    must(len(book) == 2, f"address book: {book}")
    jetton_transfers = await check_jettons(v3, v2, made)
    items = await check_nfts(v3, v2, made)
    print(json.dumps({"ok": True, "wallet": me, "blocks": blocks, "jetton_transfers": jetton_transfers, "items": items}))


asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
