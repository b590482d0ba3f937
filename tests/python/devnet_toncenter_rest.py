"""PyPI toncenter 0.4.0's REST client (ToncenterRestClient: API v2 and v3,
every answer validated by its pydantic models), unchanged, against
`tonindex dev` (argv[1] = base URL; argv[2] = JSON naming what
devnet_jettons.mjs and devnet_nfts.mjs made: `minter`, `alice_wallet`,
`bob_wallet`, `fake`, `collection`, `items`).

A fresh tonutils wallet's first transfer is estimated through both APIs,
sent through v2 and found through v3. Then every other call of the
client's v2 and v3 resource groups is made once, and what it parses is
held against what the steps did, against the other API, and against
tonutils' own hash of the message (TEP-467). Prints one JSON line; a
failed expectation raises."""
import asyncio
import base64
import json
import sys
import warnings

from ton_core import NetworkGlobalID
from toncenter.rest.client import ToncenterRestClient
from toncenter.rest.v3.models import DecodeRequest, V2EstimateFeeRequest, V2RunGetMethodRequest
from tonutils.clients import ToncenterClient

from streaming_common import funded_transfer, genesis, must

MC_SHARD = "-9223372036854775808"


def b64(cell):
    return base64.b64encode(cell.to_boc()).decode()


def raw(address):
    """An address as v3 writes it, from v2's lower-case raw form."""
    wc, _, account = address.partition(":")
    return f"{wc}:{account.upper()}"


async def send_one(base, c, to):
    """A fresh wallet's first transfer: estimated through v2 and v3, sent
    through v2, found through v3. (the wallet, its transaction)"""
    tu = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    async with tu:
        me, message, norm = await funded_transfer(base, tu, to, "from PyPI toncenter")
    body, code, data = b64(message.body), b64(message.init.code), b64(message.init.data)
    v2_fee = await c.v2.send.estimate_fee(me, body, init_code=code, init_data=data)
    v3_fee = await c.v3.api_v2.estimate_fee(V2EstimateFeeRequest(address=me, body=body, init_code=code, init_data=data))
    must(v2_fee.source_fees.gas_fee > 0, f"v2 estimate {v2_fee}")
    must(v3_fee.source_fees.gas_fee == v2_fee.source_fees.gas_fee, f"the two estimates {v3_fee} {v2_fee}")
    boc = base64.b64encode(bytes.fromhex(message.as_hex)).decode()
    sent = await c.v2.send.send_boc_return_hash(boc)
    must(sent.hash_norm == norm, f"sendBocReturnHash's normalized hash {sent} vs tonutils' {norm}")
    for _ in range(100):
        found = await c.v3.blockchain.get_transactions_by_message(msg_hash=sent.hash, direction="in")
        if found.transactions:
            return me, found.transactions[0]
        await asyncio.sleep(0.1)
    raise AssertionError("the sent message never found its transaction")


