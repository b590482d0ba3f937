// v2 `dnsResolve` against `tonindex dev`, held to tonweb's own TEP-81
// resolver (TonWeb.dns.resolve, which runs `dnsresolve` through
// runGetMethod and walks next resolvers itself), in two steps.
//
// `prepare FIXTURES` prints the genesis accounts: a DNS item of mainnet's
// item code (from tongo's corpus) owned by a fresh v4 wallet (mnemonic
// printed too), with `wallet`, `site`, `storage`, a text record, a record
// of a tag block.tlb does not define, and a `dns_next_resolver` naming a
// small resolver for the item's subdomains. That resolver is twelve TVM
// instructions written here (no compiler needed): `dnsresolve` answers the
// whole name resolved, with its data (a category dictionary) for category
// 0 and the record under the asked category otherwise.
//
// `run BASE PREPARED_JSON` (what `prepare` printed) checks every record of the item, the next resolver followed with
// `ttl=1` and not followed with `ttl=0`, the same through JSON-RPC; then
// the owner points `wallet` at Bob, and `seqno` before the change still
// names the old wallet. Bad input is a 4xx in v2's shape. Prints one JSON
// summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, Dictionary, SendMode, contractAddress } from "@ton/core";
import TonWeb from "tonweb";
import { devnet, must, sleep } from "./devnet_helpers.mjs";

const COLLECTION = Address.parseRaw("0:" + "11".repeat(32));
const sha256 = (s) => createHash("sha256").update(s).digest();
const [mode, ...args] = process.argv.slice(2);

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const itemCode = Cell.fromBoc(Buffer.from(cases.find((c) => c.name === "GetDomainResult").code_hex, "hex"))[0];
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const owner = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  const wallet = Address.parseRaw("0:" + randomBytes(32).toString("hex"));
  const subWallet = Address.parseRaw("-1:" + randomBytes(32).toString("hex"));
  const adnl = randomBytes(32);
  const bag = randomBytes(32);

  // DROP SWAP SBITS SWAP DUP PUSHROOT PUSHINT 256 DICTUGETREF NULLSWAPIFNOT
  // DROP PUSHROOT CONDSEL: (bits of the name, category ? dict[category] : dict).
  const resolverCode = beginCell().storeBuffer(Buffer.from("3001d7490120ed44810100f40f6fa130ed44e304", "hex")).endCell();
  const sub = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  sub.set(sha256("wallet"), beginCell().storeUint(0x9fd3, 16).storeAddress(subWallet).storeUint(0, 8).endCell());
  const resolverData = beginCell().storeDictDirect(sub).endCell();
  const resolver = contractAddress(0, { code: resolverCode, data: resolverData });

  const records = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  records.set(sha256("wallet"), beginCell().storeUint(0x9fd3, 16).storeAddress(wallet).storeUint(0, 8).endCell());
  records.set(sha256("site"), beginCell().storeUint(0xad01, 16).storeBuffer(adnl).storeUint(0, 8).endCell());
  records.set(sha256("storage"), beginCell().storeUint(0x7473, 16).storeBuffer(bag).endCell());
  records.set(sha256("dns_next_resolver"), beginCell().storeUint(0xba93, 16).storeAddress(resolver).endCell());
  // dns_text#1eda chunks:1, then one chunk: len:8 bytes.
  records.set(sha256("note"), beginCell().storeUint(0x1eda, 16).storeUint(1, 8).storeUint(5, 8).storeBuffer(Buffer.from("hello")).endCell());
  records.set(sha256("junk"), beginCell().storeUint(0xffff, 16).storeUint(7, 8).endCell());
  const itemData = beginCell()
    .storeUint(3, 256)
    .storeAddress(COLLECTION)
    .storeAddress(owner)
    .storeRef(beginCell().storeUint(0, 8).storeDict(records).endCell())
    .storeRef(beginCell().storeStringTail("resolve-me").endCell())
    .storeBit(0)
    .storeUint(Math.floor(Date.now() / 1000), 64)
    .endCell();
  const item = contractAddress(0, { code: itemCode, data: itemData });
  const spec = (address, code, data) =>
    `${address.toRawString()}:${toNano("1")}:${code.toBoc().toString("base64")}:${data.toBoc().toString("base64")}`;
  console.log(
    JSON.stringify({
      accounts: [spec(item, itemCode, itemData), spec(resolver, resolverCode, resolverData)],
      mnemonic,
      item: item.toRawString(),
      resolver: resolver.toRawString(),
      wallet: wallet.toRawString(),
      adnl: adnl.toString("hex"),
      bag: bag.toString("hex"),
      sub_wallet: subWallet.toRawString(),
    }),
  );
  process.exit(0);
}

