// GetGems fixed-price sales (version 4, mainnet's code from tongo's corpus)
// traded on `tonindex dev`, in two steps.
//
// `prepare FIXTURES` prints the genesis accounts: two sales of Alice's (a
// fresh v4 wallet; mnemonic printed) on GetGems' marketplace at 1 TON, 5%
// marketplace fee and 10% royalty, each holding an NFT item (token-contract's
// item code) it owns. The sale's storage is written here: `is_complete`,
// marketplace, owner, price, sold_at, query_id, a fees cell (fee and royalty
// addresses, their factors out of 100000 as uint17, the NFT, created_at)
// and an empty jetton price dictionary; the run first holds the contract's
// own get_fix_price_data_v4 to every value written.
//
// `run BASE PREPARED_JSON` (what `prepare` printed): Bob buys the
// first (a plain 1.2 TON transfer): `nft_purchase` with the price, seller,
// buyer and payout the chain shows (the item's get_nft_data, the seller's
// and the fee and royalty addresses' balances). Alice cancels the second
// (op 3): `nft_cancel_sale`, the item back with her, and a client of the v2
// action set sees the call and the transfer instead. Before, her price
// update in the older sales' message, which the v4 sale refuses, is a
// failed `nft_update_sale`; the same update to a third sale, version 3r3
// (GetGems' code), which takes it, is a successful one, the new price and
// fees on the sale's own getter and on v3 /nft/sales. Prints one JSON
// summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, SendMode } from "@ton/core";
import { GETGEMS_SALE_V3R3_CODE, ITEM_CODE } from "./nft_codes.mjs";
import { devnet, must, raw, sleep } from "./devnet_helpers.mjs";

const MARKETPLACE = Address.parseRaw("0:584ee61b2dff0837116d0fcb5078d93964bcbe9c05fd6a141b1bfca5d6a43e18");
const PRICE = toNano("1");
const CREATED_AT = 1_700_000_000;
const [mode, ...args] = process.argv.slice(2);

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const saleCode = Cell.fromBoc(Buffer.from(cases.find((c) => c.name === "nft_sale v4").code_hex, "hex"))[0];
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const alice = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  const fee = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
  const royalty = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
  const spec = (a, code, data) => `${a.toRawString()}:${toNano("1")}:${code.toBoc().toString("base64")}:${data.toBoc().toString("base64")}`;
  const accounts = [];
  const pairs = [];
  for (const n of [1, 2]) {
    const sale = Address.parseRaw("0:" + `5${n}`.repeat(32));
    const item = Address.parseRaw("0:" + `7${n}`.repeat(32));
    const fees = beginCell()
      .storeAddress(fee)
      .storeAddress(royalty)
      .storeUint(5000, 17)
      .storeUint(10000, 17)
      .storeAddress(item)
      .storeUint(CREATED_AT, 32)
      .endCell();
    const saleData = beginCell()
      .storeBit(0)
      .storeAddress(MARKETPLACE)
      .storeAddress(alice)
      .storeCoins(PRICE)
      .storeUint(0, 32)
      .storeUint(0, 64)
      .storeRef(fees)
      .storeBit(0)
      .endCell();
    // token-contract's item: index:uint64 collection(none) owner content.
    const itemData = beginCell()
      .storeUint(n, 64)
      .storeUint(0, 2)
      .storeAddress(sale)
      .storeRef(beginCell().storeUint(1, 8).storeStringTail(`item-${n}.json`).endCell())
      .endCell();
    accounts.push(spec(sale, saleCode, saleData), spec(item, Cell.fromBase64(ITEM_CODE), itemData));
    pairs.push(sale.toRawString(), item.toRawString());
  }
  // A third sale of Alice's, version 3r3 (GetGems' code), holding a third
  // item: is_complete created_at marketplace nft owner price ^fees sold_at
  // query_id, the fees cell (fee address, fee, royalty address, royalty) in
  // nanotons.
  const sale3 = Address.parseRaw("0:" + "53".repeat(32));
  const item3 = Address.parseRaw("0:" + "73".repeat(32));
  const fees3 = beginCell().storeAddress(fee).storeCoins(toNano("0.05")).storeAddress(royalty).storeCoins(toNano("0.1")).endCell();
  const sale3Data = beginCell()
    .storeUint(0, 1)
    .storeUint(CREATED_AT, 32)
    .storeAddress(MARKETPLACE)
    .storeAddress(item3)
    .storeAddress(alice)
    .storeCoins(PRICE)
    .storeRef(fees3)
    .storeUint(0, 32)
    .storeUint(0, 64)
    .endCell();
  const item3Data = beginCell()
    .storeUint(3, 64)
    .storeUint(0, 2)
    .storeAddress(sale3)
    .storeRef(beginCell().storeUint(1, 8).storeStringTail("item-3.json").endCell())
    .endCell();
  accounts.push(spec(sale3, Cell.fromBase64(GETGEMS_SALE_V3R3_CODE), sale3Data), spec(item3, Cell.fromBase64(ITEM_CODE), item3Data));
  pairs.push(sale3.toRawString(), item3.toRawString());
  console.log(JSON.stringify({ accounts, mnemonic, pairs, fee: fee.toRawString(), royalty: royalty.toRawString() }));
  process.exit(0);
}

