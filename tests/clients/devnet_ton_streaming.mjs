// @ton/ton's own Streaming API v2 clients — TonSseClient and TonWsClient,
// unchanged (vendor/ton-streaming.mjs) — against `tonindex dev
// --block-interval 1500 --confirm-gap 700` (argv[2] = base URL, argv[3] =
// the test data directory). Both subscribe to Alice from `pending` on,
// with address book and metadata, while Bob pays her, her known Jetton
// wallet gets a mint, and she signs two transfers with one seqno. Each
// client parses every notification with its own protocol reader (a
// notification it cannot read is an "error" event): none may fail; the
// payment comes pending → confirmed → finalized as the transaction v3 then
// holds; the balance and the Jetton at confirmed and finalized; the refused
// transfer withdrawn (trace_invalidated), never finalized; and the two
// transports hear the same (the WebSocket at TonAPI's path). Prints one
// JSON summary; a failed expectation throws.
import { WebSocket } from "ws";
import { toNano } from "@ton/ton";
import { devnet, must, raw, until } from "./devnet_helpers.mjs";
import { TonSseClient, TonWsClient } from "./vendor/ton-streaming.mjs";

const [base, fixtures] = process.argv.slice(2);
const { getJson, waitFor, aliceBobAndJetton, payMintAndDoubleSign } = devnet(base);
// Alice and Bob, and a Jetton with Alice's wallet made before anyone listens.
const { alice, bob, jetton, aliceJw } = await aliceBobAndJetton(fixtures, {
  name: "Streaming Coin",
  symbol: "STC",
  decimals: "9",
});

// Both transports, each with every kind of event and its errors kept:
// SSE at toncenter's path, the WebSocket at TonAPI's (no `/api`).
const stream = base.replace(/^http/, "ws");
const clients = {
  sse: new TonSseClient({ endpoint: `${base}/api/streaming/v2/sse` }),
  ws: new TonWsClient({ endpoint: `${stream}/streaming/v2/ws`, WebSocket }),
};
const heard = { sse: [], ws: [] };
const errors = [];
for (const [name, client] of Object.entries(clients)) {
  for (const kind of ["transactions", "actions", "account_state_change", "jettons_change", "trace_invalidated"]) {
    client.on(kind, (e) => heard[name].push(e));
  }
  client.on("error", (e) => errors.push(`${name}: ${e.message}`));
  await client.subscribe({
    addresses: [alice.address.toString()],
    types: ["transactions", "actions", "account_state_change", "jettons_change"],
    minFinality: "pending",
    includeAddressBook: true,
    includeMetadata: true,
  });
}

// Bob pays Alice; a mint to her Jetton wallet; two transfers she signs
// with one seqno, the second refused by the chain.
await payMintAndDoubleSign({ alice, bob, jetton });

const history = (
  await waitFor(`/api/v3/transactions?account=${encodeURIComponent(raw(alice.address))}&limit=20`, (r) => r.transactions.length >= 6, "Alice's history")
).transactions;
const payment = history.find((t) => t.in_msg?.source === raw(bob.address) && t.in_msg.value === toNano("1").toString());
const account = await getJson(`/api/v3/account?address=${encodeURIComponent(raw(alice.address))}`);
const summary = {};
for (const name of ["sse", "ws"]) {
  const events = heard[name];
  const of = (type) => events.filter((e) => e.type === type);
  await until(
    () =>
      of("transactions").some((e) => e.finality === "finalized" && e.transactions.some((t) => t.hash === payment.hash)) &&
      of("trace_invalidated").length === 1 &&
      of("jettons_change").some((e) => e.finality === "finalized") &&
      of("account_state_change").some((e) => e.finality === "finalized" && e.state.balance === account.balance),
    `${name}: everything heard`,
  );
  // The payment, at every level, in order; the finalized one is v3's.
  const paymentKey = of("transactions").find((e) => e.transactions.some((t) => t.hash === payment.hash)).trace_external_hash_norm;
  const levels = (key) => of("transactions").filter((e) => e.trace_external_hash_norm === key).map((e) => e.finality);
  must(JSON.stringify(levels(paymentKey)) === JSON.stringify(["pending", "confirmed", "finalized"]), `${name}: the payment's levels ${levels(paymentKey)}`);
  const finalTx = of("transactions").find((e) => e.trace_external_hash_norm === paymentKey && e.finality === "finalized").transactions[0];
  must(finalTx.hash === payment.hash && finalTx.lt === payment.lt && finalTx.emulated === false, `${name}: v3's transaction`);
  // Its actions: a ton_transfer of 1 TON at each level.
  const transfers = of("actions").filter((e) => e.trace_external_hash_norm === paymentKey).map((e) => [e.finality, e.actions.find((a) => a.type === "ton_transfer")?.details?.value]);
  must(JSON.stringify(transfers) === JSON.stringify(["pending", "confirmed", "finalized"].map((f) => [f, toNano("1").toString()])), `${name}: the payment's actions ${JSON.stringify(transfers)}`);
  // The refused transfer: pending, then withdrawn, never finalized.
  const refused = of("trace_invalidated")[0].trace_external_hash_norm;
  must(JSON.stringify(levels(refused)) === JSON.stringify(["pending"]), `${name}: the refused one ${levels(refused)}`);
  // Balances and the Jetton at confirmed and finalized, the newest v3's.
  const states = of("account_state_change");
  must(states.every((e) => e.account === raw(alice.address) && ["confirmed", "finalized"].includes(e.finality)), `${name}: states`);
  for (const e of states.filter((s) => s.finality === "confirmed")) {
    must(states.some((f) => f.finality === "finalized" && f.state.hash === e.state.hash), `${name}: confirmed state ${e.state.hash} final too`);
  }
  const jettons = of("jettons_change").map((e) => [e.finality, e.jetton.address, e.jetton.balance, e.metadata?.[raw(jetton.address)]?.token_info?.[0]?.symbol]);
  must(
    JSON.stringify(jettons) === JSON.stringify(["confirmed", "finalized"].map((f) => [f, raw(aliceJw), "1500", "STC"])),
    `${name}: the Jetton ${JSON.stringify(jettons)}`,
  );
  must(of("transactions").every((e) => e.address_book && e.address_book[raw(alice.address)]), `${name}: address books`);
  summary[name] = events.map((e) => `${e.type}:${e.finality ?? "-"}`);
}
must(errors.length === 0, `the clients read every notification: ${errors.join(" | ")}`);
const key = (e) => `${e.type}|${e.finality}|${e.trace_external_hash_norm ?? e.state?.hash ?? e.jetton?.last_transaction_lt}`;
must(
  JSON.stringify(heard.sse.map(key).sort()) === JSON.stringify(heard.ws.map(key).sort()),
  `both transports heard the same:\n${heard.sse.map(key).sort().join("\n")}\nvs\n${heard.ws.map(key).sort().join("\n")}`,
);
await clients.sse.close();
await clients.ws.close();
console.log(JSON.stringify({ ok: true, heard: summary.sse.length, kinds: [...new Set(summary.sse)] }));
process.exit(0);
