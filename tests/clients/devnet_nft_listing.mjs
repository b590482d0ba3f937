// GetGems listings on `tonindex dev`, in two steps: the seller sends her
// NFT to GetGems' sale deployer (its code as getgems-io/nft-contracts ships
// it) with a `do_sale` payload, and the deployer deploys the sale (version
// 4) or the auction (mainnet's code, both from tongo's corpus) and hands it
// the NFT.
//
// `prepare FIXTURES` prints the genesis accounts: the deployer and two NFT
// items (token-contract's item code) that Alice (a fresh v4 wallet;
// mnemonic printed) owns, with the sale's and the auction's code.
//
// `run BASE PREPARED_JSON`: Alice lists the item at 2 TON with a 5%
// marketplace fee and a 10% royalty (factors out of 100000, as the v4 sale
// stores them): `nft_put_on_sale` with the seller, the deployer as listing
// contract, the sale, its price and fees — each held to the sale's own
// get_fix_price_data_v4 and the item's get_nft_data; v3 /nft/items shows
// the item on sale for Alice. She puts the second up for auction (1 TON
// minimum, 10 TON maximum, fees 5/100 and 10/100): `nft_put_on_auction`
// with its bids and fees, held to the auction's own get_sale_data. Prints
// one JSON summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, contractAddress, storeStateInit } from "@ton/core";
import { GETGEMS_DEPLOYER_CODE, ITEM_CODE } from "./nft_codes.mjs";
import { devnet, getgemsAuctionData, GETGEMS_MARKETPLACE as MARKETPLACE, must, raw } from "./devnet_helpers.mjs";

const DEPLOYER = Address.parseRaw("0:" + "de".repeat(32));
const ITEM = Address.parseRaw("0:" + "73".repeat(32));
const ITEM2 = Address.parseRaw("0:" + "74".repeat(32));
const PRICE = toNano("2");
const CREATED_AT = 1_700_000_000;
const [mode, ...args] = process.argv.slice(2);

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const code = (name) => Cell.fromBoc(Buffer.from(cases.find((c) => c.name === name).code_hex, "hex"))[0];
  const [saleCode, auctionCode] = [code("nft_sale v4"), code("GetSaleData for getgems auction")];
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const alice = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  const spec = (a, code, data) => `${a.toRawString()}:${toNano("1")}:${code}:${data.toBoc().toString("base64")}`;
  // token-contract's item: index:uint64 collection(none) owner content.
  const itemData = (n) =>
    beginCell()
      .storeUint(n, 64)
      .storeUint(0, 2)
      .storeAddress(alice)
      .storeRef(beginCell().storeUint(1, 8).storeStringTail(`listed-${n}.json`).endCell())
      .endCell();
  const accounts = [
    spec(DEPLOYER, GETGEMS_DEPLOYER_CODE, beginCell().storeAddress(MARKETPLACE).endCell()),
    spec(ITEM, ITEM_CODE, itemData(3)),
    spec(ITEM2, ITEM_CODE, itemData(4)),
  ];
  const b64 = (c) => c.toBoc().toString("base64");
  console.log(JSON.stringify({ accounts, mnemonic, sale_code: b64(saleCode), auction_code: b64(auctionCode) }));
  process.exit(0);
}

const [base, preparedJson] = args;
const prepared = JSON.parse(preparedJson);
const { client, getJson, waitFor, send, actionOf } = devnet(base);
const keys = await mnemonicToPrivateKey(prepared.mnemonic);
const wallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
const alice = { keys, wallet, contract: client.open(wallet), address: wallet.address, seqno: 0 };
await getJson("/dev/fund", {
  method: "POST",
  body: JSON.stringify({ address: alice.address.toString({ bounceable: false }), amount: toNano("10").toString() }),
});
const ownerOf = async (item) => (await client.runMethod(item, "get_nft_data")).stack.skip(3).readAddress();
must((await ownerOf(ITEM)).equals(alice.address), "Alice owns the item");

// The sale Alice asks the deployer for: v4 storage with her as the seller.
const fee = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
const royalty = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
const fees = beginCell()
  .storeAddress(fee)
  .storeAddress(royalty)
  .storeUint(5000, 17)
  .storeUint(10000, 17)
  .storeAddress(ITEM)
  .storeUint(CREATED_AT, 32)
  .endCell();
const saleInit = {
  code: Cell.fromBase64(prepared.sale_code),
  data: beginCell()
    .storeBit(0)
    .storeAddress(MARKETPLACE)
    .storeAddress(alice.address)
    .storeCoins(PRICE)
    .storeUint(0, 32)
    .storeUint(0, 64)
    .storeRef(fees)
    .storeBit(0)
    .endCell(),
};
const sale = contractAddress(0, saleInit);
// The forward payload, inline: do_sale#0fe0ede ^state_init ^body, the
// body the v4 sale's deploy_blank#664c0905. The item passes the payload on
// with its Either bit, and the deployer reads its 32-bit opcode from that
// bit on: the opcode's top bit (0) is the Either bit, as GetGems sends it.
const listing = (init, deployBody) =>
  beginCell()
    .storeUint(0x5fcc3d14, 32)
    .storeUint(11, 64)
    .storeAddress(DEPLOYER)
    .storeAddress(alice.address)
    .storeBit(0)
    .storeCoins(toNano("0.2"))
    .storeUint(0x0fe0ede, 32)
    .storeRef(beginCell().store(storeStateInit(init)).endCell())
    .storeRef(deployBody)
    .endCell();