const [base, preparedJson] = args;
const prepared = JSON.parse(preparedJson);
const [sale1Raw, item1Raw, sale2Raw, item2Raw, sale3Raw, item3Raw] = prepared.pairs;
const { fee: feeRaw, royalty: royaltyRaw } = prepared;
const { client, getJson, waitFor, newWallet, send, actionOf } = devnet(base);
const [sale1, item1, sale2, item2, sale3, item3, fee, royalty] = [sale1Raw, item1Raw, sale2Raw, item2Raw, sale3Raw, item3Raw, feeRaw, royaltyRaw].map((a) => Address.parseRaw(a));
const keys = await mnemonicToPrivateKey(prepared.mnemonic);
const aliceWallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
const alice = aliceWallet.address;
const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
const ownerOf = async (item) => (await client.runMethod(item, "get_nft_data")).stack.skip(3).readAddress();

// The contract's own getter reads back what prepare wrote.
const g = (await client.runMethod(sale1, "get_fix_price_data_v4")).stack;
must(g.readNumber() === 0 && g.readNumber() === CREATED_AT, "is_complete, created_at");
must(g.readAddress().equals(MARKETPLACE) && g.readAddress().equals(item1) && g.readAddress().equals(alice), "marketplace, nft, owner");
must(g.readBigNumber() === PRICE, "full price");
must(g.readAddress().equals(fee), "fee address");
const feeFactor = g.readBigNumber();
must(g.readAddress().equals(royalty), "royalty address");
const royaltyFactor = g.readBigNumber();
must(feeFactor === 5000n && royaltyFactor === 10000n, `fee ${feeFactor}, royalty ${royaltyFactor} (out of 100000)`);
const feeAmount = (PRICE * feeFactor) / 100000n;
const royaltyAmount = (PRICE * royaltyFactor) / 100000n;
must((await ownerOf(item1)).equals(sale1), "the sale holds its item");

// Bob buys the first item.
const bob = await newWallet();
await send(bob, [internal({ to: sale1, value: toNano("1.2"), body: beginCell().endCell() })]);
const bought = await actionOf(sale1, "nft_purchase");
const pd = bought.details;
must(bought.success === true, `purchase succeeded ${JSON.stringify(bought)}`);
must((await ownerOf(item1)).equals(bob.address) && pd.new_owner === raw(bob.address), `the buyer ${JSON.stringify(pd)}`);
must(pd.nft_item === raw(item1) && pd.old_owner === raw(sale1) && pd.real_old_owner === raw(alice), `item and seller ${JSON.stringify(pd)}`);
must(pd.price === PRICE.toString() && pd.is_purchase === true && pd.marketplace === "getgems" && pd.marketplace_address === raw(MARKETPLACE), `price and marketplace ${JSON.stringify(pd)}`);
// Alice's wallet did not exist: its balance is what the sale paid her.
const paid = await client.getBalance(alice);
must(pd.payout_amount === paid.toString() && paid === PRICE - feeAmount - royaltyAmount, `payout ${pd.payout_amount} vs Alice's balance ${paid}`);
must((await client.getBalance(fee)) === feeAmount && (await client.getBalance(royalty)) === royaltyAmount, "fee and royalty paid at the getter's factors");
const sold = (await client.runMethod(sale1, "get_fix_price_data_v4")).stack;
must(sold.readNumber() !== 0, "the sale is complete");

