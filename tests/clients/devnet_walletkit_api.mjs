// @ton/walletkit's API client — its ApiClientToncenter, unchanged
// (vendor/walletkit.mjs) — against `tonindex dev --block-interval`
// (argv[2] = base URL, argv[3] = the test data directory): every call a
// wallet app makes through it (account state and balance, history, a
// transaction by message, events, get-methods, Jettons and NFTs of an
// owner, DNS, emulating a transfer before signing it, sending it, its
// pending trace and transactions, then its trace, and its status as
// walletkit's getTransactionStatus tells it) must succeed on our
// answers — walletkit maps each into its own models and throws on what it
// cannot read — and say what the steps did. Expected values come from the
// steps themselves and from @ton/ton's v2 client and @ton/core, not from
// walletkit. Prints one JSON summary; a failed expectation throws.
import { internal, toNano } from "@ton/ton";
import { Cell, SendMode, beginCell, external, storeMessage } from "@ton/core";
import { devnet, jettonMinter, mintBody, must, nftCollection, raw, sleep } from "./devnet_helpers.mjs";

const [base, fixtures] = process.argv.slice(2);
const { client, getJson, waitFor, newWallet, send } = devnet(base);
const { ApiClientToncenter, getTransactionStatus } = await import("./vendor/walletkit.mjs");
const api = new ApiClientToncenter({ endpoint: base, network: { chainId: "-239" } });
const hex = (b64) => `0x${Buffer.from(b64, "base64").toString("hex")}`;

// Alice and Bob; Bob pays Alice; Alice makes a Jetton (1000 to herself)
// and an NFT collection with one item of hers.
const alice = await newWallet();
const bob = await newWallet();
await send(alice, [internal({ to: bob.address, value: toNano("0.01"), bounce: false })]);
await send(bob, [internal({ to: alice.address, value: toNano("1"), bounce: false })]);
const jetton = jettonMinter(fixtures, alice.address, { name: "Walletkit Coin", symbol: "WKC", decimals: "6" });
await send(alice, [
  internal({ to: jetton.address, value: toNano("0.5"), bounce: false, init: jetton.init, body: mintBody(jetton.address, alice.address, 1000n) }),
]);
const nfts = nftCollection(alice.address, "https://example.com/walletkit.json", "https://example.com/walletkit/");
await send(alice, [
  internal({ to: nfts.address, value: toNano("0.5"), bounce: false, init: nfts.init, body: nfts.deployItem(0, alice.address) }),
]);
const me = alice.address.toString();
const aliceJw = jetton.walletOf(alice.address);
await waitFor(`/api/v3/nft/items?owner_address=${encodeURIComponent(raw(alice.address))}`, (r) => r.nft_items.length === 1, "Alice's item");
await waitFor(`/api/v3/jetton/wallets?owner_address=${encodeURIComponent(raw(alice.address))}`, (r) => r.jetton_wallets.length === 1, "Alice's Jetton wallet");
const history = (
  await waitFor(`/api/v3/transactions?account=${encodeURIComponent(raw(alice.address))}&limit=10`, (r) => r.transactions.length >= 6, "Alice's history")
).transactions;

// The chain as walletkit reads it.
const v2Seqno = (await client.getMasterchainInfo()).latestSeqno;
const mc = await api.getMasterchainInfo();
must(mc.workchain === -1 && mc.seqno >= v2Seqno && /^0x[0-9a-f]{64}$/.test(mc.rootHash), `masterchain ${JSON.stringify(mc)}`);

const state = await api.getAccountState(me);
const v2Balance = (await client.getBalance(alice.address)).toString();
must(state.status === "active" && state.balance === v2Balance, `state ${state.status} ${state.balance} vs ${v2Balance}`);
must(Cell.fromBase64(state.code).hash().equals(alice.wallet.init.code.hash()), "the wallet's code");
must(state.lastTransaction.lt === history[0].lt, `last transaction ${JSON.stringify(state.lastTransaction)}`);
must((await api.getBalance(me)) === v2Balance, "balance");

