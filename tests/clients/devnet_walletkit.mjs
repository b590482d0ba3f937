// @ton/walletkit's Streaming API v2 client — its TonCenterStreamingProvider,
// unchanged (vendor/walletkit.mjs) — against `tonindex dev
// --block-interval 1500 --confirm-gap 700` (argv[2] = base URL, argv[3] =
// the test data directory). A wallet app watches Alice's balance,
// transactions and Jettons as walletkit does (one WebSocket, its
// `subscribe` with min_finality pending and metadata, its pings, its
// `unsubscribe`), while Bob pays Alice, Alice's Jetton wallet gets a mint,
// and Alice signs two transfers with one seqno. What walletkit hands the
// app must match what API v3 says afterwards: each trace pending →
// confirmed → finalized with the transaction v3 holds, balances and the
// Jetton balance (with decimals from the metadata) at both levels, the
// transfer that was never executed withdrawn ("invalidated"); and
// walletkit must have logged no warning (it drops a notification it
// cannot map with one). Prints one JSON summary; a failed expectation throws.
import { WebSocket as WsSocket } from "ws";
import { toNano } from "@ton/ton";
import { devnet, must, raw, until } from "./devnet_helpers.mjs";

const [base, fixtures] = process.argv.slice(2);
const { getJson, waitFor, aliceBobAndJetton, payMintAndDoubleSign } = devnet(base);

// walletkit expects a global WebSocket (browsers, React Native, Node 22);
// Node 20 gets ws's. Every frame each way is kept to check the protocol.
const frames = { sent: [], received: [] };
class RecordedSocket extends WsSocket {
  constructor(url) {
    super(url);
    this.addEventListener("message", (e) => frames.received.push(JSON.parse(e.data)));
  }
  send(data) {
    frames.sent.push(JSON.parse(data));
    super.send(data);
  }
}
globalThis.WebSocket = RecordedSocket;
// walletkit logs (and drops) a notification it cannot take at `warn`.
const complaints = [];
for (const level of ["warn", "error"]) {
  const original = console[level];
  console[level] = (...args) => {
    complaints.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    original(...args);
  };
}
process.env.WALLETKIT_LOG_LEVEL = "warn";
const { TonCenterStreamingProvider } = await import("./vendor/walletkit.mjs");

const hex = (b64) => `0x${Buffer.from(b64, "base64").toString("hex")}`;
// Alice and Bob, and a Jetton with Alice's wallet made before anyone watches.
const { alice, bob, jetton, aliceJw } = await aliceBobAndJetton(fixtures, {
  name: "Walletkit Coin",
  symbol: "WKC",
  decimals: "6",
});

// The app watches Alice.
const provider = new TonCenterStreamingProvider(
  {},
  { network: { chainId: "-239" }, endpoint: base.replace(/^http/, "ws") },
);
const me = alice.address.toString();
const got = { balance: [], transactions: [], jettons: [] };
const stops = [
  provider.watchBalance(me, (u) => got.balance.push(u)),
  provider.watchTransactions(me, (u) => got.transactions.push(u)),
  provider.watchJettons(me, (u) => got.jettons.push(u)),
];
const subscribed = () => {
  const sub = frames.sent.find((f) => f.operation === "subscribe" && f.types?.length === 3);
  return sub && frames.received.some((f) => f.id === sub.id && f.status === "subscribed");
};
await until(subscribed, "walletkit's subscription answered");
const subscription = frames.sent.find((f) => f.operation === "subscribe");
must(
  subscription.min_finality === "pending" && subscription.include_metadata === true &&
    JSON.stringify(subscription.addresses) === JSON.stringify([me]),
  `walletkit's subscription ${JSON.stringify(subscription)}`,
);

// Bob pays Alice; a mint to her Jetton wallet; two transfers she signs
// with one seqno, the second refused by the chain.
await payMintAndDoubleSign({ alice, bob, jetton });

// What v3 holds once all is final.
const v3 = await waitFor(
  `/api/v3/transactions?account=${encodeURIComponent(alice.address.toRawString())}&limit=20&sort=desc`,
  (r) => r.transactions.length >= 6,
  "Alice's transactions",
);
const fromBob = v3.transactions.find(
  (t) => t.in_msg?.source === raw(bob.address) && t.in_msg.value === toNano("1").toString(),
);
must(fromBob, `Bob's payment in v3 ${JSON.stringify(v3.transactions.map((t) => t.in_msg?.source))}`);
const byTrace = (traceHash) => got.transactions.filter((u) => u.traceHash === traceHash);
const finalizedWith = (hash) =>
  got.transactions.find((u) => u.status === "finalized" && u.transactions.some((t) => t.hash === hex(hash)));
await until(() => finalizedWith(fromBob.hash), "Bob's payment finalized in walletkit");

