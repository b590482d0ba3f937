// tonweb end to end against `tonindex dev` (argv[2] = base URL), through
// HttpProvider on /api/v2/jsonRPC: a fresh v4R2 wallet is funded, deployed
// with its first transfer (seqno 0 carries the state init), read back
// (balance, state, seqno, public key), a transfer's fee is estimated, the
// transfer is sent and found in getTransactions, and a bounceable transfer
// to an undeployed address bounces. Prints one JSON line; a failed
// expectation throws.
import TonWeb from "tonweb";
const nacl = TonWeb.utils.nacl;

const base = process.argv[2];
const provider = new TonWeb.HttpProvider(`${base}/api/v2/jsonRPC`);
const tonweb = new TonWeb(provider);
const must = (cond, what) => {
  if (!cond) throw new Error(`expectation failed: ${what}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const keyPair = nacl.sign.keyPair();
const WalletClass = tonweb.wallet.all.v4R2;
const wallet = new WalletClass(provider, { publicKey: keyPair.publicKey, wc: 0 });
const address = await wallet.getAddress();
const raw = address.toString(false);

const fund = await fetch(`${base}/dev/fund`, {
  method: "POST",
  body: JSON.stringify({ address: address.toString(true, true, false), amount: TonWeb.utils.toNano("3").toString() }),
});
must(fund.status === 200, `fund: ${fund.status} ${await fund.text()}`);
must((await provider.getBalance(raw)) === "3000000000", "balance after funding");
let info = await provider.getAddressInfo(raw);
must(info.state === "uninitialized", `state after funding: ${info.state}`);

// The first transfer deploys the wallet (tonweb adds the state init at seqno 0).
const accounts = await (await fetch(`${base}/dev/accounts`)).json();
const to = accounts[2].address;
const transfer = wallet.methods.transfer({
  secretKey: keyPair.secretKey,
  toAddress: to,
  amount: TonWeb.utils.toNano("0.5"),
  seqno: 0,
  payload: "from tonweb",
  sendMode: 3,
});
const fee = await transfer.estimateFee();
must(fee["@type"] === "query.fees" && fee.source_fees.gas_fee > 0, `estimateFee: ${JSON.stringify(fee)}`);
const sent = await transfer.send();
must(sent["@type"] === "ok", `send: ${JSON.stringify(sent)}`);
let seqno = 0;
for (let i = 0; i < 50 && !(seqno >= 1); i++) {
  seqno = await wallet.methods.seqno().call();
  if (!(seqno >= 1)) await sleep(100);
}
must(seqno === 1, `seqno after deploy: ${seqno}`);
info = await provider.getAddressInfo(raw);
must(info.state === "active", `state after deploy: ${info.state}`);
const pk = await provider.call2(raw, "get_public_key");
must(pk.toString(16).padStart(64, "0") === Buffer.from(keyPair.publicKey).toString("hex"), "public key");
const txs = await provider.getTransactions(raw, 10);
must(txs.length === 2, `transactions: ${txs.length}`);
must(txs[0].out_msgs.length === 1 && txs[0].out_msgs[0].destination.length > 0, "the transfer's message");

// A bounceable transfer to an address nobody deployed bounces.
const nowhere = "0:" + "43".repeat(32);
await wallet.methods
  .transfer({
    secretKey: keyPair.secretKey,
    toAddress: new TonWeb.utils.Address(nowhere).toString(true, true, true),
    amount: TonWeb.utils.toNano("0.2"),
    seqno: 1,
    sendMode: 3,
  })
  .send();
const last = (await provider.getTransactions(raw, 1))[0];
must(last.in_msg && last.in_msg.source.length > 0 && last.in_msg.value !== "0", "the bounce came back");
const there = await provider.getTransactions(nowhere, 1);
must(there.length === 1, "the undeployed address has the bounced transaction");

console.log(JSON.stringify({ ok: true, wallet: raw, fee: fee.source_fees }));
