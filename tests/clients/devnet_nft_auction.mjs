// GetGems auctions (mainnet's auction code from tongo's corpus) on
// `tonindex dev`, in two steps.
//
// `prepare FIXTURES` prints the genesis accounts: two auctions of Alice's
// (a fresh v4 wallet; mnemonic printed) on GetGems' marketplace, running for
// an hour from 1 TON, each holding an NFT item (token-contract's item code)
// it owns. Their storage is written here — end/activated/cancelled flags,
// last bidder and bid, its time, the end time and the seller; a fees cell
// (marketplace and royalty addresses, factors and bases); a constants cell
// (gas taken from bids, marketplace, min and max bid, min step, step time,
// the NFT, created_at) — and the run first holds the contract's own
// get_sale_data to it.
//
// `run BASE PREPARED_JSON` (what `prepare` printed): Bob bids 1.5 TON
// and Carol 3 TON on the first (`auction_bid` twice, and the refund of
// Bob's bid is `auction_outbid`), Alice stops it (`nft_finish_auction`, the
// item with Carol) and cancels the second (`nft_cancel_auction`, the item
// back with her); every value against the auction's getter, the items'
// owners and the refund the chain carried. Prints one JSON summary; any
// failed expectation throws.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, SendMode } from "@ton/core";
import { ITEM_CODE } from "./nft_codes.mjs";
import { devnet, getgemsAuctionData, GETGEMS_MARKETPLACE as MARKETPLACE, must, raw, sleep } from "./devnet_helpers.mjs";

const MIN_BID = toNano("1");
const [mode, ...args] = process.argv.slice(2);

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const code = Cell.fromBoc(Buffer.from(cases.find((c) => c.name === "GetSaleData for getgems auction").code_hex, "hex"))[0];
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const alice = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  const fee = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
  const royalty = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
  const spec = (a, c, d) => `${a.toRawString()}:${toNano("1")}:${c.toBoc().toString("base64")}:${d.toBoc().toString("base64")}`;
  const now = Math.floor(Date.now() / 1000);
  const accounts = [];
  const pairs = [];
  for (const n of [1, 2]) {
    const auction = Address.parseRaw("0:" + `a${n}`.repeat(32));
    const item = Address.parseRaw("0:" + `8${n}`.repeat(32));
    const data = getgemsAuctionData({
      seller: alice,
      nft: item,
      fee,
      royalty,
      minBid: MIN_BID,
      maxBid: 0,
      endTime: now + 3600,
      createdAt: now - 10,
    });
    const itemData = beginCell()
      .storeUint(10 + n, 64)
      .storeUint(0, 2)
      .storeAddress(auction)
      .storeRef(beginCell().storeUint(1, 8).storeStringTail(`lot-${n}.json`).endCell())
      .endCell();
    accounts.push(spec(auction, code, data), spec(item, Cell.fromBase64(ITEM_CODE), itemData));
    pairs.push(auction.toRawString(), item.toRawString());
  }
  console.log(JSON.stringify({ accounts, mnemonic, pairs }));
  process.exit(0);
}

const [base, preparedJson] = args;
const prepared = JSON.parse(preparedJson);
const [a1Raw, i1Raw, a2Raw, i2Raw] = prepared.pairs;
const { client, getJson, waitFor, newWallet, send } = devnet(base);
const [a1, i1, a2, i2] = [a1Raw, i1Raw, a2Raw, i2Raw].map((x) => Address.parseRaw(x));
const keys = await mnemonicToPrivateKey(prepared.mnemonic);
const aliceWallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
const alice = aliceWallet.address;
const ownerOf = async (item) => (await client.runMethod(item, "get_nft_data")).stack.skip(3).readAddress();
// get_sale_data: magic end end_time marketplace nft owner last_bid last_member …
const saleData = async (a) => {
  const s = (await client.runMethod(a, "get_sale_data")).stack;
  return { magic: s.readNumber(), end: s.readNumber(), endTime: s.readNumber(), marketplace: s.readAddress(), nft: s.readAddress(), owner: s.readAddress(), lastBid: s.readBigNumber(), lastMember: s.readAddressOpt() };
};
const actionsOf = async (a, query = "") => (await getJson(`/api/v3/actions?account=${encodeURIComponent(a.toRawString())}&limit=50${query}`)).actions;
const waitAction = async (a, type, ok = () => true) =>
  (await waitFor(`/api/v3/actions?account=${encodeURIComponent(a.toRawString())}&limit=50`, (x) => x.actions.some((y) => y.type === type && ok(y)), `a ${type}`)).actions.find((y) => y.type === type && ok(y));

