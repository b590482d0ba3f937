// Wallet v4 subscription plugins end to end with @ton/ton against
// `tonindex dev`, in two steps.
//
// `prepare FIXTURES` prints the genesis accounts: a v4 wallet of a fresh
// mnemonic (printed too) with a subscription plugin installed, and the
// plugin — mainnet's simple subscription plugin code from tongo's corpus —
// charging 1 TON a minute for a beneficiary, its last payment long ago.
// The plugin's data follows the layout that decodes tongo's mainnet plugin
// to tongo's own reading of it.
//
// `run BASE MNEMONIC_JSON PLUGIN`: anyone may ask a due
// plugin to collect (an external message); the plugin's request, the
// wallet's payment and the forward to the beneficiary must show as one
// `subscribe` of the requested amount, the beneficiary paid. Then the
// owner removes the plugin (wallet op 3, signed by hand): the wallet's
// destruct and the plugin's answer show as `unsubscribe`, and the wallet's
// own getter lists no plugin. Prints one JSON summary; any failed
// expectation throws.
import { readFileSync } from "node:fs";
import { mnemonicNew, mnemonicToPrivateKey, sign } from "@ton/crypto";
import { WalletContractV4, toNano } from "@ton/ton";
import { Address, beginCell, Cell, Dictionary, contractAddress, external } from "@ton/core";
import { devnet, must, raw } from "./devnet_helpers.mjs";

const BENEFICIARY = Address.parseRaw("0:" + "be".repeat(32));
const WALLET_ID = 698983191;
const q = (a) => encodeURIComponent(a.toRawString());
const [mode, ...args] = process.argv.slice(2);
const walletOf = async (mnemonic) => {
  const keys = await mnemonicToPrivateKey(mnemonic);
  return { keys, wallet: WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }) };
};

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const code = Cell.fromBoc(Buffer.from(cases.find((c) => c.name === "GetSubscriptionData").code_hex, "hex"))[0];
  const mnemonic = await mnemonicNew();
  const { keys, wallet } = await walletOf(mnemonic);
  const now = Math.floor(Date.now() / 1000);
  // wallet beneficiary amount:Coins period:uint32 start_time:uint32
  // timeout:uint32 last_payment_time:uint32 last_request_time:uint32
  // failed_attempts:uint8 subscription_id:uint32
  const data = beginCell()
    .storeAddress(wallet.address)
    .storeAddress(BENEFICIARY)
    .storeCoins(toNano("1"))
    .storeUint(60, 32)
    .storeUint(now - 3600, 32)
    .storeUint(30, 32)
    .storeUint(now - 3600, 32)
    .storeUint(0, 32)
    .storeUint(0, 8)
    .storeUint(7, 32)
    .endCell();
  const plugin = contractAddress(0, { code, data });
  // v4: seqno:uint32 wallet_id:uint32 public_key:bits256
  // plugins:(HashmapE 264 ()) keyed by workchain:int8 ++ address:uint256.
  const empty = { serialize: () => {}, parse: () => null };
  const plugins = Dictionary.empty(Dictionary.Keys.BigUint(264), empty);
  plugins.set(BigInt("0x" + plugin.hash.toString("hex")), null);
  const walletData = beginCell()
    .storeUint(0, 32)
    .storeUint(WALLET_ID, 32)
    .storeBuffer(keys.publicKey)
    .storeDict(plugins)
    .endCell();
  const b64 = (c) => c.toBoc().toString("base64");
  console.log(
    JSON.stringify({
      accounts: [
        `${wallet.address.toRawString()}:${toNano("100")}:${b64(wallet.init.code)}:${b64(walletData)}`,
        `${plugin.toRawString()}:${toNano("1")}:${b64(code)}:${b64(data)}`,
      ],
      mnemonic,
      plugin: plugin.toRawString(),
      beneficiary: BENEFICIARY.toRawString(),
    }),
  );
} else {
  const [base, mnemonicJson, pluginRaw] = args;
  const { client, waitFor, actionOf } = devnet(base);
  const { keys, wallet } = await walletOf(JSON.parse(mnemonicJson));
  const plugin = Address.parseRaw(pluginRaw);
  // get_plugin_list: a list of (workchain, address) pairs; @ton/ton reads
  // v2's list of tuples as arrays of decimal strings, an empty one as null.
  const pluginList = async () => {
    const r = await client.runMethod(wallet.address, "get_plugin_list");
    const list = r.stack.readTupleOpt();
    const out = [];
    while (list && list.remaining > 0) {
      const pair = list.pop();
      out.push(BigInt(Array.isArray(pair) ? pair[1] : pair.items[1].value));
    }
    return out;
  };
  const pluginId = BigInt("0x" + plugin.hash.toString("hex"));
  const installed = await pluginList();
  must(installed.length === 1 && installed[0] === pluginId, `the wallet lists its plugin ${installed}`);

  // 1. Ask the due plugin to collect.
  const beneficiaryBefore = await client.getBalance(BENEFICIARY);
  await client.sendMessage(external({ to: plugin, body: beginCell().endCell() }));
  const paid = await actionOf(wallet.address, "subscribe");
  const pd = paid.details;
  must(paid.success === true, `subscribe succeeded ${JSON.stringify(paid)}`);
  must(pd.subscriber === raw(wallet.address) && pd.subscription === raw(plugin) && pd.beneficiary === raw(BENEFICIARY), `subscribe parties ${JSON.stringify(pd)}`);
  must(pd.amount === toNano("1").toString(), `the requested amount ${JSON.stringify(pd)}`);
  must((await client.getBalance(BENEFICIARY)) > beneficiaryBefore, "the beneficiary was paid");

  // 2. The owner removes the plugin: op 3 workchain:int8 address:uint256
  //    amount:Coins query_id:uint64 after the v4 header, signed.
  const seqno = await client.open(wallet).getSeqno();
  const unsigned = beginCell()
    .storeUint(WALLET_ID, 32)
    .storeUint(Math.floor(Date.now() / 1000) + 60, 32)
    .storeUint(seqno, 32)
    .storeUint(3, 8)
    .storeInt(0, 8)
    .storeBuffer(plugin.hash)
    .storeCoins(toNano("0.05"))
    .storeUint(9, 64)
    .endCell();
  const body = beginCell().storeBuffer(sign(unsigned.hash(), keys.secretKey)).storeSlice(unsigned.beginParse()).endCell();
  await client.sendMessage(external({ to: wallet.address, body }));
  const gone = await actionOf(wallet.address, "unsubscribe");
  const gd = gone.details;
  must(gone.success === true && gd.subscriber === raw(wallet.address) && gd.subscription === raw(plugin), `unsubscribe ${JSON.stringify(gone)}`);
  const told = await waitFor(
    `/api/v3/transactions?account=${q(BENEFICIARY)}&limit=20&sort=desc`,
    (x) => x.transactions.some((t) => t.in_msg?.opcode === "0x64737472" && t.in_msg.source === raw(plugin)),
    "the plugin's answer",
  );
  must(told && gd.beneficiary === raw(BENEFICIARY), `the answer's receiver ${JSON.stringify(gd)}`);
  for (let i = 0; i < 50 && (await pluginList()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  must((await pluginList()).length === 0, "the wallet lists no plugin");
  console.log(JSON.stringify({ ok: true, subscribe: pd, unsubscribe: gd }));
}