const transfer = listing(saleInit, beginCell().storeUint(0x664c0905, 32).storeUint(0, 64).endCell());
await send(alice, [internal({ to: ITEM, value: toNano("0.35"), bounce: true, body: transfer })]);

const listed = await actionOf(alice.address, "nft_put_on_sale");
const l = listed.details;
// The chain's word: the sale is deployed and holds the item.
must((await ownerOf(ITEM)).equals(sale), "the sale holds the item");
const g = (await client.runMethod(sale, "get_fix_price_data_v4")).stack;
must(g.readNumber() === 0 && g.readNumber() === CREATED_AT, "is_complete, created_at");
must(g.readAddress().equals(MARKETPLACE) && g.readAddress().equals(ITEM) && g.readAddress().equals(alice.address), "marketplace, nft, seller");
const price = g.readBigNumber();
must(g.readAddress().equals(fee), "fee address");
const feeFactor = g.readBigNumber();
must(g.readAddress().equals(royalty), "royalty address");
const royaltyFactor = g.readBigNumber();

must(listed.success && l.owner === raw(alice.address) && l.listing_address === raw(DEPLOYER), `listing ${JSON.stringify(l)}`);
must(l.sale_address === raw(sale) && l.nft_item === raw(ITEM) && l.nft_item_index === "3" && l.nft_collection === null, "sale and item");
must(l.full_price === price.toString() && l.marketplace_fee === feeFactor.toString() && l.royalty_amount === royaltyFactor.toString(), "price and fees as the sale says");
must(l.marketplace_fee_address === raw(fee) && l.royalty_address === raw(royalty), "fee and royalty addresses");
must(l.marketplace === "getgems" && l.marketplace_address === null, "GetGems, by the sale's marketplace");
must(listed.transactions.length >= 4, `the transfer, the deployer, the sale's deploy and the second transfer: ${listed.transactions.length}`);

const items = await waitFor(
  `/api/v3/nft/items?address=${encodeURIComponent(ITEM.toRawString())}`,
  (x) => x.nft_items[0]?.on_sale === true,
  "the item on sale",
);
must(items.nft_items[0].sale_contract_address === raw(sale) && items.nft_items[0].real_owner === raw(alice.address), "on sale for Alice");

// An auction of the second item, deployed with the "deploy" comment it
// takes from anyone.
const now = Math.floor(Date.now() / 1000);
const auctionInit = {
  code: Cell.fromBase64(prepared.auction_code),
  data: getgemsAuctionData({
    seller: alice.address,
    nft: ITEM2,
    fee,
    royalty,
    minBid: toNano("1"),
    maxBid: toNano("10"),
    endTime: now + 3600,
    createdAt: now - 10,
  }),
};
const auction = contractAddress(0, auctionInit);
await send(alice, [
  internal({
    to: ITEM2,
    value: toNano("0.35"),
    bounce: true,
    body: listing(auctionInit, beginCell().storeUint(0, 32).storeStringTail("deploy").endCell()),
  }),
]);
const auctioned = await actionOf(alice.address, "nft_put_on_auction");
const u = auctioned.details;
must((await ownerOf(ITEM2)).equals(auction), "the auction holds the item");
// (magic, end, end_time, marketplace, nft, owner, last_bid, last_member,
//  min_step, mp_fee_address, mp_fee_factor, mp_fee_base, royalty_address,
//  royalty_fee_factor, royalty_fee_base, max_bid, min_bid, …)
const a = (await client.runMethod(auction, "get_sale_data")).stack;
a.skip(3);
must(a.readAddress().equals(MARKETPLACE) && a.readAddress().equals(ITEM2) && a.readAddress().equals(alice.address), "auction's marketplace, nft, seller");
a.skip(3);
must(a.readAddress().equals(fee), "auction's fee address");
const [mpFactor, mpBase] = [a.readBigNumber(), a.readBigNumber()];
must(a.readAddress().equals(royalty), "auction's royalty address");
a.skip(1);
const [royaltyBase, maxBid, minBid] = [a.readBigNumber(), a.readBigNumber(), a.readBigNumber()];
must(auctioned.success && u.owner === raw(alice.address) && u.listing_address === raw(DEPLOYER) && u.auction_address === raw(auction), `auction listing ${JSON.stringify(u)}`);
must(u.nft_item === raw(ITEM2) && u.nft_item_index === "4", "auction's item");
must(u.marketplace_fee_factor === mpFactor.toString() && u.marketplace_fee_base === mpBase.toString() && u.royalty_fee_base === royaltyBase.toString(), "auction's fee terms");
must(u.max_bid === maxBid.toString() && u.min_bid === minBid.toString() && maxBid === toNano("10") && minBid === toNano("1"), "auction's bids");
must(u.marketplace_fee_address === raw(fee) && u.royalty_address === raw(royalty), "auction's fee addresses");

console.log(JSON.stringify({ ok: true, sale: raw(sale), listing: l, auction: u }));