// History: every transaction v3 lists, each with its trace's message.
const txs = await api.getAccountTransactions({ address: [me], limit: 10 });
must(
  JSON.stringify(txs.transactions.map((t) => t.hash)) === JSON.stringify(history.map((t) => hex(t.hash))),
  `history ${txs.transactions.length} vs ${history.length}`,
);
const payment = history.find((t) => t.in_msg?.source === raw(bob.address) && t.in_msg.value === toNano("1").toString());
const paymentTrace = (await getJson(`/api/v3/traces?tx_hash=${encodeURIComponent(payment.hash)}`)).traces[0];
const mapped = txs.transactions.find((t) => t.hash === hex(payment.hash));
must(mapped.traceExternalHash === hex(paymentTrace.external_hash), "the payment's trace message");
// Each transaction's (roots' and others') is its trace's, as /traces says.
for (const t of history) {
  const [trace] = (await getJson(`/api/v3/traces?tx_hash=${encodeURIComponent(t.hash)}`)).traces;
  const shown = txs.transactions.find((m) => m.hash === hex(t.hash)).traceExternalHash;
  must(shown === hex(trace.external_hash), `transaction ${t.hash}: ${shown} vs its trace's ${trace.external_hash}`);
}
must(mapped.account === me && mapped.inMessage.value === toNano("1").toString(), `the payment ${JSON.stringify(mapped.inMessage)}`);
// walletkit pads the hash itself (always: a padded one gets four more
// '=', which toncenter refuses too), so it is given unpadded.
const byMessage = await api.getTransactionsByHash({ msgHash: payment.in_msg.hash.replace(/=+$/, "") });
must(
  JSON.stringify(byMessage.transactions.map((t) => t.account).sort()) === JSON.stringify([me, bob.address.toString()].sort()) &&
    byMessage.transactions.some((t) => t.hash === hex(payment.hash)),
  "the payment by its message: Bob's transaction that sent it, Alice's that received it",
);

