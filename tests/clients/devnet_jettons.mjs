// Jettons end to end with @ton/ton against `tonindex dev` (argv[2] = base
// URL, argv[3] = the test data directory, tests/data/fixtures): two wallets; a TEP-74
// minter (the standard token-contract code from the fixtures) with on-chain
// TEP-64 content is deployed, mints to both wallets, one transfers to the
// other, the other burns; then a fake Jetton wallet that claims the real
// minter is deployed. The v3 Jetton endpoints must show exactly what these
// steps imply — balances, owners, total supply, content — and never the
// fake; a Streaming API v2 subscriber to the two owners hears each change
// of their Jetton wallets once (jettons_change). Expected addresses come from @ton/core (contractAddress of the
// wallet's state init), expected amounts from the steps themselves.
// Prints one JSON summary; any failed expectation throws.
import { internal, toNano } from "@ton/ton";
import { beginCell, Cell, SendMode, contractAddress, external, storeMessage } from "@ton/core";
import { devnet, jettonMinter, mintBody, must, sleep, raw } from "./devnet_helpers.mjs";

const [base, fixtures, level, faucet] = process.argv.slice(2);
// argv[4] = "confirmed": the devnet runs with --block-interval and
// --confirm-gap, and a second subscriber asks from `confirmed` on.
// argv[5]: the devnet whose faucet funds the wallets, when `base` is a
// follower of it (which has no /dev/ routes).
const atConfirmed = level === "confirmed";
const { client, getJson, waitFor, newWallet, send } = devnet(base, faucet);

const alice = await newWallet();
const bob = await newWallet();
await send(alice, [internal({ to: bob.address, value: toNano("0.01"), bounce: false })]);
await send(bob, [internal({ to: alice.address, value: toNano("0.01"), bounce: false })]);

// Streaming API v2 (raw SSE: @ton/ton 16 ships no streaming client): the
// owners' Jetton wallets, as each block changes them; with `since`, the
// blocks from that one on replayed first.
const listen = async (since, minFinality) => {
  const heard = [];
  const listening = new AbortController();
  const stream = await fetch(`${base}/api/streaming/v2/sse`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      types: ["jettons_change"],
      addresses: [alice.address.toString(), bob.address.toRawString()],
      ...(since === undefined ? {} : { since }),
      ...(minFinality === undefined ? {} : { min_finality: minFinality }),
    }),
    signal: listening.signal,
  });
  must(stream.status === 200, `the jettons_change subscription: ${stream.status}`);
  (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of stream.body) {
      buf += decoder.decode(chunk, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = "event: event\ndata: ";
        if (frame.startsWith(data)) heard.push(JSON.parse(frame.slice(data.length)));
      }
    }
  })().catch(() => {});
  return { heard, listening };
};
const { heard, listening } = await listen();
const early = atConfirmed ? await listen(undefined, "confirmed") : undefined;
// The newest masterchain block before the Jetton exists: a replay from
// the next one tells every change.
const before = (await getJson("/api/v3/masterchainInfo")).last.seqno;

const { minterCode, walletCode, init: minterInit, address: minter, walletOf } = jettonMinter(fixtures, alice.address, {
  name: "Devnet Dollar",
  symbol: "DVD",
  decimals: "6",
});
const aliceJw = walletOf(alice.address);
const bobJw = walletOf(bob.address);

// Mints as the admin, the excess back to Alice.
const mint = (to, amount) => mintBody(minter, to, amount, alice.address);

// 1. Deploy the minter and mint 1000 to Alice and 500 to Bob.
await send(alice, [
  internal({ to: minter, value: toNano("0.5"), bounce: false, init: minterInit, body: mint(alice.address, 1000n) }),
]);
await send(alice, [internal({ to: minter, value: toNano("0.5"), body: mint(bob.address, 500n) })]);
const balances = async () => {
  const r = await getJson(`/api/v3/jetton/wallets?jetton_address=${encodeURIComponent(minter.toRawString())}`);
  return Object.fromEntries(r.jetton_wallets.map((w) => [w.address, w]));
};
const waitBalances = async (want, what) => {
  let last;
  for (let i = 0; i < 150; i++) {
    last = await balances();
    const ok =
      Object.keys(last).length === Object.keys(want).length &&
      Object.entries(want).every(([a, b]) => last[a] && last[a].balance === b);
    if (ok) return last;
    await sleep(100);
  }
  throw new Error(`${what}: balances ${JSON.stringify(last)}, want ${JSON.stringify(want)}`);
};
let seen = await waitBalances({ [raw(aliceJw)]: "1000", [raw(bobJw)]: "500" }, "after minting");
must(seen[raw(aliceJw)].owner === raw(alice.address) && seen[raw(aliceJw)].jetton === raw(minter), "Alice's wallet row");
must(seen[raw(bobJw)].owner === raw(bob.address), "Bob's wallet row");

