// TON DNS end to end with @ton/ton against `tonindex dev`, in two steps.
//
// `prepare FIXTURES` prints the genesis accounts for the devnet: mainnet's
// `.ton` collection address holding token-contract's NFT collection (the
// devnet cannot run the real root's auctions; this collection derives the
// same kind of item addresses from the item code it stores) with the real
// mainnet DNS item code from tongo's corpus as its item code, and item 7
// of it at the address that collection derives, initialised as a DNS item
// of `devnet-name.ton` owned by a fresh v4 wallet (its mnemonic printed
// too), with a `wallet` record naming the owner and a `site` record.
//
// `run BASE MNEMONIC_JSON` checks /dns/records (by domain and by wallet,
// also through @ton/walletkit's resolution both ways), the address book's
// `domain`, and the item's content; then the owner
// points the `wallet` record at another wallet (change_dns_record) and
// every answer must follow, the change showing as a change_dns action;
// deleting the site record and renewing (the zero key) show as delete_dns
// and renew_dns. Item 8, `expired-name.ton`, went unrenewed for two years:
// Bob's release bid shows as dns_release, and the item's own
// get_auction_info names his bid; Carol's higher bid is auction_bid and
// the notice refunding Bob auction_outbid. Item 9, `won-name.ton`, has an
// ended auction that the owner won: his first call after it is a
// dns_purchase. Prints one JSON summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, Dictionary, SendMode, contractAddress } from "@ton/core";
import { devnet, must, raw } from "./devnet_helpers.mjs";
import { COLLECTION_CODE } from "./nft_codes.mjs";

const ROOT = Address.parseRaw("0:b774d95eb20543f186c06b371ab88ad704f7e256130caf96189368a7d0cb6ccf");
const INDEX = 7n;
const sha256 = (s) => createHash("sha256").update(s).digest();
const q = (a) => encodeURIComponent(a.toRawString());

const [mode, ...args] = process.argv.slice(2);

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const dnsItemCode = Cell.fromBoc(Buffer.from(cases.find((c) => c.name === "GetDomainResult").code_hex, "hex"))[0];
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const owner = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  const adnl = randomBytes(32);
  const collectionData = beginCell()
    .storeAddress(owner)
    .storeUint(INDEX + 2n, 64)
    .storeRef(beginCell().storeRef(beginCell().storeUint(1, 8).storeStringTail("https://example.org/dns.json").endCell()).storeRef(beginCell().endCell()).endCell())
    .storeRef(dnsItemCode)
    .storeRef(beginCell().storeUint(0, 16).storeUint(1, 16).storeAddress(owner).endCell())
    .endCell();
  const item = contractAddress(0, { code: dnsItemCode, data: beginCell().storeUint(INDEX, 64).storeAddress(ROOT).endCell() });
  // Records: sha256(category) → ^record; content = 0x00 (on-chain) + the map.
  const records = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  records.set(sha256("wallet"), beginCell().storeUint(0x9fd3, 16).storeAddress(owner).storeUint(0, 8).endCell());
  records.set(sha256("site"), beginCell().storeUint(0xad01, 16).storeBuffer(adnl).storeUint(0, 8).endCell());
  // index:uint256 collection owner content:^Cell domain:^Cell auction:(Maybe ^Cell) last_fill_up_time:uint64
  const itemData = beginCell()
    .storeUint(INDEX, 256)
    .storeAddress(ROOT)
    .storeAddress(owner)
    .storeRef(beginCell().storeUint(0, 8).storeDict(records).endCell())
    .storeRef(beginCell().storeStringTail("devnet-name").endCell())
    .storeBit(0)
    .storeUint(Math.floor(Date.now() / 1000), 64)
    .endCell();
  // Item 8, `expired-name.ton`: last filled up two years ago, so anyone
  // may release it (a bid that starts a new auction).
  const expired = contractAddress(0, { code: dnsItemCode, data: beginCell().storeUint(INDEX + 1n, 64).storeAddress(ROOT).endCell() });
  const expiredData = beginCell()
    .storeUint(INDEX + 1n, 256)
    .storeAddress(ROOT)
    .storeAddress(owner)
    .storeRef(beginCell().storeUint(0, 8).storeDict(null).endCell())
    .storeRef(beginCell().storeStringTail("expired-name").endCell())
    .storeBit(0)
    .storeUint(Math.floor(Date.now() / 1000) - 2 * 366 * 86400, 64)
    .endCell();
  // Item 9, `won-name.ton`: its auction ended ten minutes ago with the
  // owner's 2 TON as the highest bid, held in the item's balance.
  const won = contractAddress(0, { code: dnsItemCode, data: beginCell().storeUint(INDEX + 2n, 64).storeAddress(ROOT).endCell() });
  const ended = Math.floor(Date.now() / 1000) - 600;
  const wonData = beginCell()
    .storeUint(INDEX + 2n, 256)
    .storeAddress(ROOT)
    .storeAddress(null)
    .storeRef(beginCell().storeUint(0, 8).storeDict(null).endCell())
    .storeRef(beginCell().storeStringTail("won-name").endCell())
    .storeMaybeRef(beginCell().storeAddress(owner).storeCoins(toNano("2")).storeUint(ended, 64).endCell())
    .storeUint(ended, 64)
    .endCell();
  const spec = (address, code, data, balance = toNano("1")) =>
    `${address.toRawString()}:${balance}:${code.toBoc().toString("base64")}:${data.toBoc().toString("base64")}`;
  console.log(
    JSON.stringify({
      accounts: [
        spec(ROOT, Cell.fromBase64(COLLECTION_CODE), collectionData),
        spec(item, dnsItemCode, itemData),
        spec(expired, dnsItemCode, expiredData),
        spec(won, dnsItemCode, wonData, toNano("3")),
      ],
      mnemonic,
      item: item.toRawString(),
      expired: expired.toRawString(),
      won: won.toRawString(),
      adnl: adnl.toString("base64"),
    }),
  );
  process.exit(0);
}

