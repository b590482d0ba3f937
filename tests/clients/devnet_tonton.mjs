// @ton/ton end to end against `tonindex dev` (argv[2] = base URL): a fresh
// wallet is funded by the faucet, deployed by its first external message,
// read back (balance, state, seqno, public key), a transfer's fee is
// estimated, the transfer is sent and seen in v2 and v3, and a bounceable
// transfer to an undeployed address bounces. Prints one JSON summary; any
// failed expectation throws (non-zero exit).
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { TonClient, WalletContractV4, WalletContractV5R1, internal, toNano, Address } from "@ton/ton";
import { beginCell, SendMode } from "@ton/core";

const base = process.argv[2];
const client = new TonClient({ endpoint: `${base}/api/v2/jsonRPC` });
const must = (cond, what) => {
  if (!cond) throw new Error(`expectation failed: ${what}`);
};
const getJson = async (path, init) => {
  const r = await fetch(`${base}${path}`, init);
  const body = await r.json();
  if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
  return body;
};
const waitSeqno = async (contract, want) => {
  for (let i = 0; i < 50; i++) {
    if ((await contract.getSeqno()) >= want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`seqno never reached ${want}`);
};

const version = process.argv[3] ?? "v4";
const keys = await mnemonicToPrivateKey(await mnemonicNew());
const wallet =
  version === "v5"
    ? WalletContractV5R1.create({ publicKey: keys.publicKey, workchain: 0 })
    : WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
const contract = client.open(wallet);
const addr = wallet.address;

// 1. Fund the fresh address: an uninit account with the coins.
const funded = await getJson("/dev/fund", {
  method: "POST",
  body: JSON.stringify({ address: addr.toString({ bounceable: false }), amount: toNano("5").toString() }),
});
must(typeof funded.tx_hash === "string" && funded.mc_seqno > 0, "fund answer");
const before = await client.getContractState(addr);
must(before.state === "uninitialized", `state after funding: ${before.state}`);
must(before.balance === toNano("5"), `balance after funding: ${before.balance}`);

// 2. Deploy with the first external message, paying a genesis wallet.
const genesis = (await getJson("/dev/accounts"))[1];
const to = Address.parse(genesis.address);
const estimate = await client.estimateExternalMessageFee(addr, {
  body: wallet.createTransfer({
    seqno: 0,
    secretKey: keys.secretKey,
    messages: [internal({ to, value: toNano("1"), bounce: false })],
    sendMode: SendMode.PAY_GAS_SEPARATELY,
  }),
  initCode: wallet.init.code,
  initData: wallet.init.data,
  ignoreSignature: true,
});
must(estimate.source_fees.gas_fee > 0, "estimated gas fee");
await contract.sendTransfer({
  seqno: 0,
  secretKey: keys.secretKey,
  messages: [internal({ to, value: toNano("1"), bounce: false, body: "hello devnet" })],
  sendMode: SendMode.PAY_GAS_SEPARATELY,
});
await waitSeqno(contract, 1);
const after = await client.getContractState(addr);
must(after.state === "active", `state after deploy: ${after.state}`);
must(after.balance < toNano("4"), `balance after paying 1 TON and fees: ${after.balance}`);
const pk = await client.runMethod(addr, "get_public_key");
must(pk.stack.readBigNumber() === BigInt("0x" + keys.publicKey.toString("hex")), "public key");

// 3. The transaction in v2 and v3.
const txs = await client.getTransactions(addr, { limit: 10 });
must(txs.length === 2, `transactions of the wallet: ${txs.length}`);
const deploy = txs[0];
must(deploy.outMessagesCount === 1, "deploy sends one message");
const byHash = await getJson(
  `/api/v3/transactions?hash=${encodeURIComponent(deploy.hash().toString("base64"))}`,
);
must(byHash.transactions.length === 1, "v3 transaction by hash");
const msgs = await getJson(
  `/api/v3/messages?source=${encodeURIComponent(addr.toRawString())}&limit=10`,
);
must(msgs.messages.length === 1, `v3 messages from the wallet: ${msgs.messages.length}`);

must(byHash.transactions[0].trace_id === deploy.hash().toString("base64"), "the deploy roots its trace");

// 3b. The deploy's trace and actions in v3: the wallet's transaction and
// the genesis wallet's, a TON transfer with its comment, and the deploy.
const raw = (a) => a.toRawString().toUpperCase();
const waitTrace = async (txHash) => {
  for (let i = 0; i < 50; i++) {
    const t = await getJson(
      `/api/v3/traces?tx_hash=${encodeURIComponent(txHash)}&include_actions=true`,
    );
    if (t.traces.length === 1 && t.traces[0].trace_info.trace_state === "complete") return t.traces[0];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`trace of ${txHash} never completed`);
};
const trace = await waitTrace(deploy.hash().toString("base64"));
must(trace.trace_id === deploy.hash().toString("base64"), "trace id is the root transaction");
must(trace.trace_info.transactions === 2 && trace.trace_info.messages === 2, `trace counts ${JSON.stringify(trace.trace_info)}`);
must(trace.trace_info.classification_state === "ok", "trace classified");
must(trace.transactions_order.length === 2 && trace.transactions_order[0] === trace.trace_id, "transactions order");
must(trace.trace.tx_hash === trace.trace_id && trace.trace.children.length === 1, "trace tree");
must(trace.trace.children[0].in_msg_hash === msgs.messages[0].hash, "tree edge is the wallet's message");
const transfer = trace.actions.find((a) => a.type === "ton_transfer");
must(transfer, `a ton_transfer action: ${JSON.stringify(trace.actions)}`);
must(transfer.success === true && transfer.details.comment === "hello devnet", `transfer details ${JSON.stringify(transfer)}`);
must(transfer.details.source === raw(addr) && transfer.details.destination === raw(to), "transfer ends");
must(transfer.details.value === toNano("1").toString() && transfer.details.encrypted === false, "transfer value");
must(transfer.transactions.length === 2, "the transfer covers both transactions");
const deployed = trace.actions.find((a) => a.type === "contract_deploy");
must(deployed && deployed.details.destination === raw(addr), `a contract_deploy action: ${JSON.stringify(trace.actions)}`);
const byAccount = await getJson(`/api/v3/actions?account=${encodeURIComponent(addr.toRawString())}&include_accounts=true`);
must(byAccount.actions.some((a) => a.action_id === transfer.action_id && a.accounts.includes(raw(to))), "the transfer by account");

// 4. A bounceable transfer to an address nobody deployed bounces.
const nowhere = new Address(0, Buffer.alloc(32, 0x42));
await contract.sendTransfer({
  seqno: 1,
  secretKey: keys.secretKey,
  messages: [internal({ to: nowhere, value: toNano("0.5"), bounce: true })],
  sendMode: SendMode.PAY_GAS_SEPARATELY,
});
await waitSeqno(contract, 2);
const bounced = await client.getTransactions(addr, { limit: 1 });
const inMsg = bounced[0].inMessage;
must(inMsg && inMsg.info.type === "internal" && inMsg.info.bounced, "the bounce came back");
const there = await client.getTransactions(nowhere, { limit: 1 });
must(there.length === 1, "the undeployed address has the bounced transaction");
// In v3: one trace of three transactions; the transfer failed, the bounce came back.
const bounceTrace = await waitTrace(there[0].hash().toString("base64"));
must(bounceTrace.trace_info.transactions === 3, `bounce trace ${JSON.stringify(bounceTrace.trace_info)}`);
const failed = bounceTrace.actions.find((a) => a.type === "ton_transfer");
must(failed && failed.success === false && failed.details.destination === raw(nowhere), `failed transfer ${JSON.stringify(bounceTrace.actions)}`);
const back0 = bounceTrace.actions.find((a) => a.type === "call_contract");
must(back0 && back0.details.opcode === "0xffffffff" && back0.details.destination === raw(addr), `the bounce ${JSON.stringify(bounceTrace.actions)}`);

// 5. To the masterchain: a bounceable transfer to an address nobody deployed
// there crosses to the masterchain, bounces, and the bounce crosses back.
const mcNowhere = new Address(-1, Buffer.alloc(32, 0x44));
await contract.sendTransfer({
  seqno: 2,
  secretKey: keys.secretKey,
  messages: [internal({ to: mcNowhere, value: toNano("0.3"), bounce: true })],
  sendMode: SendMode.PAY_GAS_SEPARATELY,
});
await waitSeqno(contract, 3);
const mcTxs = await client.getTransactions(mcNowhere, { limit: 5 });
must(mcTxs.length >= 1, "the masterchain address has the transaction");
const back = (await client.getTransactions(addr, { limit: 1 }))[0];
must(back.inMessage?.info.type === "internal" && back.inMessage.info.bounced, "the masterchain bounce came back");
must(back.inMessage.info.src.workChain === -1, "the bounce comes from the masterchain");

console.log(
  JSON.stringify({
    ok: true,
    wallet: addr.toRawString(),
    deploy_tx: deploy.hash().toString("base64"),
    gas_estimate: estimate.source_fees.gas_fee,
  }),
);