// 2. Alice sends 100 to Bob: transfer#0f8a7ea5 to her own Jetton wallet,
// a text comment as the forward payload (in a reference, as wallets send it).
const forwardComment = beginCell().storeUint(0, 32).storeStringTail("for Bob").endCell();
const transfer = beginCell()
  .storeUint(0x0f8a7ea5, 32)
  .storeUint(7, 64)
  .storeCoins(100n)
  .storeAddress(bob.address)
  .storeAddress(alice.address)
  .storeBit(0)
  .storeCoins(toNano("0.01"))
  .storeBit(1)
  .storeRef(forwardComment)
  .endCell();
await send(alice, [internal({ to: aliceJw, value: toNano("0.2"), body: transfer })]);
await waitBalances({ [raw(aliceJw)]: "900", [raw(bobJw)]: "600" }, "after the transfer");

// 3. Bob burns 50: burn#595f07bc to his Jetton wallet.
const burn = beginCell()
  .storeUint(0x595f07bc, 32)
  .storeUint(8, 64)
  .storeCoins(50n)
  .storeAddress(bob.address)
  .storeBit(0)
  .endCell();
await send(bob, [internal({ to: bobJw, value: toNano("0.2"), body: burn })]);
await waitBalances({ [raw(aliceJw)]: "900", [raw(bobJw)]: "550" }, "after the burn");

// 4. The master: supply after the burn notification, content, admin.
const masters = await waitFor(
  `/api/v3/jetton/masters?address=${encodeURIComponent(minter.toString())}`,
  (r) => r.jetton_masters.length === 1 && r.jetton_masters[0].total_supply === "1450",
  "the supply after the burn",
);
const m = masters.jetton_masters[0];
must(m.address === raw(minter) && m.mintable === true, `master row ${JSON.stringify(m)}`);
must(m.admin_address === raw(alice.address), "admin");
must(
  JSON.stringify(m.jetton_content) === JSON.stringify({ decimals: "6", name: "Devnet Dollar", symbol: "DVD" }),
  `content ${JSON.stringify(m.jetton_content)}`,
);
must(m.jetton_wallet_code_hash === walletCode.hash().toString("base64"), "wallet code hash");
must(m.code_hash === minterCode.hash().toString("base64"), "code hash");
const byAdmin = await getJson(`/api/v3/jetton/masters?admin_address=${encodeURIComponent(alice.address.toRawString())}`);
must(byAdmin.jetton_masters.length === 1, "masters by admin");
const info = masters.metadata[raw(minter)];
must(info && info.is_indexed === true && info.token_info[0].symbol === "DVD", `metadata ${JSON.stringify(masters.metadata)}`);
must(info.token_info[0].extra.decimals === "6", "decimals in extra");

// 5. A fake wallet claiming the real minter, with a balance of its own.
const fakeInit = {
  code: walletCode,
  data: beginCell().storeCoins(777n).storeAddress(alice.address).storeAddress(minter).storeRef(walletCode).endCell(),
};
const fake = contractAddress(0, fakeInit);
// A ping (excesses-like op the wallet ignores would throw; an empty body is accepted).
await send(alice, [internal({ to: fake, value: toNano("0.1"), bounce: false, init: fakeInit })]);
const fakeState = await client.getContractState(fake);
must(fakeState.state === "active", `the fake is deployed: ${fakeState.state}`);
const afterFake = await balances();
must(!afterFake[raw(fake)], "the fake wallet is not listed");
must(Object.keys(afterFake).length === 2, "still two wallets");
const fakeByAddr = await getJson(`/api/v3/jetton/wallets?address=${encodeURIComponent(fake.toRawString())}`);
must(fakeByAddr.jetton_wallets.length === 0, "the fake wallet is unknown by address too");