const start = await saleData(a1);
must(start.magic === 0x415543 && start.end === 0 && start.marketplace.equals(MARKETPLACE) && start.nft.equals(i1) && start.owner.equals(alice) && start.lastBid === 0n && start.lastMember === null,
  `the auction reads as written ${JSON.stringify(start, (k, v) => (typeof v === "bigint" ? v.toString() : v))}`);
must((await ownerOf(i1)).equals(a1), "the auction holds its lot");

// Bob bids 1.5 TON, then Carol 3 TON.
const bob = await newWallet();
const carol = await newWallet();
await send(bob, [internal({ to: a1, value: toNano("1.5"), body: beginCell().endCell() })]);
const bobBid = await waitAction(a1, "auction_bid", (x) => x.details.bidder === raw(bob.address));
must(bobBid.success === true && bobBid.details.amount === toNano("1.5").toString() && bobBid.details.auction === raw(a1), `Bob's bid ${JSON.stringify(bobBid)}`);
must(bobBid.details.nft_item === raw(i1) && bobBid.details.nft_item_index === "11" && bobBid.details.nft_collection === null, `the lot ${JSON.stringify(bobBid.details)}`);
const afterBob = await saleData(a1);
must(afterBob.lastBid === toNano("1.5") && afterBob.lastMember.equals(bob.address), "the auction's getter names Bob's bid");
await send(carol, [internal({ to: a1, value: toNano("3"), body: beginCell().endCell() })]);
const outbid = await waitAction(a1, "auction_outbid");
const od = outbid.details;
const afterCarol = await saleData(a1);
must(afterCarol.lastBid === toNano("3") && afterCarol.lastMember.equals(carol.address), "the getter names Carol's bid");
// The refund as Bob's wallet received it (its transaction, parsed by @ton/core).
const refund = (await client.getTransactions(bob.address, { limit: 10 })).find((t) => t.inMessage?.info.src?.equals?.(a1));
must(refund, "Bob's wallet got the refund");
const refundBody = refund.inMessage.body.beginParse();
refundBody.skip(32);
must(od.auction_address === raw(a1) && od.bidder === raw(bob.address) && od.new_bidder === raw(carol.address) && od.nft_item === raw(i1),
  `outbid parties ${JSON.stringify(od)}`);
must(od.amount === refund.inMessage.info.value.coins.toString() && od.comment === refundBody.loadStringTail(), `outbid refund ${JSON.stringify(od)}`);
must(od.comment.includes("outbid"), "the outbid comment");

// Alice stops the first auction: Carol gets the lot.
const aliceSends = async (seqno, to, text) => {
  await client.open(aliceWallet).sendTransfer({
    seqno,
    secretKey: keys.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to, value: toNano("1"), body: beginCell().storeUint(0, 32).storeStringTail(text).endCell() })],
  });
  for (let i = 0; i < 100 && (await client.open(aliceWallet).getSeqno().catch(() => 0)) <= seqno; i++) await sleep(100);
};
await getJson("/dev/fund", {
  method: "POST",
  body: JSON.stringify({ address: alice.toString({ bounceable: false }), amount: toNano("5").toString() }),
});
await aliceSends(0, a1, "stop");
const finished = await waitAction(a1, "nft_finish_auction");
must((await ownerOf(i1)).equals(carol.address) && (await saleData(a1)).end !== 0, "Carol holds the lot and the auction ended");
const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))));
must(finished.success === true && sorted(finished.details) === sorted({
  owner: raw(carol.address), auction_address: raw(a1), nft_item: raw(i1), nft_collection: null, marketplace_address: null, marketplace: null,
}), `finish ${JSON.stringify(finished)}`);
must((await actionsOf(a1)).some((x) => x.type === "nft_purchase" && x.details.new_owner === raw(carol.address) && x.details.price === toNano("3").toString()), "the sale to Carol");

// Alice cancels the second auction, with no bid: the lot comes back.
await aliceSends(1, a2, "cancel");
const cancelled = await waitAction(a2, "nft_cancel_auction");
must((await ownerOf(i2)).equals(alice), "the lot is back with Alice");
must(cancelled.success === true && sorted(cancelled.details) === sorted({
  owner: raw(alice), auction_address: raw(a2), nft_item: raw(i2), nft_collection: null, marketplace_address: raw(MARKETPLACE), marketplace: "getgems",
}), `cancel ${JSON.stringify(cancelled)}`);

// A client of the v1 set sees the bids but, for the outbid (a v3 type),
// the plain refund.
const v1 = (await actionsOf(a1, "&supported_action_types=v1")).map((x) => x.type);
must(v1.filter((t) => t === "auction_bid").length === 2 && !v1.includes("auction_outbid") && !v1.includes("nft_finish_auction"), `v1 clients see ${JSON.stringify(v1)}`);

console.log(JSON.stringify({ ok: true }));