// run BASE MNEMONIC_JSON ITEM ADNL_B64 EXPIRED_ITEM WON_ITEM
const [base, mnemonicJson, itemRaw, adnl, expiredRaw, wonRaw] = args;
const { client, getJson, waitFor, newWallet, send } = devnet(base);
const keys = await mnemonicToPrivateKey(JSON.parse(mnemonicJson));
const ownerWallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
const owner = ownerWallet.address;
const item = Address.parseRaw(itemRaw);

const byDomain = await getJson("/api/v3/dns/records?domain=devnet-name.ton");
must(byDomain.records.length === 1, `by domain ${JSON.stringify(byDomain)}`);
const r = byDomain.records[0];
must(r.nft_item_address === raw(item) && r.nft_item_owner === raw(owner) && r.domain === "devnet-name.ton", `record ${JSON.stringify(r)}`);
must(r.dns_wallet === raw(owner) && r.dns_site_adnl === adnl, "wallet and site records");
must(r.dns_next_resolver === null && r.dns_storage_bag_id === null, "no resolver, no storage");
const byWallet = await getJson(`/api/v3/dns/records?wallet=${q(owner)}`);
must(byWallet.records.length === 1 && byWallet.records[0].domain === "devnet-name.ton", "by wallet");
// @ton/walletkit's resolution both ways, as a wallet app asks it (its API
// client, unchanged: vendor/walletkit.mjs).
const { ApiClientToncenter } = await import("./vendor/walletkit.mjs");
const kit = new ApiClientToncenter({ endpoint: base, network: { chainId: "-239" } });
must((await kit.resolveDnsWallet("devnet-name.ton")) === owner.toString(), "walletkit resolves the domain to the owner");
must((await kit.backResolveDnsWallet(owner)) === "devnet-name.ton", "walletkit resolves the owner to the domain");
must((await kit.resolveDnsWallet("other.ton")) === undefined, "walletkit: another domain resolves to nothing");
const book = await getJson(`/api/v3/addressBook?address=${q(owner)}`);
must(book[owner.toRawString()].domain === "devnet-name.ton", `the owner's domain ${JSON.stringify(book)}`);
const items = await getJson(`/api/v3/nft/items?address=${q(item)}`);
must(items.nft_items[0]?.content?.domain === "devnet-name.ton", `the item's content ${JSON.stringify(items.nft_items)}`);
// A page's address book reads its accounts' domains together.
const pageBook = items.address_book;
must(pageBook[raw(owner)]?.domain === "devnet-name.ton", `the page's book ${JSON.stringify(pageBook)}`);
must(Object.keys(pageBook).length > 1 && Object.entries(pageBook).every(([a, row]) => a === raw(owner) || row.domain === null), `other accounts own no domain ${JSON.stringify(pageBook)}`);
const other = await getJson("/api/v3/dns/records?domain=other.ton");
must(other.records.length === 0, "another domain has no records");
for (const [path, status] of [
  ["/api/v3/dns/records", 422],
  [`/api/v3/dns/records?wallet=${q(owner)}&domain=devnet-name.ton`, 422],
  ["/api/v3/dns/records?wallet=nope", 422],
]) {
  const res = await fetch(`${base}${path}`);
  must(res.status === status, `${path}: ${res.status}`);
}