// 5b. The streams told each change of the two real wallets once, in
// order, finalized, and nothing of the fake.
const streamed = (jw) => heard.filter((n) => n.jetton.address === raw(jw)).map((n) => n.jetton.balance);
for (let i = 0; i < 100 && !(streamed(aliceJw).length >= 2 && streamed(bobJw).length >= 3); i++) await sleep(100);
must(heard.every((n) => n.type === "jettons_change" && n.finality === "finalized"), `kinds ${JSON.stringify(heard)}`);
must(JSON.stringify(streamed(aliceJw)) === JSON.stringify(["1000", "900"]), `Alice's changes ${streamed(aliceJw)}`);
must(JSON.stringify(streamed(bobJw)) === JSON.stringify(["500", "600", "550"]), `Bob's changes ${streamed(bobJw)}`);
must(
  heard.every((n) => n.jetton.jetton === raw(minter) && [raw(alice.address), raw(bob.address)].includes(n.jetton.owner)),
  "every change names the minter and an owner",
);
must(heard.length === 5, `nothing else, the fake neither: ${JSON.stringify(heard)}`);
listening.abort();
if (atConfirmed) {
  // From `confirmed` on: each change of a wallet the index already knew
  // comes first at `confirmed` (read from the shard block's state, at the
  // balance and lt the finalized one then has), then at `finalized`. A
  // wallet's first change (the mint that made it) comes at `finalized`
  // only: until then the index has not checked it against its master.
  const at = (jw, f) => early.heard.filter((n) => n.jetton.address === raw(jw) && n.finality === f).map((n) => n.jetton);
  for (let i = 0; i < 100 && early.heard.length < 8; i++) await sleep(100);
  const show = (jw, f) => JSON.stringify(at(jw, f).map((j) => [j.balance, j.last_transaction_lt]));
  for (const [jw, name] of [[aliceJw, "Alice"], [bobJw, "Bob"]]) {
    const fin = JSON.parse(show(jw, "finalized"));
    must(JSON.stringify(fin.map(([b]) => b)) === JSON.stringify(streamed(jw)), `${name}'s finalized changes ${JSON.stringify(fin)}`);
    must(show(jw, "confirmed") === JSON.stringify(fin.slice(1)), `${name}'s confirmed changes ${show(jw, "confirmed")} vs finalized ${JSON.stringify(fin)}`);
  }
  for (const jw of [aliceJw, bobJw]) {
    const order = early.heard.filter((n) => n.jetton.address === raw(jw)).map((n) => [n.jetton.last_transaction_lt, n.finality]);
    for (const [lt, f] of order.filter(([, f]) => f === "confirmed")) {
      const i = order.findIndex(([l, g]) => l === lt && g === f);
      const j = order.findIndex(([l, g]) => l === lt && g === "finalized");
      must(i < j, `confirmed before finalized at lt ${lt}: ${JSON.stringify(order)}`);
    }
  }
  must(early.heard.length === 8, `the confirmed subscriber heard nothing else: ${JSON.stringify(early.heard)}`);
  early.listening.abort();
}

// 5c. The same changes replayed from the blocks before them, now that
// each wallet has changed again since: every change at its own block's
// balance, not the wallet's newest.
const replayed = await listen(before + 1);
const fromReplay = (jw) => replayed.heard.filter((n) => n.jetton.address === raw(jw)).map((n) => n.jetton.balance);
for (let i = 0; i < 100 && replayed.heard.length < 5; i++) await sleep(100);
must(JSON.stringify(fromReplay(aliceJw)) === JSON.stringify(["1000", "900"]), `Alice's replayed changes ${fromReplay(aliceJw)}`);
must(JSON.stringify(fromReplay(bobJw)) === JSON.stringify(["500", "600", "550"]), `Bob's replayed changes ${fromReplay(bobJw)}`);
must(
  JSON.stringify(replayed.heard.map((n) => n.jetton.last_transaction_lt)) === JSON.stringify(heard.map((n) => n.jetton.last_transaction_lt)),
  `replayed lts ${JSON.stringify(replayed.heard)} vs live ${JSON.stringify(heard)}`,
);
must(replayed.heard.length === 5, `replayed nothing else: ${JSON.stringify(replayed.heard)}`);
replayed.listening.abort();