const [base, preparedJson] = args;
const prepared = JSON.parse(preparedJson);
const { mnemonic, item: itemRaw, resolver: resolverRaw, wallet: walletRaw, adnl: adnlHex, bag: bagHex, sub_wallet: subWalletRaw } = prepared;
const { client, getJson, newWallet } = devnet(base);
const provider = new TonWeb.HttpProvider(`${base}/api/v2/jsonRPC`);
const item = Address.parseRaw(itemRaw);
const resolver = Address.parseRaw(resolverRaw);
const friendly = (a) => a.toString({ bounceable: true, urlSafe: true });
const b64 = (buf) => Buffer.from(buf).toString("base64");

const v2 = async (query) => {
  const r = await fetch(`${base}/api/v2/dnsResolve?${new URLSearchParams(query)}`);
  return { status: r.status, body: await r.json() };
};
const resolved = async (query) => {
  const { status, body } = await v2(query);
  must(status === 200 && body.ok === true && body.result["@type"] === "dns.resolved", `dnsResolve ${JSON.stringify(query)}: ${status} ${JSON.stringify(body)}`);
  return body.result.entries;
};
const byCategory = (entries, category) => entries.find((e) => e.category === b64(sha256(category)));

// The ADNL text form back to hex: base32 after the leading `f`, the tag
// 0x2d, 32 bytes and a CRC-16/XMODEM of the first 33.
const adnlToHex = (text) => {
  must(text.length === 55, `adnl text ${text}`);
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let n = 0n;
  for (const ch of "f" + text) n = (n << 5n) | BigInt(alphabet.indexOf(ch));
  const bytes = Buffer.from(n.toString(16).padStart(70, "0"), "hex");
  let crc = 0;
  for (const byte of bytes.subarray(0, 33)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  must(bytes[0] === 0x2d && bytes.readUInt16BE(33) === crc, `adnl text ${text} checks`);
  return bytes.subarray(1, 33).toString("hex");
};

// Every record of the item, as tonweb reads each category.
const all = await resolved({ address: friendly(item) });
must(all.length === 6 && all.every((e) => e["@type"] === "dns.entry" && e.name === "."), `six records ${JSON.stringify(all)}`);
const tonwebWallet = await TonWeb.dns.resolve(provider, friendly(item), ".", "wallet");
const w = byCategory(all, "wallet").entry;
must(w["@type"] === "dns.entryDataSmcAddress" && w.smc_address["@type"] === "accountAddress", `wallet ${JSON.stringify(w)}`);
must(Address.parse(w.smc_address.account_address).equals(Address.parseRaw(walletRaw)), "the wallet record");
must(tonwebWallet.toString(false) === Address.parse(w.smc_address.account_address).toRawString(), `tonweb's wallet ${tonwebWallet.toString(false)}`);
must(w.smc_address.account_address === friendly(Address.parseRaw(walletRaw)), "addresses as tonlib writes them: bounceable, url-safe");
const tonwebSite = await TonWeb.dns.resolve(provider, friendly(item), ".", "site");
const s = byCategory(all, "site").entry;
must(s["@type"] === "dns.entryDataAdnlAddress" && s.adnl_address["@type"] === "adnlAddress", `site ${JSON.stringify(s)}`);
must(adnlToHex(s.adnl_address.adnl_address) === adnlHex && tonwebSite.toHex() === adnlHex, "the site record");
const tonwebBag = await TonWeb.dns.resolve(provider, friendly(item), ".", "storage");
const st = byCategory(all, "storage").entry;
must(st["@type"] === "dns.entryDataStorageAddress" && st.bag_id === bagHex && tonwebBag.toHex() === bagHex, `storage ${JSON.stringify(st)}`);
const tonwebNext = await TonWeb.dns.resolve(provider, friendly(item), ".", "dns_next_resolver");
const nr = byCategory(all, "dns_next_resolver").entry;
must(nr["@type"] === "dns.entryDataNextResolver" && Address.parse(nr.resolver.account_address).equals(resolver), `next resolver ${JSON.stringify(nr)}`);
must(tonwebNext.toString(false) === resolver.toRawString(), "tonweb's next resolver");
must(byCategory(all, "note").entry.text === "hello", `text ${JSON.stringify(byCategory(all, "note"))}`);
const junk = byCategory(all, "junk").entry;
const junkCell = Cell.fromBase64(junk.bytes);
must(junk["@type"] === "dns.entryDataUnknown" && junkCell.beginParse().loadUint(16) === 0xffff, `unknown record ${JSON.stringify(junk)}`);

// A subdomain: with ttl=0 the answer is the next resolver for "."; with
// ttl=1 the resolver is asked for the rest, as tonweb walks it.
const oneStep = await resolved({ address: friendly(item), name: "sub", ttl: "0" });
must(oneStep.length === 1 && oneStep[0].name === "." && oneStep[0].category === b64(sha256("dns_next_resolver")), `one step ${JSON.stringify(oneStep)}`);
must(Address.parse(oneStep[0].entry.resolver.account_address).equals(resolver), "one step names the resolver");
const walked = await resolved({ address: friendly(item), name: "sub", ttl: "1" });
must(walked.length === 1 && walked[0].name === "sub" && walked[0].category === b64(sha256("wallet")), `walked ${JSON.stringify(walked)}`);
const tonwebSub = await TonWeb.dns.resolve(provider, friendly(item), "sub", "wallet");
must(Address.parse(walked[0].entry.smc_address.account_address).toRawString() === tonwebSub.toString(false), "tonweb walks to the same wallet");
must(tonwebSub.toString(false) === Address.parseRaw(subWalletRaw).toRawString(), "the subdomain's wallet");
// The same through JSON-RPC, as SDKs call it.
const rpc = await (await fetch(`${base}/api/v2/jsonRPC`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ id: 1, jsonrpc: "2.0", method: "dnsResolve", params: { address: friendly(item), name: "sub", ttl: 1 } }),
})).json();
must(rpc.ok === true && JSON.stringify(rpc.result.entries) === JSON.stringify(walked), `JSON-RPC ${JSON.stringify(rpc)}`);

