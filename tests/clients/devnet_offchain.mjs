// Off-chain token content end to end with @ton/ton against `tonindex dev`
// started with off-chain fetching on (argv[2] = base URL, argv[3] = the
// test data directory, tests/data/fixtures). This script serves the documents itself on
// 127.0.0.1: TEP-64 JSON for Jettons whose content is a `uri`, a broken
// document, one over the size cap, a missing one, and a mintless-airdrop
// Jetton's custom payload API (`/claims/wallet/<owner>`, TEP-176 draft).
// Deployed with @ton/core: TEP-74 minters with off-chain content, an NFT
// collection whose item documents live under its common prefix, and a
// mintless-airdrop minter (ton-community/mintless-jetton's compiled code)
// minting to three owners, two of whom the API has claims for. The v3
// `metadata` and `/jetton/wallets` must show the served documents exactly
// (on-chain keys kept), refuse the bad ones as `valid: false`, show
// `mintless_info` for unclaimed wallets with a claim and for no other, and
// count a claim as balance for `exclude_zero_balance`.
// Prints one JSON summary; any failed expectation throws.
import http from "node:http";
import { readFileSync } from "node:fs";
import { internal, toNano } from "@ton/ton";
import { beginCell, Cell, contractAddress } from "@ton/core";
import { devnet, mintBody, must, nftCollection, raw } from "./devnet_helpers.mjs";
import { MINTLESS_MINTER_HEX, MINTLESS_WALLET_HEX } from "./mintless_codes.mjs";

const [base, fixtures] = process.argv.slice(2);
const { getJson, waitFor, newWallet, send } = devnet(base);

