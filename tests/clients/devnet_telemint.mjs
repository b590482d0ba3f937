// A Telemint auction (Fragment's usernames; TelegramMessenger/telemint's
// code) on `tonindex dev`, in two steps.
//
// `prepare` prints the genesis account: a Telemint collection whose deploy
// key is made here (its secret printed for `run`), with a 5% royalty.
//
// `run BASE PREPARED_JSON`: Alice sends the collection a deploy signed with
// that key and a 3 TON first bid; the item it deploys (at the address the
// collection's code derives, computed here from the item's code) runs a
// short auction. Bob outbids her (`auction_bid`; her refund is
// `auction_outbid`), the auction ends on an external message after its end
// time (the item goes to Bob: `nft_purchase` at his bid), Bob starts a new
// auction (`teleitem_start_auction`) and cancels it
// (`teleitem_cancel_auction`). At each step v3 `/nft/sales` of the item
// (type `telemint`) must say what the contract was told and what the
// chain paid. Prints one JSON summary; any failed expectation throws.
import { randomBytes } from "node:crypto";
import { keyPairFromSeed, sha256, sign } from "@ton/crypto";
import { toNano, internal } from "@ton/ton";
import { Address, beginCell, Cell, contractAddress, external, storeMessage } from "@ton/core";
import { TELEMINT_COLLECTION_CODE, TELEMINT_ITEM_CODE } from "./telemint_codes.mjs";
import { devnet, must, raw, sleep } from "./devnet_helpers.mjs";

const COLLECTION = Address.parseRaw("0:" + "7e".repeat(32));
const SUBWALLET = 0x7e1e;
const DURATION = 8;
const [mode, ...args] = process.argv.slice(2);

const text = (s) => beginCell().storeUint(Buffer.byteLength(s), 8).storeBuffer(Buffer.from(s)).endCell();
const offchain = (uri) => beginCell().storeUint(1, 8).storeStringTail(uri).endCell();
const auctionConfig = (beneficiary, minBid, maxBid, step, extend, duration) =>
  beginCell()
    .storeAddress(beneficiary)
    .storeCoins(minBid)
    .storeCoins(maxBid)
    .storeUint(step, 8)
    .storeUint(extend, 32)
    .storeUint(duration, 32)
    .endCell();

if (mode === "prepare") {
  const seed = randomBytes(32);
  const keys = keyPairFromSeed(seed);
  const royalty = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
  const data = beginCell()
    .storeBit(1) // touched: no external deploy of the collection
    .storeUint(SUBWALLET, 32)
    .storeBuffer(keys.publicKey)
    .storeRef(offchain("https://nft.fragment.com/usernames.json"))
    .storeRef(Cell.fromBase64(TELEMINT_ITEM_CODE))
    .storeRef(text("me\0t\0"))
    .storeRef(beginCell().storeUint(5, 16).storeUint(100, 16).storeAddress(royalty).endCell())
    .endCell();
  const spec = `${COLLECTION.toRawString()}:${toNano("1")}:${TELEMINT_COLLECTION_CODE}:${data.toBoc().toString("base64")}`;
  console.log(JSON.stringify({ accounts: [spec], seed: seed.toString("hex"), royalty: royalty.toRawString() }));
  process.exit(0);
}

const [base, preparedJson] = args;
const prepared = JSON.parse(preparedJson);
const keys = keyPairFromSeed(Buffer.from(prepared.seed, "hex"));
const royalty = Address.parseRaw(prepared.royalty);
const { client, getJson, waitFor, newWallet, send, actionOf } = devnet(base);

// The item the collection derives for a token name: index = sha256(name),
// data = ^[index collection] and no state yet.
const name = "alice";
const index = BigInt("0x" + (await sha256(Buffer.from(name))).toString("hex"));
const itemInit = {
  code: Cell.fromBase64(TELEMINT_ITEM_CODE),
  data: beginCell().storeRef(beginCell().storeUint(index, 256).storeAddress(COLLECTION).endCell()).storeBit(0).endCell(),
};
const item = contractAddress(0, itemInit);
const byIndex = await client.runMethod(COLLECTION, "get_nft_address_by_index", [{ type: "int", value: index }]);
must(byIndex.stack.readAddress().equals(item), "the collection derives the item's address");

const alice = await newWallet();
const bob = await newWallet();
const beneficiary = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
const sales = async () => (await getJson(`/api/v3/nft/sales?address=${encodeURIComponent(item.toRawString())}`)).nft_sales;