// Bad input: 4xx in v2's shape, never 5xx.
const nobody = Address.parseRaw("0:" + "22".repeat(32));
for (const [query, status] of [
  [{}, 422],
  [{ address: "nope" }, 422],
  [{ address: friendly(item), ttl: "-1" }, 422],
  [{ address: friendly(item), ttl: "x" }, 422],
  [{ address: friendly(item), name: "a".repeat(200) }, 422],
  [{ address: friendly(item), seqno: "0" }, 422],
  [{ address: friendly(nobody) }, 409],
  [{ address: friendly(resolver), name: "x.y", ttl: "3" }, 200],
]) {
  const { status: got, body } = await v2(query);
  must(got === status && (status === 200 || (body.ok === false && body.code === status && typeof body.error === "string")),
    `${JSON.stringify(query)}: ${got} ${JSON.stringify(body)}`);
}

// The owner points `wallet` at Bob; `seqno` from before still names the old wallet.
const before = (await getJson("/api/v2/getMasterchainInfo")).result.last.seqno;
const keys = await mnemonicToPrivateKey(mnemonic);
const ownerWallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
await getJson("/dev/fund", {
  method: "POST",
  body: JSON.stringify({ address: ownerWallet.address.toString({ bounceable: false }), amount: toNano("5").toString() }),
});
const bob = await newWallet();
const body = beginCell().storeUint(0x4eb1f0f9, 32).storeUint(1, 64).storeBuffer(sha256("wallet"))
  .storeRef(beginCell().storeUint(0x9fd3, 16).storeAddress(bob.address).storeUint(0, 8).endCell());
await client.open(ownerWallet).sendTransfer({
  seqno: 0,
  secretKey: keys.secretKey,
  sendMode: SendMode.PAY_GAS_SEPARATELY,
  messages: [internal({ to: item, value: toNano("0.1"), body: body.endCell() })],
});
let now;
for (let i = 0; i < 150; i++) {
  now = await resolved({ address: friendly(item) });
  if (Address.parse(byCategory(now, "wallet").entry.smc_address.account_address).equals(bob.address)) break;
  await sleep(100);
}
must(Address.parse(byCategory(now, "wallet").entry.smc_address.account_address).equals(bob.address), "the wallet record follows the change");
const then = await resolved({ address: friendly(item), seqno: String(before) });
must(Address.parse(byCategory(then, "wallet").entry.smc_address.account_address).equals(Address.parseRaw(walletRaw)), `seqno ${before} names the old wallet`);

console.log(JSON.stringify({ ok: true, records: all.length }));