// The owner points `wallet` at Bob.
const bob = await newWallet();
await getJson("/dev/fund", {
  method: "POST",
  body: JSON.stringify({ address: owner.toString({ bounceable: false }), amount: toNano("5").toString() }),
});
const contract = client.open(ownerWallet);
// change_dns_record#4eb1f0f9 query_id key:uint256 value:(Maybe ^DNSRecord), from the owner's wallet.
const changeRecord = async (seqno, key, value) => {
  const body = beginCell().storeUint(0x4eb1f0f9, 32).storeUint(seqno, 64).storeBuffer(key);
  if (value) body.storeRef(value);
  await contract.sendTransfer({
    seqno,
    secretKey: keys.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to: item, value: toNano("0.1"), body: body.endCell() })],
  });
};
await changeRecord(0, sha256("wallet"), beginCell().storeUint(0x9fd3, 16).storeAddress(bob.address).storeUint(0, 8).endCell());
const moved = await waitFor(`/api/v3/dns/records?wallet=${q(bob.address)}`, (x) => x.records.length === 1, "the record's move");
must(moved.records[0].nft_item_owner === raw(owner) && moved.records[0].dns_site_adnl === adnl, "owner and site kept");
must((await kit.resolveDnsWallet("devnet-name.ton")) === bob.address.toString(), "walletkit follows the move");
must((await kit.backResolveDnsWallet(owner)) === undefined, "walletkit: the owner no longer has it");
const gone = await getJson(`/api/v3/dns/records?wallet=${q(owner)}`);
must(gone.records.length === 0, "no longer the owner's wallet");
const book2 = await getJson(`/api/v3/addressBook?address=${q(owner)}&address=${q(bob.address)}`);
must(book2[owner.toRawString()].domain === null, "the owner's wallet record points elsewhere: no domain");
must(book2[bob.address.toRawString()].domain === null, "Bob does not own it: no domain");

// The change is a change_dns action (spec v3 §4.5) with the record set.
const actionOf = async (type) =>
  (await waitFor(`/api/v3/actions?account=${q(item)}&limit=100`, (x) => x.actions.some((a) => a.type === type), `a ${type} action`))
    .actions.find((a) => a.type === type);
const changed = await actionOf("change_dns");
const cd = changed.details;
must(changed.success === true, `change_dns succeeded ${JSON.stringify(changed)}`);
must(cd.key === sha256("wallet").toString("hex"), `change_dns key ${cd.key}`);
must(cd.value.sum_type === "DNSSmcAddress" && cd.value.dns_smc_address === raw(bob.address) && cd.value.flags === 0,
  `change_dns value ${JSON.stringify(cd.value)}`);
must(cd.value.dns_adnl_address === null && cd.value.dns_text === null && cd.value.dns_storage_address === null,
  "the other value fields are null");
must(cd.source === raw(owner) && cd.asset === raw(item) && cd.nft_collection === raw(ROOT),
  `change_dns parties ${JSON.stringify(cd)}`);

// Deleting the site record (no value) is delete_dns; the zero key with no
// value only renews: renew_dns.
await changeRecord(1, sha256("site"));
await waitFor("/api/v3/dns/records?domain=devnet-name.ton", (x) => x.records[0]?.dns_site_adnl === null, "the site record's removal");
const deleted = await actionOf("delete_dns");
must(deleted.details.hash === sha256("site").toString("hex") && deleted.details.source === raw(owner)
  && deleted.details.asset === raw(item) && deleted.details.nft_collection === raw(ROOT),
  `delete_dns ${JSON.stringify(deleted.details)}`);
await changeRecord(2, Buffer.alloc(32));
const renewed = await actionOf("renew_dns");
must(renewed.details.source === raw(owner) && renewed.details.asset === raw(item) && !("hash" in renewed.details),
  `renew_dns ${JSON.stringify(renewed.details)}`);

// Bob releases the expired domain with a 5 TON bid: dns_release, and the
// item's own auction now names Bob's bid.
const expired = Address.parseRaw(expiredRaw);
await send(bob, [internal({ to: expired, value: toNano("5"), body: beginCell().storeUint(0x4ed14b65, 32).storeUint(12, 64).endCell() })]);
const released = (
  await waitFor(`/api/v3/actions?account=${q(expired)}&limit=100`, (x) => x.actions.some((a) => a.type === "dns_release"), "a dns_release action")
).actions.find((a) => a.type === "dns_release");
const rd = released.details;
must(released.success === true, `dns_release succeeded ${JSON.stringify(released)}`);
must(rd.query_id === "12" && rd.source === raw(bob.address) && rd.nft_item === raw(expired) && rd.nft_collection === raw(ROOT),
  `dns_release parties ${JSON.stringify(rd)}`);