async def check_v3_reads(c, me, tx, made):
    """v3's account, history, block and message reads."""
    v3 = c.v3
    states = (await v3.accounts.get_account_states([me])).accounts
    must(len(states) == 1 and states[0].status == "active" and states[0].code_hash, f"state {states}")
    balance = await c.v2.accounts.get_address_balance(me)
    must(states[0].balance == balance, f"v3 {states[0].balance} vs v2 {balance}")
    wallets = (await v3.accounts.get_wallet_states([me])).wallets
    must(wallets[0].wallet_type == "wallet v4 r2" and wallets[0].seqno == 1, f"wallet {wallets}")
    book = await v3.accounts.get_address_book([me])
    # (keyed by the address as it was asked)
    row = (book.root if hasattr(book, "root") else book)[me]
    must(row.user_friendly.startswith("UQ") and row.interfaces == ["wallet_v4r2"], f"address book {row}")
    info = await v3.api_v2.get_address_information(me)
    winfo = await v3.api_v2.get_wallet_information(me)
    must(info.balance == balance and info.status == "active" and winfo.seqno == 1, f"{info} {winfo}")
    seqno = await v3.api_v2.run_get_method(V2RunGetMethodRequest(address=me, method="seqno", stack=[]))
    must(seqno.exit_code == 0 and seqno.stack[0].value == "0x1", f"seqno {seqno}")

    children = (await v3.blockchain.get_adjacent_transactions(hash=tx.hash, direction="out")).transactions
    must(len(children) == 1 and children[0].in_msg.hash == tx.out_msgs[0].hash, f"the receiver {children}")
    mine = (await v3.blockchain.get_transactions(account=[me], sort="asc")).transactions
    must([t.hash for t in mine][-1] == tx.hash and len(mine) == 2, f"funding, then the transfer {mine}")
    in_mc = (await v3.blockchain.get_transactions_by_masterchain_block(tx.mc_block_seqno, limit=100)).transactions
    must(tx.hash in [t.hash for t in in_mc], "its masterchain block lists it")
    messages = (await v3.blockchain.get_messages(source=me)).messages
    must([m.hash for m in messages] == [tx.out_msgs[0].hash], f"its message {messages}")
    blocks = (await v3.blockchain.get_blocks(workchain=-1, limit=3)).blocks
    seqnos = [b.seqno for b in blocks]
    must(seqnos == sorted(seqnos, reverse=True) and len(seqnos) == 3, f"blocks {seqnos}")
    shards = (await v3.blockchain.get_masterchain_block_shards(tx.mc_block_seqno)).blocks
    ref = tx.block_ref
    must((ref.workchain, ref.shard, ref.seqno) in [(b.workchain, b.shard, b.seqno) for b in shards], "its block")
    state = (await v3.blockchain.get_masterchain_block_shard_state(tx.mc_block_seqno)).blocks
    must({b.workchain for b in state} == {-1, 0}, f"shard state {state}")
    info = await v3.blockchain.get_masterchain_info()
    must(info.first.seqno <= tx.mc_block_seqno <= info.last.seqno, f"masterchain info {info}")
    traces = (await v3.actions.get_traces(account=me, include_actions=True)).traces
    must(any(t.trace_id == tx.hash for t in traces), f"its trace {[t.trace_id for t in traces]}")
    actions = (await v3.actions.get_actions(account=me, include_accounts=True, include_transactions=True)).actions
    transfer = [a for a in actions if a.type == "ton_transfer" and tx.hash in a.transactions]
    must(len(transfer) == 1 and transfer[0].transactions_full, f"its ton_transfer {[a.type for a in actions]}")
    must(raw(me) in transfer[0].accounts, "the action's accounts")
    top = await v3.stats.get_top_accounts_by_balance(limit=5)
    must([int(a.balance) for a in top] == sorted((int(a.balance) for a in top), reverse=True), f"top {top}")
    return len(actions)


async def check_v3_tokens(c, made):
    """v3's token, DNS, multisig, vesting and decode reads."""
    v3 = c.v3
    masters = (await v3.jettons.get_jetton_masters(address=[made["minter"]])).jetton_masters
    must(len(masters) == 1 and masters[0].jetton_content["symbol"] == "DVD", f"the master {masters}")
    wallets = (await v3.jettons.get_jetton_wallets(jetton_address=[made["minter"]])).jetton_wallets
    real = {raw(made["alice_wallet"]), raw(made["bob_wallet"])}
    must({w.address for w in wallets} == real, f"the real wallets, not the fake {wallets}")
    must(int(masters[0].total_supply) == sum(int(w.balance) for w in wallets), "supply is what they hold")
    transfers = (await v3.jettons.get_jetton_transfers(jetton_master=made["minter"])).jetton_transfers
    must(transfers and all(t.source_wallet in real for t in transfers), f"transfers {transfers}")
    burns = (await v3.jettons.get_jetton_burns(jetton_master=made["minter"])).jetton_burns
    must(len(burns) == 1 and burns[0].jetton_master == raw(made["minter"]), f"the burn {burns}")
    meta = await v3.accounts.get_metadata([made["minter"]])
    entry = (meta.root if hasattr(meta, "root") else meta)[raw(made["minter"])]
    must(entry.token_info[0].symbol == "DVD" and entry.token_info[0].extra["decimals"] == "6", f"metadata {entry}")

    collections = (await v3.nfts.get_nft_collections(collection_address=[made["collection"]])).nft_collections
    must(len(collections) == 1 and int(collections[0].next_item_index) == 2, f"the collection {collections}")
    items = (await v3.nfts.get_nft_items(collection_address=[made["collection"]])).nft_items
    must({i.address for i in items} == {raw(a) for a in made["items"]}, f"the items {items}")
    moved = (await v3.nfts.get_nft_transfers(collection_address=made["collection"])).nft_transfers
    must(len(moved) == 1, f"one transfer {moved}")
    must([i.owner_address for i in items if i.address == moved[0].nft_address] == [moved[0].new_owner], "new owner")
    sales = (await v3.nfts.get_nft_sales([made["items"][0]])).nft_sales
    must(sales == [], f"no sale {sales}")

    owner = masters[0].admin_address
    must((await v3.dns.get_dns_records(wallet=owner)).records == [], "no domain")
    must((await v3.multisig.get_multisig_wallets(wallet_address=[owner])).multisigs == [], "no multisig")
    must((await v3.multisig.get_multisig_orders(multisig_address=[owner])).orders == [], "no order")
    must((await v3.vesting.get_vesting_contracts(wallet_address=[owner])).vesting_contracts == [], "no vesting")
    decoded = await v3.utils.get_decode(opcodes=["0x0f8a7ea5"])
    posted = await v3.utils.post_decode(DecodeRequest(opcodes=["0x0f8a7ea5"]))
    must(decoded.opcodes == posted.opcodes == ["jetton_transfer"], f"decode {decoded} {posted}")
    return len(transfers)