// 6. Filters: owner, several masters for one owner, zero balances, sort.
const bobs = await getJson(`/api/v3/jetton/wallets?owner_address=${encodeURIComponent(bob.address.toString())}`);
must(bobs.jetton_wallets.length === 1 && bobs.jetton_wallets[0].balance === "550", "Bob's wallets");
const several = await fetch(
  `${base}/api/v3/jetton/wallets?jetton_address=${encodeURIComponent(minter.toRawString())}&jetton_address=${encodeURIComponent(alice.address.toRawString())}`,
);
must(several.status === 422, `several masters without one owner: ${several.status}`);
const sorted = await getJson(
  `/api/v3/jetton/wallets?jetton_address=${encodeURIComponent(minter.toRawString())}&sort=asc`,
);
must(sorted.jetton_wallets.map((w) => w.balance).join(",") === "550,900", "sorted by balance");
const walletMeta = sorted.metadata[raw(aliceJw)];
must(walletMeta && walletMeta.token_info[0].type === "jetton_wallets", "wallet metadata");
must(sorted.metadata[raw(minter)], "the master joins the metadata");
const meta = await getJson(
  `/api/v3/metadata?address=${encodeURIComponent(aliceJw.toString())}&address=${encodeURIComponent(alice.address.toRawString())}&address=nonsense`,
);
must(
  JSON.stringify(Object.keys(meta).sort()) === JSON.stringify([raw(aliceJw), raw(minter)].sort()),
  `/metadata: the wallet and its master, not the owner nor nonsense ${JSON.stringify(meta)}`,
);
must(meta[raw(minter)].token_info[0].symbol === "DVD", "/metadata master content");
const noMeta = await fetch(`${base}/api/v3/metadata`);
must(noMeta.status === 422 && (await noMeta.json()).error === "at least 1 address required", "/metadata without address");

// 7. Transfers and burns, from the wallets' transactions.
const q = (a) => encodeURIComponent(a.toRawString());
const out = await getJson(`/api/v3/jetton/transfers?owner_address=${q(alice.address)}&direction=out`);
must(out.jetton_transfers.length === 1, `Alice's outgoing transfers ${JSON.stringify(out)}`);
const t = out.jetton_transfers[0];
must(t.amount === "100" && t.query_id === "7", `transfer amount ${JSON.stringify(t)}`);
must(t.source === raw(alice.address) && t.destination === raw(bob.address), "transfer owners");
must(t.source_wallet === raw(aliceJw) && t.jetton_master === raw(minter), "transfer wallet and master");
must(t.response_destination === raw(alice.address) && t.forward_ton_amount === toNano("0.01").toString(), "transfer fields");
must(t.transaction_aborted === false && typeof t.trace_id === "string", "transfer transaction");
// The payloads, decoded as message bodies are (toncenter's DecodedContent).
must(Cell.fromBase64(t.forward_payload).hash().equals(forwardComment.hash()), `forward payload ${t.forward_payload}`);
must(
  t.decoded_forward_payload && t.decoded_forward_payload.type === "text_comment" && t.decoded_forward_payload.comment === "for Bob",
  `decoded_forward_payload ${JSON.stringify(t.decoded_forward_payload)}`,
);
must(t.custom_payload === null && t.decoded_custom_payload === null, "no custom payload, none decoded");
const aliceTxs = await client.getTransactions(aliceJw, { limit: 10 });
const transferTx = aliceTxs.find((x) => x.inMessage?.body.beginParse().loadUint(32) === 0x0f8a7ea5);
must(transferTx && t.transaction_hash === transferTx.hash().toString("base64"), "the transfer's transaction");
const inAlice = await getJson(`/api/v3/jetton/transfers?owner_address=${q(alice.address)}&direction=in`);
must(inAlice.jetton_transfers.length === 0, "nothing came in to Alice");
const inBob = await getJson(`/api/v3/jetton/transfers?owner_address=${q(bob.address)}&direction=in`);
must(inBob.jetton_transfers.length === 1 && inBob.jetton_transfers[0].transaction_hash === t.transaction_hash, "Bob received it");
// /balanceChanges of the transfer's trace, held to the chain's own
// accounting: each account's nanotons equal its balance after its last
// transaction in the trace less its balance before its first (the states
// the executor wrote), fees are each account's total_fees and more, and the
// Jetton units equal the wallets' balance moves (1000 → 900, 500 → 600).
const changes = await getJson(`/api/v3/balanceChanges?trace_id=${encodeURIComponent(t.trace_id)}`);
const traceTxs = Object.values((await getJson(`/api/v3/traces?trace_id=${encodeURIComponent(t.trace_id)}`)).traces[0].transactions)
  .sort((x, y) => (BigInt(x.lt) < BigInt(y.lt) ? -1 : 1));