// Alice's signed deploy, her 3 TON the first bid.
const now = Math.floor(Date.now() / 1000);
const unsigned = beginCell()
  .storeUint(SUBWALLET, 32)
  .storeUint(now - 60, 32)
  .storeUint(now + 600, 32)
  .storeUint(name.length, 8)
  .storeBuffer(Buffer.from(name))
  .storeRef(offchain(`https://nft.fragment.com/username/${name}.json`))
  .storeRef(auctionConfig(beneficiary, toNano("2"), 0n, 5, 0, DURATION))
  .storeBit(0) // the collection's royalty
  .endCell();
const deploy = beginCell()
  .storeUint(0x4637289a, 32)
  .storeBuffer(sign(unsigned.hash(), keys.secretKey))
  .storeSlice(unsigned.beginParse())
  .endCell();
await send(alice, [internal({ to: COLLECTION, value: toNano("3"), bounce: true, body: deploy })]);
const first = (await waitFor(
  `/api/v3/nft/sales?address=${encodeURIComponent(item.toRawString())}`,
  (x) => x.nft_sales.length === 1 && x.nft_sales[0].details.bidder_address !== undefined,
  "the item's auction",
)).nft_sales[0];
const d1 = first.details;
must(first.type === "telemint" && first.address === raw(item) && first.nft_address === raw(item), `sale ${JSON.stringify(first)}`);
must(first.created_at === undefined && first.nft_owner_address === undefined, "no creation time or seller");
must(d1.token_name === name && d1.bidder_address === raw(alice.address) && d1.bid === toNano("3").toString(), `first bid ${JSON.stringify(d1)}`);
// The next bid: at least one TON or 5% more (the contract's rule).
must(d1.min_bid === toNano("4").toString(), `min bid ${d1.min_bid}`);
must(d1.beneficiary_address === raw(beneficiary) && d1.initial_min_bid === toNano("2").toString() && d1.max_bid === "0", "config");
must(d1.min_bid_step === "5" && d1.min_extend_time === "0" && d1.duration === String(DURATION), "steps");
must(d1.royalty_numerator === 5 && d1.royalty_denominator === 100 && d1.royalty_destination === raw(royalty), "royalty");
must(d1.end_time > now && d1.end_time <= Math.floor(Date.now() / 1000) + DURATION, `end time ${d1.end_time}`);
must(first.nft_item && first.nft_item.collection_address === raw(COLLECTION) && first.nft_item.index === index.toString(), "the item with its collection");

// Bob outbids her; her 3 TON come back with the item's outbid notice.
await send(bob, [internal({ to: item, value: toNano("4.5"), bounce: true })]);
const bid = await actionOf(bob.address, "auction_bid");
must(bid.success && bid.details.bidder === raw(bob.address) && bid.details.auction === raw(item), `bid ${JSON.stringify(bid.details)}`);
must(bid.details.amount === toNano("4.5").toString() && bid.details.nft_item === raw(item), "bid amount and lot");
must(bid.details.nft_collection === raw(COLLECTION) && bid.details.nft_item_index === index.toString(), "bid's collection and index");
const outbid = await actionOf(alice.address, "auction_outbid");
const refunds = (await client.getTransactions(alice.address, { limit: 5 }))
  .map((t) => t.inMessage)
  .filter((m) => m && m.info.type === "internal" && m.info.src.equals(item));
must(refunds.length === 1, "one refund to Alice");
must(outbid.details.bidder === raw(alice.address) && outbid.details.new_bidder === raw(bob.address), `outbid ${JSON.stringify(outbid.details)}`);
must(outbid.details.amount === refunds[0].info.value.coins.toString(), "the refund the chain carried");
const second = (await waitFor(
  `/api/v3/nft/sales?address=${encodeURIComponent(item.toRawString())}`,
  (x) => x.nft_sales[0]?.details.bidder_address === raw(bob.address),
  "Bob's bid in the sale",
)).nft_sales[0].details;
must(second.bid === toNano("4.5").toString() && second.min_bid === toNano("5.5").toString(), `second ${JSON.stringify(second)}`);