// Events: walletkit's own reading of each trace.
const traces = (await getJson(`/api/v3/traces?account=${encodeURIComponent(raw(alice.address))}&limit=20`)).traces;
const events = await api.getEvents({ account: me, limit: 20 });
must(events.events.length === traces.length && !events.hasNext, `events ${events.events.length} vs ${traces.length}`);
const received = events.events.flatMap((e) => e.actions).find((a) => a.type === "TonTransfer" && a.TonTransfer.recipient.address === me);
must(received && BigInt(received.TonTransfer.amount) === toNano("1") && received.TonTransfer.sender.address === bob.address.toString(), `Bob's payment as an event ${JSON.stringify(received, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);

// A get-method.
const seqno = await api.runGetMethod(me, "seqno");
must(seqno.exitCode === 0 && BigInt(seqno.stack[0].value) === BigInt(alice.seqno), `seqno ${JSON.stringify(seqno)}`);

// Tokens.
const jettons = await api.jettonsByOwnerAddress({ ownerAddress: me });
must(jettons.jettons.length === 1, `jettons ${jettons.jettons.length}`);
const j = jettons.jettons[0];
must(
  j.address === jetton.address.toString() && j.walletAddress === aliceJw.toString() && j.balance === "1000" &&
    j.decimalsNumber === 6 && j.info.symbol === "WKC" && j.info.name === "Walletkit Coin",
  `the Jetton ${JSON.stringify(j)}`,
);
const masters = await api.jettonsByAddress({ address: jetton.address.toString(), limit: 1, offset: 0 });
must(masters.jetton_masters[0]?.total_supply === "1000", "the master's supply");
const owned = await api.nftItemsByOwner({ ownerAddress: me });
must(owned.nfts.length === 1, `items ${owned.nfts.length}`);
const item = owned.nfts[0];
must(
  item.address === nfts.item(0).toString() && item.index === "0" && item.ownerAddress === me &&
    item.collection?.address === nfts.address.toString(),
  `the item ${JSON.stringify(item)}`,
);
const byAddress = await api.nftItemsByAddress({ address: nfts.item(0).toString() });
must(byAddress.nfts.length === 1 && byAddress.nfts[0].address === item.address, "the item by address");

// DNS: no domain names Alice, none is found.
must((await api.resolveDnsWallet("nobody.ton")) === undefined, "an unknown domain");
must((await api.backResolveDnsWallet(me)) === undefined, "no domain of Alice's");

// A transfer previewed before it is signed for good, then sent.
const transfer = await alice.contract.createTransfer({
  seqno: alice.seqno,
  secretKey: alice.keys.secretKey,
  messages: [internal({ to: bob.address, value: toNano("0.1"), bounce: false })],
  sendMode: SendMode.PAY_GAS_SEPARATELY,
});
const boc = beginCell().store(storeMessage(external({ to: alice.address, body: transfer }))).endCell().toBoc().toString("base64");
const preview = (await api.fetchEmulation(boc)).emulationResult;
const root = preview.transactions[preview.trace.txHash];
must(root.account === me && root.isEmulated === true && root.description.computePhase.isSuccess === true, `the preview's root ${JSON.stringify(root.account)}`);
const child = preview.transactions[preview.trace.children[0]?.txHash];
must(child?.account === bob.address.toString() && child.inMsg.value === toNano("0.1").toString(), "the preview's transfer to Bob");
must(preview.actions.some((a) => a.type === "ton_transfer"), `preview actions ${preview.actions.map((a) => a.type)}`);
must(preview.mcBlockSeqno >= mc.seqno && root.blockRef.workchain === 0, `the preview's base ${preview.mcBlockSeqno} ${JSON.stringify(root.blockRef)}`);
const sent = await api.sendBoc(boc);
must(/^0x[0-9a-f]+$/.test(sent), `sendBoc ${sent}`);
alice.seqno += 1;
// Pending until its block (every 1.5 s): its status as walletkit tells it
// (from the message's TEP-467 hash that walletkit computes itself), its
// trace and Alice's transaction.
const early = await getTransactionStatus(api, { boc });
must(early.status === "pending" || early.status === "completed", `the status while pending ${JSON.stringify(early)}`);
must(early.totalMessages === 2, `two messages: the external and the transfer ${JSON.stringify(early)}`);
const pendingTrace = await api.getPendingTrace({ externalMessageHash: [sent] });
must(pendingTrace.traces.length === 1 && pendingTrace.traces[0].trace_info.transactions === 2, "the pending trace");
const pendingTxs = await api.getPendingTransactions({ accounts: [me] });
must(pendingTxs.transactions.some((t) => t.account === me && t.isEmulated === true && t.blockRef.workchain === 0), "Alice's pending transaction");
for (let i = 0; i < 100 && (await alice.contract.getSeqno()) < alice.seqno; i++) await sleep(100);
let trace;
for (let i = 0; i < 50 && !trace; i++) {
  trace = await api.getTrace({ traceId: [sent] }).catch(() => undefined);
  if (!trace) await sleep(200);
}
must(trace?.traces?.length === 1, "the committed trace by walletkit's message hash");
const done = await getTransactionStatus(api, { boc });
must(
  done.status === "completed" && done.totalMessages === 2 && done.onchainMessages === 2 && done.pendingMessages === 0,
  `the status once committed ${JSON.stringify(done)}`,
);
const committed = Object.values(trace.traces[0].transactions);
must(committed.some((t) => raw(bob.address) === t.account && t.in_msg.value === toNano("0.1").toString()), "the committed transfer");
console.log(
  JSON.stringify({
    ok: true,
    history: txs.transactions.length,
    events: events.events.length,
    preview: Object.keys(preview.transactions).length,
    sent,
  }),
);
process.exit(0);