// Alice cancels the second sale: op 3 from her wallet.
await getJson("/dev/fund", {
  method: "POST",
  body: JSON.stringify({ address: alice.toString({ bounceable: false }), amount: toNano("2").toString() }),
});
const aliceSends = async (seqno, body, to = sale2) => {
  await client.open(aliceWallet).sendTransfer({
    seqno,
    secretKey: keys.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to, value: toNano("0.2"), body })],
  });
  for (let i = 0; i < 100 && (await client.open(aliceWallet).getSeqno().catch(() => 0)) <= seqno; i++) await sleep(100);
};
// First the older sales' price update (sale_update#6c6c2080): the v4 sale
// does not take it (its transaction aborts), so the action failed and the
// price stands.
await aliceSends(0, beginCell().storeUint(0x6c6c2080, 32).storeUint(4, 64).storeCoins(toNano("2")).storeCoins(toNano("0.1")).storeCoins(toNano("0.2")).endCell());
const update = await actionOf(sale2, "nft_update_sale");
const ud = update.details;
must(update.success === false, `the v4 sale refuses the update ${JSON.stringify(update)}`);
must(sorted(ud) === sorted({
  source: raw(alice), sale_contract: raw(sale2), nft_address: raw(item2), marketplace_address: raw(MARKETPLACE),
  marketplace: "getgems", full_price: toNano("2").toString(), marketplace_fee: toNano("0.1").toString(), royalty_amount: toNano("0.2").toString(),
}), `update details ${JSON.stringify(ud)}`);
const still = (await client.runMethod(sale2, "get_fix_price_data_v4")).stack;
still.skip(5);
must(still.readBigNumber() === PRICE, "the price stands");
await aliceSends(1, beginCell().storeUint(3, 32).storeUint(5, 64).endCell());
const cancelled = await actionOf(sale2, "nft_cancel_sale");
const cd = cancelled.details;
must(cancelled.success === true, `cancel succeeded ${JSON.stringify(cancelled)}`);
must((await ownerOf(item2)).equals(alice), "the item is back with Alice");
must(sorted(cd) === sorted({
  owner: raw(alice), nft_item: raw(item2), nft_collection: null, sale_address: raw(sale2),
  marketplace_address: raw(MARKETPLACE), marketplace: "getgems",
}), `cancel details ${JSON.stringify(cd)}`);
const back = await actionOf(sale2, "nft_transfer");
must(back.details.new_owner === raw(alice) && back.details.nft_item === raw(item2), `the transfer back ${JSON.stringify(back.details)}`);
must((await getJson(`/api/v3/actions?account=${encodeURIComponent(item2.toRawString())}&action_type=nft_cancel_sale`)).actions.length === 1, "the item's own actions list the cancel");
// A client of the v2 set sees the call and the transfer instead.
const older = await getJson(`/api/v3/actions?account=${encodeURIComponent(sale2.toRawString())}&supported_action_types=v2`);
const types = older.actions.map((a) => a.type).sort();
must(types.includes("nft_transfer") && types.every((t) => t === "call_contract" || t === "nft_transfer"), `v2 clients see ${JSON.stringify(types)}`);
must(types.filter((t) => t === "call_contract").length >= 2, `the update and the cancel as calls ${JSON.stringify(types)}`);

// The same update to the v3r3 sale, which takes it from its owner: a
// successful nft_update_sale, and the sale's own getter and v3 /nft/sales
// show the new price and fees.
const newPrice = toNano("3");
await aliceSends(2, beginCell().storeUint(0x6c6c2080, 32).storeUint(6, 64).storeCoins(newPrice).storeCoins(toNano("0.15")).storeCoins(toNano("0.3")).endCell(), sale3);
const updated = await actionOf(sale3, "nft_update_sale");
must(updated.success === true, `the v3r3 sale takes the update ${JSON.stringify(updated)}`);
must(sorted(updated.details) === sorted({
  source: raw(alice), sale_contract: raw(sale3), nft_address: raw(item3), marketplace_address: raw(MARKETPLACE),
  marketplace: "getgems", full_price: newPrice.toString(), marketplace_fee: toNano("0.15").toString(), royalty_amount: toNano("0.3").toString(),
}), `v3r3 update details ${JSON.stringify(updated.details)}`);
const v3 = (await client.runMethod(sale3, "get_sale_data")).stack;
must(v3.readNumber() === 0x46495850 && v3.readNumber() === 0, "a fixed-price sale, not complete");
v3.skip(4);
must(v3.readBigNumber() === newPrice, "the sale's own price is the new one");
v3.skip(1);
must(v3.readBigNumber() === toNano("0.15") && (v3.skip(1), v3.readBigNumber()) === toNano("0.3"), "and its fees");
const listed = await waitFor(
  `/api/v3/nft/sales?address=${encodeURIComponent(sale3.toRawString())}`,
  (x) => x.nft_sales[0]?.details.full_price === newPrice.toString(),
  "the sale row at the new price",
);
const row = listed.nft_sales[0];
must(row.type === "getgems_sale" && row.nft_address === raw(item3) && row.nft_owner_address === raw(alice), `the sale row ${JSON.stringify(row)}`);
must(row.details.marketplace_fee === toNano("0.15").toString() && row.details.royalty_amount === toNano("0.3").toString(), `the sale row's fees ${JSON.stringify(row)}`);

console.log(JSON.stringify({ ok: true }));