must(rd.nft_item_index === (INDEX + 1n).toString() && rd.value === toNano("5").toString(), `dns_release value ${JSON.stringify(rd)}`);
const auction = (await client.runMethod(expired, "get_auction_info")).stack;
must(auction.readAddress().equals(bob.address), "the item's auction names Bob");
must(auction.readBigNumber() === toNano("5"), "with Bob's bid");

// Carol outbids Bob with a plain transfer while the auction runs: an
// auction_bid (toncenter counts a DNS item's bid only when it outbids
// someone), and the item's outbid notice with Bob's bid back is
// auction_outbid.
const carol = await newWallet();
await send(carol, [internal({ to: expired, value: toNano("6"), body: beginCell().endCell() })]);
const expiredActions = await waitFor(`/api/v3/actions?account=${q(expired)}&limit=100`,
  (x) => x.actions.some((a) => a.type === "auction_outbid"), "an auction_outbid");
const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
const carolBid = expiredActions.actions.find((a) => a.type === "auction_bid");
must(carolBid?.success === true && sorted(carolBid.details) === sorted({
  amount: toNano("6").toString(), bidder: raw(carol.address), auction: raw(expired), nft_item: raw(expired),
  nft_collection: raw(ROOT), nft_item_index: (INDEX + 1n).toString(),
}), `Carol's bid ${JSON.stringify(carolBid)}`);
const notice = (await client.getTransactions(bob.address, { limit: 10 })).find((t) => t.inMessage?.info.src?.equals?.(expired));
must(notice && notice.inMessage.body.beginParse().loadUint(32) === 0x557cea20, "Bob got the item's outbid notice");
const outbid = expiredActions.actions.find((a) => a.type === "auction_outbid");
must(sorted(outbid.details) === sorted({
  auction_address: raw(expired), bidder: raw(bob.address), new_bidder: raw(carol.address), nft_item: raw(expired),
  nft_collection: raw(ROOT), amount: notice.inMessage.info.value.coins.toString(),
}), `the outbid ${JSON.stringify(outbid.details)}`);
const auction2 = (await client.runMethod(expired, "get_auction_info")).stack;
must(auction2.readAddress().equals(carol.address) && auction2.readBigNumber() === toNano("6"), "the item's auction names Carol's bid");

// The owner won item 9's ended auction: the first call after the end (here
// get_static_data) makes the item take him as its owner and send the
// winning bid on to the collection (fill_up), a dns_purchase. The devnet's
// stand-in collection has no fill_up and refuses it, and an action is as
// successful as its transactions: success is false, as toncenter's rule
// has it.
const won = Address.parseRaw(wonRaw);
await contract.sendTransfer({
  seqno: 3,
  secretKey: keys.secretKey,
  sendMode: SendMode.PAY_GAS_SEPARATELY,
  messages: [internal({ to: won, value: toNano("0.1"), body: beginCell().storeUint(0x2fcb26a2, 32).storeUint(21, 64).endCell() })],
});
const wonActions = await waitFor(`/api/v3/actions?account=${q(won)}&limit=100`,
  (x) => x.actions.some((a) => a.type === "dns_purchase"), "a dns_purchase action");
const purchase = wonActions.actions.find((a) => a.type === "dns_purchase");
// The winning bid as the collection received it: 2 TON less the forward fee.
const fillUp = (await client.getTransactions(ROOT, { limit: 5 })).find((t) => t.inMessage?.info.src?.equals?.(won));
must(fillUp && fillUp.inMessage.body.beginParse().loadUint(32) === 0x370fec51, "the collection got the winning bid as fill_up");
const bid = fillUp.inMessage.info.value.coins;
must(bid <= toNano("2") && bid > toNano("1.99"), `the bid less the forward fee ${bid}`);
must(sorted(purchase.details) === sorted({
  nft_collection: raw(ROOT), nft_item: raw(won), nft_item_index: (INDEX + 2n).toString(), new_owner: raw(owner),
  price: bid.toString(), query_id: "21", payout_amount: bid.toString(),
}), `the purchase ${JSON.stringify(purchase.details)}`);
must(purchase.success === (fillUp.description.computePhase.success === true), `success follows the collection's transaction ${JSON.stringify(purchase)}`);
const wonNft = (await client.runMethod(won, "get_nft_data")).stack;
wonNft.skip(3);
must(wonNft.readAddress().equals(owner), "the item names its new owner");

console.log(JSON.stringify({ ok: true }));