// The documents, and what was asked for.
const hits = {};
const claims = {};
let host = "";
const docs = {};
const server = http.createServer((req, res) => {
  hits[req.url] = (hits[req.url] ?? 0) + 1;
  const reply = (status, body, type = "application/json") => {
    res.writeHead(status, { "content-type": type });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
  if (req.url in docs) return reply(200, docs[req.url]);
  if (req.url === "/broken.json") return reply(200, "<html>not a document</html>", "text/html");
  if (req.url === "/big.json") return reply(200, { name: "x".repeat(10000) });
  const claim = req.url.match(/^\/claims\/wallet\/(.+)$/);
  if (claim) {
    const c = claims[decodeURIComponent(claim[1])];
    if (!c) return reply(404, { error: "account not found" });
    return reply(200, {
      owner: decodeURIComponent(claim[1]),
      jetton_wallet: c.wallet ?? "",
      custom_payload: "",
      compressed_info: { amount: c.amount, start_from: "1700000000", expired_at: "1900000000" },
    });
  }
  reply(404, { error: "not found" });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
host = `http://127.0.0.1:${server.address().port}`;
docs["/ofd.json"] = {
  name: "Offchain Dollar",
  symbol: "OFD",
  decimals: "6",
  description: "served by the test",
  image: `${host}/ofd.png`,
  social: ["https://example.org/ofd"],
};
docs["/collection.json"] = { name: "Served Collection", description: "collection document", image: `${host}/c.png` };
docs["/items/1.json"] = {
  name: "Served Item 1",
  image: `${host}/i1.png`,
  attributes: [{ trait_type: "tier", value: "gold" }],
};
docs["/mintless.json"] = {
  name: "Devnet Mintless",
  symbol: "DML",
  decimals: "9",
  custom_payload_api_uri: `${host}/claims`,
};

const boc = (name) => Cell.fromBoc(readFileSync(`${fixtures}/contracts/ton-benchmark/${name}`))[0];
const minterCode = boc("jetton-minter.code.boc");
const walletCode = boc("jetton-wallet.code.boc");

const alice = await newWallet();
const bob = await newWallet();
const carol = await newWallet();
const dave = await newWallet();

// TEP-74 minters (token-contract's layout) whose content is offchain#01 + uri.
const offchainMinter = (path) => {
  const content = beginCell().storeUint(1, 8).storeStringTail(`${host}${path}`).endCell();
  const data = beginCell().storeCoins(0).storeAddress(alice.address).storeRef(content).storeRef(walletCode).endCell();
  const init = { code: minterCode, data };
  return { init, address: contractAddress(0, init) };
};
const minters = Object.fromEntries(
  ["/ofd.json", "/broken.json", "/big.json", "/missing.json"].map((p) => [p, offchainMinter(p)]),
);
for (const m of Object.values(minters)) {
  await send(alice, [
    internal({ to: m.address, value: toNano("0.3"), bounce: false, init: m.init, body: mintBody(m.address, alice.address, 1000n, alice.address) }),
  ]);
}

// token-contract's NFT collection with off-chain content and a common
// item prefix on the test server; item 1's document is served, item 0's
// is not (404).
const nfts = nftCollection(alice.address, `${host}/collection.json`, `${host}/items/`);
const collection = nfts.address;
const item = nfts.item;
await send(alice, [internal({ to: collection, value: toNano("0.3"), bounce: false, init: nfts.init, body: nfts.deployItem(0, alice.address) })]);
await send(alice, [internal({ to: collection, value: toNano("0.3"), body: nfts.deployItem(1, alice.address) })]);

// The mintless-airdrop minter: total_supply admin next_admin merkle_root
// ^wallet_code ^metadata_uri; its content is semi-chain (on-chain `uri`).
const mlWalletCode = Cell.fromBoc(Buffer.from(MINTLESS_WALLET_HEX, "hex"))[0];
const mlInit = {
  code: Cell.fromBoc(Buffer.from(MINTLESS_MINTER_HEX, "hex"))[0],
  data: beginCell()
    .storeCoins(0)
    .storeAddress(alice.address)
    .storeAddress(null)
    .storeUint(0n, 256)
    .storeRef(mlWalletCode)
    .storeRef(beginCell().storeStringTail(`${host}/mintless.json`).endCell())
    .endCell(),
};
const mlMinter = contractAddress(0, mlInit);
// top_up#d372158c query_id deploys it; it keeps 1 TON for itself.
await send(alice, [
  internal({ to: mlMinter, value: toNano("2"), bounce: false, init: mlInit, body: beginCell().storeUint(0xd372158c, 32).storeUint(0, 64).endCell() }),
]);
// mint#642b7d07 query_id to ton_amount ^internal_transfer.
const mlMint = (to, amount) =>
  beginCell()
    .storeUint(0x642b7d07, 32)
    .storeUint(0, 64)
    .storeAddress(to)
    .storeCoins(toNano("0.1"))
    .storeRef(
      beginCell()
        .storeUint(0x178d4519, 32)
        .storeUint(0, 64)
        .storeCoins(amount)
        .storeAddress(null)
        .storeAddress(alice.address)
        .storeCoins(0)
        .storeBit(0)
        .endCell(),
    )
    .endCell();
for (const [owner, amount] of [[bob, 1000n], [carol, 0n], [dave, 0n]]) {
  await send(alice, [internal({ to: mlMinter, value: toNano("0.2"), body: mlMint(owner.address, amount) })]);
}
// The API knows claims for Bob and Carol, by raw owner address.
claims[bob.address.toRawString()] = { amount: "5000" };
claims[carol.address.toRawString()] = { amount: "7000" };

const q = (a) => encodeURIComponent(a.toRawString());
// 1. Off-chain content, merged with the on-chain `uri`.
const ofd = minters["/ofd.json"].address;
const meta = await waitFor(
  `/api/v3/metadata?address=${q(ofd)}`,
  (m) => m[raw(ofd)]?.is_indexed === true,
  "the OFD document fetched",
);
const expected = {
  valid: true,
  type: "jetton_masters",
  name: "Offchain Dollar",
  symbol: "OFD",
  description: "served by the test",
  image: `${host}/ofd.png`,
  extra: { decimals: "6", social: ["https://example.org/ofd"], uri: `${host}/ofd.json` },
};
const got = meta[raw(ofd)].token_info[0];
const sorted = (o) => JSON.stringify(o, Object.keys(o).sort());
must(sorted(got) === sorted(expected) && sorted(got.extra) === sorted(expected.extra), `OFD metadata ${JSON.stringify(got)}`);
// The master's own content stays what the chain holds.
const master = (await getJson(`/api/v3/jetton/masters?address=${q(ofd)}`)).jetton_masters[0];
must(JSON.stringify(master.jetton_content) === JSON.stringify({ uri: `${host}/ofd.json` }), `jetton_content ${JSON.stringify(master.jetton_content)}`);
// Wallet pages carry the master's fetched metadata too.
const ofdWallets = await getJson(`/api/v3/jetton/wallets?jetton_address=${q(ofd)}`);
must(ofdWallets.metadata[raw(ofd)]?.token_info?.[0]?.symbol === "OFD", `wallet page metadata ${JSON.stringify(ofdWallets.metadata)}`);
must(ofdWallets.jetton_wallets.every((w) => !("mintless_info" in w)), "no mintless_info on a plain Jetton");
// Fetched once, however often asked.
must(hits["/ofd.json"] === 1, `fetched ${hits["/ofd.json"]} times`);

// 2. Documents that are not usable: indexed, not valid.
for (const p of ["/broken.json", "/big.json", "/missing.json"]) {
  const a = minters[p].address;
  const m = await waitFor(`/api/v3/metadata?address=${q(a)}`, (m) => m[raw(a)]?.is_indexed === true, `${p} refused`);
  must(sorted(m[raw(a)].token_info[0]) === sorted({ valid: false, type: "jetton_masters" }), `${p}: ${JSON.stringify(m[raw(a)])}`);
}

// 3. NFTs: the collection's document; item 1's at the collection's prefix
// plus its own suffix, with its index; item 0's missing.
const [c, i0, i1] = [collection, item(0), item(1)];
const nftPath = `/api/v3/metadata?address=${q(c)}&address=${q(i0)}&address=${q(i1)}`;
const nftMeta = await waitFor(
  nftPath,
  (m) => [c, i0, i1].every((a) => m[raw(a)]?.is_indexed === true),
  "the NFT documents fetched",
);
const cInfo = nftMeta[raw(c)].token_info[0];
must(
  cInfo.type === "nft_collections" && cInfo.valid === true && cInfo.name === "Served Collection" &&
    cInfo.description === "collection document" && cInfo.image === `${host}/c.png` &&
    cInfo.extra?.uri === `${host}/collection.json`,
  `collection metadata ${JSON.stringify(cInfo)}`,
);
const i1Info = nftMeta[raw(i1)].token_info[0];
must(
  i1Info.type === "nft_items" && i1Info.valid === true && i1Info.nft_index === "1" && i1Info.name === "Served Item 1" &&
    JSON.stringify(i1Info.extra?.attributes) === JSON.stringify([{ trait_type: "tier", value: "gold" }]),
  `item 1 metadata ${JSON.stringify(i1Info)}`,
);
must(hits["/items/1.json"] === 1, "item 1's document at the combined URI");
const i0Info = nftMeta[raw(i0)].token_info[0];
must(sorted(i0Info) === sorted({ valid: false, type: "nft_items", nft_index: "0" }), `item 0 metadata ${JSON.stringify(i0Info)}`);
// The items page carries the same metadata.
const itemsPage = await getJson(`/api/v3/nft/items?collection_address=${q(c)}`);
must(itemsPage.metadata[raw(i1)]?.token_info?.[0]?.name === "Served Item 1", `items page metadata ${JSON.stringify(itemsPage.metadata)}`);

// 4. Mintless: Bob's wallet (1000, claim 5000) and Carol's (0, claim 7000)
// show their claims; Dave's (0, no claim) none.
const walletsPath = `/api/v3/jetton/wallets?jetton_address=${q(mlMinter)}`;
const ml = await waitFor(
  walletsPath,
  (x) => x.jetton_wallets.length === 3 && x.jetton_wallets.filter((w) => w.mintless_info).length === 2,
  "mintless claims shown",
);
const byOwner = Object.fromEntries(ml.jetton_wallets.map((w) => [w.owner, w]));
const info = (amount) => ({
  amount,
  start_from: 1700000000,
  expire_at: 1900000000,
  custom_payload_api_uri: [`${host}/claims`],
});
must(JSON.stringify(byOwner[raw(bob.address)].mintless_info) === JSON.stringify(info("5000")), `Bob ${JSON.stringify(byOwner[raw(bob.address)])}`);
must(byOwner[raw(bob.address)].balance === "1000", "Bob's on-chain balance");
must(JSON.stringify(byOwner[raw(carol.address)].mintless_info) === JSON.stringify(info("7000")), `Carol ${JSON.stringify(byOwner[raw(carol.address)])}`);
must(!("mintless_info" in byOwner[raw(dave.address)]), `Dave ${JSON.stringify(byOwner[raw(dave.address)])}`);
// The claim API was asked with the owner's raw address.
must(hits[`/claims/wallet/${bob.address.toRawString()}`] >= 1, `claim paths ${JSON.stringify(Object.keys(hits))}`);
// A claim counts as balance: Carol stays, Dave goes.
const nonzero = await getJson(`${walletsPath}&exclude_zero_balance=true`);
const owners = nonzero.jetton_wallets.map((w) => w.owner).sort();
must(JSON.stringify(owners) === JSON.stringify([raw(bob.address), raw(carol.address)].sort()), `exclude_zero_balance ${JSON.stringify(owners)}`);
// The semi-chain content's document, in the metadata.
const mlMeta = (await getJson(`/api/v3/metadata?address=${q(mlMinter)}`))[raw(mlMinter)];
must(mlMeta.is_indexed === true && mlMeta.token_info[0].symbol === "DML", `mintless metadata ${JSON.stringify(mlMeta)}`);

// The fetcher's outcomes in /metrics.
const metrics = await (await fetch(`${base}/metrics`)).text();
for (const outcome of ["json", "invalid"]) {
  must(metrics.includes(`tonindex_offchain_fetches_total{outcome="${outcome}"}`), `metrics: no ${outcome} fetches`);
}
must(/tonindex_offchain_cache_bytes [1-9]/.test(metrics), "metrics: cache bytes");

server.close();
console.log(JSON.stringify({ ok: true, fetched: Object.keys(hits).length }));
process.exit(0);