// Bob's payment: pending, confirmed, finalized — each with Alice's
// transaction alone, the finalized one the transaction v3 holds.
const payment = byTrace(finalizedWith(fromBob.hash).traceHash);
must(
  JSON.stringify(payment.map((u) => u.status)) === JSON.stringify(["pending", "confirmed", "finalized"]),
  `the payment's levels ${JSON.stringify(payment.map((u) => u.status))}`,
);
for (const u of payment) {
  must(u.address === me && u.transactions.length === 1 && u.transactions[0].account === me, `Alice's only ${JSON.stringify(u)}`);
  must(u.transactions[0].isEmulated === (u.status === "pending"), `emulated only at pending: ${u.status}`);
  must(u.transactions[0].inMessage.value === toNano("1").toString(), `the payment's value at ${u.status}`);
}
const final = payment[2].transactions[0];
must(final.hash === hex(fromBob.hash), `the finalized transaction ${final.hash} is v3's ${hex(fromBob.hash)}`);
must(final.logicalTime === fromBob.lt && final.now === fromBob.now, "lt and time");
must(final.accountStateAfter.balance === fromBob.account_state_after.balance, "the balance after");
must(final.description.computePhase.isSuccess === true, "the compute phase");
must(payment[1].transactions[0].hash === final.hash, "confirmed: the same transaction");

// The double-signed pair: one finalized, the other withdrawn.
await until(() => got.transactions.some((u) => u.status === "invalidated"), "the refused transfer withdrawn");
const toBob = (u) =>
  u.transactions.some((t) => t.outMessages.some((m) => [toNano("0.1"), toNano("0.2")].map(String).includes(m.value)));
const pair = [...new Set(got.transactions.filter(toBob).map((u) => u.traceHash))];
const levels = (h) => byTrace(h).map((u) => u.status);
must(pair.length === 2, `two traces of the double-signed pair ${JSON.stringify(pair.map(levels))}`);
const [refused, kept] = levels(pair[0]).includes("invalidated") ? pair : [pair[1], pair[0]];
must(JSON.stringify(levels(refused)) === JSON.stringify(["pending", "invalidated"]), `the refused one ${levels(refused)}`);
must(JSON.stringify(levels(kept)) === JSON.stringify(["pending", "confirmed", "finalized"]), `the executed one ${levels(kept)}`);
const invalidated = got.transactions.filter((u) => u.status === "invalidated");
must(invalidated.length === 1 && invalidated[0].address === me, `one withdrawal, Alice's ${JSON.stringify(invalidated)}`);

// Balances: at confirmed and at finalized, the newest finalized one v3's.
const account = await getJson(`/api/v3/account?address=${encodeURIComponent(alice.address.toRawString())}`);
await until(() => got.balance.at(-1)?.status === "finalized" && got.balance.at(-1).rawBalance === account.balance, "the newest balance");
must(got.balance.every((u) => u.address === me && ["confirmed", "finalized"].includes(u.status)), "balance levels");
for (const u of got.balance.filter((b) => b.status === "confirmed")) {
  must(got.balance.some((f) => f.status === "finalized" && f.rawBalance === u.rawBalance), `confirmed ${u.rawBalance} finalized too`);
}

// The Jetton: the mint at confirmed, then finalized, with decimals from
// the master's metadata.
await until(() => got.jettons.some((u) => u.status === "finalized"), "the Jetton change finalized");
must(
  JSON.stringify(got.jettons.map((u) => [u.status, u.rawBalance, u.balance, u.decimals])) ===
    JSON.stringify([["confirmed", "1500", "0.0015", 6], ["finalized", "1500", "0.0015", 6]]),
  `the Jetton changes ${JSON.stringify(got.jettons)}`,
);
for (const u of got.jettons) {
  must(u.masterAddress === jetton.address.toString() && u.walletAddress === aliceJw.toString() && u.ownerAddress === me, `the Jetton's addresses ${JSON.stringify(u)}`);
}

// walletkit pings every 10 s; the answer is its pong.
await until(() => frames.received.some((f) => f.status === "pong" && String(f.id).startsWith("ping-")), "a pong", 15000);
// Unwatched, walletkit unsubscribes its addresses.
for (const stop of stops) stop();
await until(() => {
  const un = frames.sent.find((f) => f.operation === "unsubscribe");
  return un && frames.received.some((f) => f.id === un.id && f.status === "unsubscribed");
}, "the unsubscription answered");
must(!frames.received.some((f) => "error" in f), `no error frame ${JSON.stringify(frames.received.filter((f) => "error" in f))}`);
must(complaints.length === 0, `walletkit complained: ${complaints.join(" | ")}`);
provider.disconnect();
console.log(
  JSON.stringify({
    ok: true,
    payment: payment.map((u) => u.status),
    balances: got.balance.map((u) => [u.status, u.rawBalance]),
    jettons: got.jettons.map((u) => [u.status, u.balance]),
    withdrawn: refused,
    frames: { sent: frames.sent.length, received: frames.received.length },
  }),
);
process.exit(0);