// After the end time an external message ends the auction: the item is Bob's.
while (Math.floor(Date.now() / 1000) <= d1.end_time + 1) await sleep(250);
await client.sendMessage(external({ to: item, body: beginCell().endCell() }));
// toncenter shows a Fragment sale as an nft_transfer that is a purchase.
const purchase = await actionOf(bob.address, "nft_transfer", (a) => a.details.is_purchase);
const p = purchase.details;
must(p.nft_item === raw(item) && p.new_owner === raw(bob.address) && p.marketplace === "fragment", `purchase ${JSON.stringify(p)}`);
must(p.price === toNano("4.5").toString(), "the winning bid");
// 5% of the bid to the royalty address, less the fee of its message.
must(p.royalty_address === raw(royalty) && BigInt(p.royalty_amount) <= toNano("0.225") && BigInt(p.royalty_amount) > toNano("0.224"), "royalty");
must(p.payout_address === raw(beneficiary) && BigInt(p.payout_amount) <= toNano("4.275"), "payout to the beneficiary");
const owned = await waitFor(
  `/api/v3/nft/items?address=${encodeURIComponent(item.toRawString())}`,
  (x) => x.nft_items[0]?.owner_address === raw(bob.address),
  "Bob owning the item",
);
const ownerOnChain = (await client.runMethod(item, "get_nft_data")).stack;
ownerOnChain.skip(3);
must(ownerOnChain.readAddress().equals(bob.address), "the item's own get_nft_data");
const ended = (await sales())[0].details;
must(ended.bidder_address === undefined && ended.end_time === undefined && ended.token_name === name, `ended ${JSON.stringify(ended)}`);
must((await sales())[0].nft_owner_address === undefined, "a Telemint row names no seller");
must(ended.royalty_numerator === 5, "royalty still shown");

// Bob auctions it again, then cancels before anyone bids.
const restart = beginCell()
  .storeUint(0x487a8e81, 32)
  .storeUint(7, 64)
  .storeRef(auctionConfig(bob.address, toNano("2"), toNano("10"), 10, 0, 3600))
  .endCell();
await send(bob, [internal({ to: item, value: toNano("0.1"), bounce: true, body: restart })]);
const started = await actionOf(bob.address, "teleitem_start_auction");
const s = started.details;
must(started.success && s.owner === raw(bob.address) && s.auction_address === raw(item) && s.nft_item === raw(item), `start ${JSON.stringify(s)}`);
must(s.nft_collection === raw(COLLECTION) && s.nft_item_index === index.toString(), "start's collection and index");
must(s.min_bid === toNano("2").toString() && s.max_bid === toNano("10").toString(), "start's bids");
must(s.marketplace_fee_address === raw(bob.address) && s.marketplace_fee_factor === "0", "start's beneficiary");
const running = (await waitFor(
  `/api/v3/nft/sales?address=${encodeURIComponent(item.toRawString())}`,
  (x) => x.nft_sales[0]?.details.max_bid === toNano("10").toString(),
  "the new auction in the sale",
)).nft_sales[0].details;
must(running.bidder_address === undefined && running.bid === "0" && running.min_bid === toNano("2").toString(), `running ${JSON.stringify(running)}`);

await send(bob, [internal({ to: item, value: toNano("0.1"), bounce: true, body: beginCell().storeUint(0x371638ae, 32).storeUint(8, 64).endCell() })]);
const cancelled = await actionOf(bob.address, "teleitem_cancel_auction");
must(cancelled.success && cancelled.details.owner === raw(bob.address) && cancelled.details.auction_address === raw(item), `cancel ${JSON.stringify(cancelled.details)}`);
must(cancelled.details.nft_item === raw(item) && cancelled.details.nft_collection === raw(COLLECTION), "cancel's item");
const after = (await waitFor(
  `/api/v3/nft/sales?address=${encodeURIComponent(item.toRawString())}`,
  (x) => x.nft_sales[0]?.details.max_bid === undefined,
  "the auction gone from the sale",
)).nft_sales[0].details;
must(after.token_name === name, "the name stays");

// The decoder reads the Telemint bodies.
const decoded = await getJson("/api/v3/decode", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ bodies: [restart.toBoc().toString("base64")] }),
});
must(decoded.bodies[0]["@type"] === "teleitem_msg_start_auction" && decoded.bodies[0].auction_config.max_bid === toNano("10").toString(), `decode ${JSON.stringify(decoded)}`);

console.log(JSON.stringify({ ok: true, item: raw(item), bid: bid.details, purchase: purchase.details, start: s }));