// (States between two transactions of one account in one block are not
// held: only the first one's before and the last one's after are read.)
const moved = {};
for (const tx of traceTxs) {
  const m = (moved[tx.account] ??= { first: tx, fees: 0n });
  m.last = tx;
  m.fees += BigInt(tx.total_fees);
}
for (const m of Object.values(moved)) {
  m.before = BigInt(m.first.account_state_before.balance);
  m.after = BigInt(m.last.account_state_after.balance);
}
must(Object.keys(moved).length >= 4, `the trace's accounts ${JSON.stringify(Object.keys(moved))}`);
for (const [account, m] of Object.entries(moved)) {
  must(BigInt(changes.changes[account]) === m.after - m.before, `${account}: change ${changes.changes[account]} vs ${m.after - m.before}`);
  must(BigInt(changes.fees[account]) >= m.fees, `${account}: fees ${changes.fees[account]} cover total_fees ${m.fees}`);
}
must(Object.keys(changes.changes).length === Object.keys(moved).length, `no other account changes ${JSON.stringify(changes.changes)}`);
must(JSON.stringify(changes.jettons) === JSON.stringify({ [raw(alice.address)]: { [raw(minter)]: "-100" }, [raw(bob.address)]: { [raw(minter)]: "100" } })
  || JSON.stringify(changes.jettons) === JSON.stringify({ [raw(bob.address)]: { [raw(minter)]: "100" }, [raw(alice.address)]: { [raw(minter)]: "-100" } }),
  `jetton changes ${JSON.stringify(changes.jettons)}`);
const actionsOfTrace = await getJson(`/api/v3/actions?trace_id=${encodeURIComponent(t.trace_id)}`);
const transferAction = actionsOfTrace.actions.find((a) => a.type === "jetton_transfer");
// metadata (spec v3 §1.8) on every list that names token contracts: the
// Jetton wallets in the answer, and their master with its content.
const tokenMeta = (r, what) => {
  must(r.metadata[raw(minter)]?.token_info?.[0]?.symbol === "DVD", `${what}: the master's metadata ${JSON.stringify(r.metadata)}`);
  must(r.metadata[raw(aliceJw)]?.token_info?.[0]?.type === "jetton_wallets", `${what}: Alice's Jetton wallet's metadata`);
  must(!r.metadata[raw(alice.address)], `${what}: no metadata for a plain wallet`);
};
tokenMeta(actionsOfTrace, "/actions");
tokenMeta(await getJson(`/api/v3/traces?trace_id=${encodeURIComponent(t.trace_id)}`), "/traces");
tokenMeta(await getJson(`/api/v3/events?trace_id=${encodeURIComponent(t.trace_id)}`), "/events");
tokenMeta(await getJson(`/api/v3/messages?destination=${encodeURIComponent(aliceJw.toRawString())}`), "/messages");
const statesMeta = await getJson(`/api/v3/accountStates?address=${encodeURIComponent(minter.toString())}`);
must(statesMeta.metadata[raw(minter)]?.token_info?.[0]?.symbol === "DVD", `/accountStates metadata ${JSON.stringify(statesMeta.metadata)}`);
const noMetadata = await getJson(`/api/v3/actions?trace_id=${encodeURIComponent(t.trace_id)}`, { headers: { "X-No-Metadata": "true" } });
must(JSON.stringify(noMetadata.metadata) === "{}", `X-No-Metadata ${JSON.stringify(noMetadata.metadata)}`);
const ofAction = await getJson(`/api/v3/balanceChanges?action_id=${encodeURIComponent(transferAction.action_id)}`);
must(JSON.stringify(ofAction.jettons) === JSON.stringify(changes.jettons), `the action's jetton changes ${JSON.stringify(ofAction)}`);
must(BigInt(ofAction.changes[raw(aliceJw)]) === moved[raw(aliceJw)].after - moved[raw(aliceJw)].before, "the action moves Alice's jetton wallet's nanotons");
const byMaster = await getJson(`/api/v3/jetton/transfers?jetton_master=${q(minter)}`);
must(byMaster.jetton_transfers.length === 1, "transfers by master");
const badDir = await fetch(`${base}/api/v3/jetton/transfers?owner_address=${q(bob.address)}&direction=up`);
must(badDir.status === 422, "a bad direction is a 422");
const burns = await getJson(`/api/v3/jetton/burns?address=${q(bob.address)}`);
must(burns.jetton_burns.length === 1, `Bob's burns ${JSON.stringify(burns)}`);
const b = burns.jetton_burns[0];
must(b.amount === "50" && b.query_id === "8" && b.owner === raw(bob.address), `burn fields ${JSON.stringify(b)}`);
must(b.jetton_wallet === raw(bobJw) && b.jetton_master === raw(minter) && b.response_destination === raw(bob.address), "burn wallet and master");
const noBurns = await getJson(`/api/v3/jetton/burns?jetton_wallet=${q(aliceJw)}`);
must(noBurns.jetton_burns.length === 0, "Alice burned nothing");