async def check_v2(c, me, tx, made):
    """API v2: the account, blocks, config, transactions and utils."""
    v2 = c.v2
    info = await v2.accounts.get_address_information(me)
    ext = await v2.accounts.get_extended_address_information(me)
    wallet = await v2.accounts.get_wallet_information(me)
    must(info.balance == ext.balance == wallet.balance == await v2.accounts.get_address_balance(me), "balances")
    must(await v2.accounts.get_address_state(me) == "active" and wallet.wallet and wallet.seqno == 1, f"{wallet}")
    must(info.last_transaction_id.hash == tx.hash, "the last transaction")
    token = await v2.accounts.get_token_data(made["minter"])
    must(token.contract_type == "jetton_master", f"token data {token}")

    mc = await v2.blocks.get_masterchain_info()
    last = mc.last.seqno
    must((await v2.blocks.get_consensus_block()).consensus_block >= last - 1, "consensus block")
    header = await v2.blocks.get_block_header(-1, MC_SHARD, last)
    looked = await v2.blocks.lookup_block(-1, MC_SHARD, seqno=last)
    must(header.id.root_hash == looked.root_hash == mc.last.root_hash, f"header {header} lookup {looked}")
    shards = await v2.blocks.get_shards(last)
    must(shards.shards and all(s.workchain == 0 for s in shards.shards), f"shards {shards}")
    signatures = await v2.blocks.get_masterchain_block_signatures(last)
    must(signatures.signatures, "signatures")
    proof = await v2.blocks.get_shard_block_proof(-1, MC_SHARD, last)
    must(proof.from_block.seqno == last, f"proof {proof.from_block}")
    queue = await v2.blocks.get_out_msg_queue_size()
    must(queue.shards, "queue sizes")
    block_txs = await v2.transactions.get_block_transactions(-1, MC_SHARD, last)
    block_ext = await v2.transactions.get_block_transactions_ext(-1, MC_SHARD, last)
    must(block_txs.id.seqno == block_ext.id.seqno == last, "a block's transactions")
    must(len(block_txs.transactions) == len(block_ext.transactions), "both forms list them all")

    must((await v2.configuration.get_config_param(34)).config.bytes, "config 34")
    must((await v2.configuration.get_config_all()).config.bytes, "the whole config")
    must((await v2.configuration.get_libraries(["A" * 43 + "="])).result == [], "an unknown library")
    rpc = await v2.rpc.json_rpc("getMasterchainInfo", params={})
    # (the client hands back the envelope's `result`)
    must(rpc["last"]["seqno"] >= last, f"jsonRPC {rpc}")

    run = await v2.runmethod.run_get_method(me, "seqno", [])
    std = await v2.runmethod.run_get_method_std(me, "seqno", [])
    must(run.exit_code == std.exit_code == 0, f"seqno {run} {std}")
    txs = await v2.transactions.get_transactions(me, limit=5)
    std_txs = await v2.transactions.get_transactions_std(me, limit=5)
    must(txs[0].transaction_id.hash == tx.hash and len(txs) == len(std_txs.transactions) == 2, "v2 history")
    out = txs[0].out_msgs[0]
    located = await v2.transactions.try_locate_tx(out.source, out.destination, int(out.created_lt))
    result = await v2.transactions.try_locate_result_tx(out.source, out.destination, int(out.created_lt))
    source = await v2.transactions.try_locate_source_tx(out.source, out.destination, int(out.created_lt))
    must(located.transaction_id == result.transaction_id, "tryLocateTx is tryLocateResultTx")
    must(source.transaction_id.hash == tx.hash, "the source transaction")

    detected = await v2.utils.detect_address(me)
    must(raw(detected.raw_form) == raw(me), f"detectAddress {detected}")
    packed = await v2.utils.pack_address(me)
    must(raw(await v2.utils.unpack_address(packed)) == raw(me), "pack, then unpack")
    hashed = await v2.utils.detect_hash(tx.hash)
    must(hashed.b64 == tx.hash, f"detectHash {hashed}")
    return last


async def main(base, made):
    warnings.simplefilter("ignore")  # "no API key" warnings: the devnet takes none
    c = ToncenterRestClient("", base_url=base, rps_limit=0)
    async with c:
        to = genesis(base)[3]["address"]
        me, tx = await send_one(base, c, to)
        actions = await check_v3_reads(c, me, tx, made)
        transfers = await check_v3_tokens(c, made)
        last = await check_v2(c, me, tx, made)
    print(json.dumps({"ok": True, "wallet": me, "actions": actions, "jetton_transfers": transfers, "mc_seqno": last}))


asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