// 7b. Message bodies decoded from the TL-B scheme: the transfer's
// in-message on Alice's Jetton wallet, and /decode (GET and POST).
const transferTxs = await getJson(`/api/v3/transactions?hash=${encodeURIComponent(t.transaction_hash)}`);
const inMsg = transferTxs.transactions[0].in_msg;
must(inMsg.decoded_opcode === "jetton_transfer", `decoded_opcode ${JSON.stringify(inMsg)}`);
const dec = inMsg.message_content.decoded;
must(dec["@type"] === "jetton_transfer" && dec.amount === "100" && dec.query_id === "7", `decoded body ${JSON.stringify(dec)}`);
must(dec.destination === raw(bob.address) && dec.response_destination === raw(alice.address), "decoded addresses");
must(dec.forward_ton_amount === toNano("0.01").toString() && dec.custom_payload === null, "decoded amounts");
const commentBody = beginCell().storeUint(0, 32).storeStringTail("gm from the devnet").endCell();
const decodedPost = await getJson("/api/v3/decode", {
  method: "POST",
  body: JSON.stringify({
    opcodes: ["0x0f8a7ea5", "395134233", "0xdeadbeef"],
    bodies: [commentBody.toBoc().toString("base64"), transfer.toBoc().toString("hex"), "not a boc"],
  }),
});
must(
  JSON.stringify(decodedPost.opcodes) === JSON.stringify(["jetton_transfer", "jetton_internal_transfer", "unknown"]),
  `opcodes ${JSON.stringify(decodedPost.opcodes)}`,
);
must(decodedPost.bodies[0]["@type"] === "text_comment" && decodedPost.bodies[0].comment === "gm from the devnet", "comment body");
must(decodedPost.bodies[1].amount === "100" && decodedPost.bodies[1].destination === raw(bob.address), "transfer body");
must(typeof decodedPost.bodies[2].error === "string" && decodedPost.bodies[2].error.startsWith("unknown"), "not a BoC");
const decodedGet = await getJson(`/api/v3/decode?opcodes=0x595f07bc&bodies=${encodeURIComponent(burn.toBoc().toString("base64"))}`);
must(decodedGet.opcodes[0] === "jetton_burn" && decodedGet.bodies[0].amount === "50", `GET /decode ${JSON.stringify(decodedGet)}`);
const badOpcode = await fetch(`${base}/api/v3/decode?opcodes=0xZZ`);
must(badOpcode.status === 422 && (await badOpcode.json()).error === "invalid opcode format at index 0: 0xZZ", "bad opcode");

// 8. The classifier sees the Jetton wallets the index confirmed: the
// transfer's trace is a jetton_transfer, the burn's a jetton_burn, the
// mints jetton_mints.
const actionsOf = async (traceId, type) => {
  const r = await waitFor(
    `/api/v3/traces?trace_id=${encodeURIComponent(traceId)}&include_actions=true`,
    (r) => r.traces.length === 1 && r.traces[0].trace_info.classification_state === "ok",
    `classification of ${traceId}`,
  );
  return r.traces[0].actions.filter((a) => a.type === type);
};
const [jt] = await actionsOf(t.trace_id, "jetton_transfer");
must(jt, "a jetton_transfer action");
const d = jt.details;
must(d.asset === raw(minter) && d.amount === "100", `jetton_transfer details ${JSON.stringify(d)}`);
must(d.sender === raw(alice.address) && d.receiver === raw(bob.address), "jetton_transfer ends");
must(d.sender_jetton_wallet === raw(aliceJw) && d.receiver_jetton_wallet === raw(bobJw), "jetton_transfer wallets");
must(jt.success === true, "the transfer succeeded");
const [jb] = await actionsOf(b.trace_id, "jetton_burn");
must(jb && jb.details.amount === "50" && jb.details.owner === raw(bob.address), `jetton_burn ${JSON.stringify(jb)}`);
must(jb.details.asset === raw(minter) && jb.details.owner_jetton_wallet === raw(bobJw), "jetton_burn wallet");
const mints = await getJson(`/api/v3/actions?account=${q(bob.address)}&action_type=jetton_mint`);
must(
  mints.actions.some((a) => a.details.receiver === raw(bob.address) && a.details.amount === "500"),
  `Bob's mint ${JSON.stringify(mints.actions)}`,
);

// 9. v2 getTokenData: the master, a wallet (confirmed by its master), the
// fake (refused: its master derives another address), a plain wallet.
const tokenData = async (a) => {
  const r = await fetch(`${base}/api/v2/getTokenData?address=${encodeURIComponent(a.toString())}`);
  return { status: r.status, body: await r.json() };
};
const tm = await tokenData(minter);
must(tm.status === 200 && tm.body.ok === true, `getTokenData(master) ${JSON.stringify(tm.body)}`);
must(tm.body.result.contract_type === "jetton_master" && tm.body.result.total_supply === "1450", "master data");
must(tm.body.result.admin_address === alice.address.toString(), `admin ${tm.body.result.admin_address}`);
must(tm.body.result.jetton_content.type === "onchain" && tm.body.result.jetton_content.data.symbol === "DVD", "master content");
must(Cell.fromBase64(tm.body.result.jetton_wallet_code).hash().equals(walletCode.hash()), "wallet code");
const tw = await tokenData(aliceJw);
must(tw.status === 200 && tw.body.result.contract_type === "jetton_wallet", `getTokenData(wallet) ${JSON.stringify(tw.body)}`);
must(tw.body.result.balance === "900" && tw.body.result.owner === alice.address.toString(), "wallet data");
must(tw.body.result.jetton === minter.toString(), "wallet's master");
const tf = await tokenData(fake);
must(tf.status === 409 && tf.body.ok === false && tf.body.code === 409, `getTokenData(fake) ${JSON.stringify(tf.body)}`);
const tp = await tokenData(alice.address);
must(tp.status === 409 && /is not Jetton or NFT/.test(tp.body.error), `getTokenData(wallet v4) ${JSON.stringify(tp.body)}`);

// 10. /topAccountsByBalance after all these balance changes: each account
// once, richest first, every contract of this script at the balance
// @ton/ton reads for it (the index moved each one as its state changed).
const top = await getJson("/api/v3/topAccountsByBalance?limit=1000");
const ranked = new Map(top.map((r) => [r.account, BigInt(r.balance)]));
must(ranked.size === top.length, "each account once in the ranking");
must(top.every((r, i) => i === 0 || BigInt(top[i - 1].balance) >= BigInt(r.balance)), "richest first");
for (const a of [alice.address, bob.address, minter, aliceJw, bobJw, fake]) {
  const onChain = await client.getBalance(a);
  must(ranked.get(raw(a)) === onChain, `ranked balance of ${raw(a)}: ${ranked.get(raw(a))} vs ${onChain}`);
}

// 11. One more transfer (10 to Bob), built but not sent: the Rust side
// sends it to a devnet whose blocks wait, where it must show as a pending
// jetton_transfer (the emulated trace classified with the token tables).
const pendingBody = alice.wallet.createTransfer({
  seqno: alice.seqno,
  secretKey: alice.keys.secretKey,
  sendMode: SendMode.PAY_GAS_SEPARATELY,
  messages: [
    internal({
      to: aliceJw,
      value: toNano("0.2"),
      body: beginCell()
        .storeUint(0x0f8a7ea5, 32)
        .storeUint(11, 64)
        .storeCoins(10n)
        .storeAddress(bob.address)
        .storeAddress(alice.address)
        .storeBit(0)
        .storeCoins(0)
        .storeBit(0)
        .endCell(),
    }),
  ],
});
const pendingBoc = beginCell()
  .store(storeMessage(external({ to: alice.address, body: pendingBody })))
  .endCell()
  .toBoc()
  .toString("base64");

console.log(
  JSON.stringify({
    ok: true,
    pending_transfer_boc: pendingBoc,
    minter: minter.toRawString(),
    alice_wallet: aliceJw.toRawString(),
    bob_wallet: bobJw.toRawString(),
    fake: fake.toRawString(),
  }),
);
