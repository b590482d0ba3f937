// Multisig v2 and a vesting wallet end to end with @ton/ton against
// `tonindex dev` started with the multisig's Order code as a public library
// (argv[2] = base URL, argv[3] = the test data directory, tests/data/fixtures). Codes are
// ton-blockchain's builds from the fixtures; messages follow the contracts'
// TL-B. A 2-of-2 multisig (Alice, Bob) gets an order from Alice — a TON
// transfer with a comment, a Jetton transfer body, and a parameter update
// making Carol a proposer and the threshold 1 — which Bob approves, so it
// executes. A vesting wallet (sender Alice, owner Bob) is deployed and
// Alice whitelists Carol. The v3 endpoints must show what these steps
// imply; addresses come from the contracts' own get-methods and @ton/core.
// Prints one JSON summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { internal, toNano } from "@ton/ton";
import { beginCell, Cell, Dictionary, contractAddress, storeMessageRelaxed } from "@ton/core";
import { devnet, must, raw } from "./devnet_helpers.mjs";

const [base, fixtures] = process.argv.slice(2);
const { client, getJson, waitFor, newWallet, send, actionOf } = devnet(base);
const code = (path) =>
  Cell.fromBoc(Buffer.from(JSON.parse(readFileSync(`${fixtures}/contracts/${path}`, "utf8")).hex, "hex"))[0];
const multisigCode = code("multisig-v2/Multisig.compiled.json");
const vestingCode = code("vesting/VestingWallet.compiled.json");
const q = (a) => encodeURIComponent(a.toRawString());

const alice = await newWallet();
const bob = await newWallet();
const carol = await newWallet();
for (const w of [alice, bob, carol]) {
  await send(w, [internal({ to: alice.address, value: toNano("0.01"), bounce: false })]);
}

// 1. The multisig: next_order_seqno:uint256 threshold:uint8 signers:^(dict)
//    signers_num:uint8 proposers:(HashmapE 8) allow_arbitrary_seqno:Bool.
const addressDict = (list) => {
  const d = Dictionary.empty(Dictionary.Keys.Uint(8), Dictionary.Values.Address());
  list.forEach((a, i) => d.set(i, a));
  return d;
};
const multisigInit = {
  code: multisigCode,
  data: beginCell()
    .storeUint(0, 256)
    .storeUint(2, 8)
    .storeRef(beginCell().storeDictDirect(addressDict([alice.address, bob.address])))
    .storeUint(2, 8)
    .storeDict(null)
    .storeBit(false)
    .endCell(),
};
const multisig = contractAddress(0, multisigInit);
await send(alice, [
  internal({ to: multisig, value: toNano("1"), init: multisigInit, body: beginCell().storeUint(0, 32).storeUint(0, 64).endCell() }),
]);
const ms0 = await waitFor(`/api/v3/multisig/wallets?address=${q(multisig)}`, (r) => r.multisigs.length === 1, "the multisig");
const m0 = ms0.multisigs[0];
must(m0.threshold === 2 && m0.next_order_seqno === "0", `multisig row ${JSON.stringify(m0)}`);
must(JSON.stringify(m0.signers) === JSON.stringify([raw(alice.address), raw(bob.address)]), "signers");
must(m0.proposers.length === 0 && m0.orders === null, "no proposers, no orders yet");
must(m0.code_hash === multisigCode.hash().toString("base64"), "code hash");

// 2. Alice proposes order 0 (and approves it as signer 0).
const comment = (text) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();
const jettonTransfer = beginCell()
  .storeUint(0x0f8a7ea5, 32)
  .storeUint(5, 64)
  .storeCoins(100n)
  .storeAddress(bob.address)
  .storeAddress(alice.address)
  .storeBit(0)
  .storeCoins(1n)
  .storeBit(0)
  .storeUint(0, 32)
  .storeStringTail("gm")
  .endCell();
const transferAction = (mode, to, value, body) =>
  beginCell()
    .storeUint(0xf1381e5b, 32)
    .storeUint(mode, 8)
    .storeRef(beginCell().store(storeMessageRelaxed(internal({ to, value, body, bounce: false }))).endCell())
    .endCell();
const updateAction = beginCell()
  .storeUint(0x1d0cfbd3, 32)
  .storeUint(1, 8)
  .storeRef(beginCell().storeDictDirect(addressDict([alice.address, bob.address])))
  .storeDict(addressDict([carol.address]))
  .endCell();
const actions = Dictionary.empty(Dictionary.Keys.Uint(8), Dictionary.Values.Cell());
actions.set(0, transferAction(3, carol.address, toNano("0.1"), comment("from the multisig")));
actions.set(1, transferAction(1, alice.address, toNano("0.02"), jettonTransfer));
actions.set(2, updateAction);
const orderCell = beginCell().storeDictDirect(actions).endCell();
const expiration = Math.floor(Date.now() / 1000) + 3600;
await send(alice, [
  internal({
    to: multisig,
    value: toNano("1"),
    body: beginCell()
      .storeUint(0xf718510f, 32)
      .storeUint(1, 64)
      .storeUint(0, 256)
      .storeBit(1)
      .storeUint(0, 8)
      .storeUint(expiration, 48)
      .storeRef(orderCell)
      .endCell(),
  }),
]);
const derived = await client.runMethod(multisig, "get_order_address", [{ type: "int", value: 0n }]);
const order = derived.stack.readAddress();
const o1 = await waitFor(`/api/v3/multisig/orders?address=${q(order)}`, (r) => r.orders.length === 1, "the order");
const o = o1.orders[0];
must(o.multisig_address === raw(multisig) && o.order_seqno === "0" && o.threshold === 2, `order row ${JSON.stringify(o)}`);
must(o.approvals_num === 1 && o.approvals_mask === "1" && o.sent_for_execution === false, "Alice's approval");
must(o.expiration_date === expiration && o.actions === null, "expiration; no actions unless asked");
must(Cell.fromBase64(o.order_boc).hash().equals(orderCell.hash()), "the order's actions cell");
const withOrders = await getJson(`/api/v3/multisig/wallets?wallet_address=${q(bob.address)}`);
must(withOrders.multisigs.length === 1 && withOrders.multisigs[0].next_order_seqno === "1", "next seqno after the order");
must(withOrders.multisigs[0].orders.length === 1 && withOrders.multisigs[0].orders[0].address === raw(order), "the multisig's orders");
const noOrders = await getJson(`/api/v3/multisig/wallets?wallet_address=${q(bob.address)}&include_orders=false`);
must(Array.isArray(noOrders.multisigs[0].orders) && noOrders.multisigs[0].orders.length === 0, "include_orders=false");
const byCarol = await getJson(`/api/v3/multisig/wallets?wallet_address=${q(carol.address)}`);
must(byCarol.multisigs.length === 0, "Carol is nobody yet");

// The order's creation as an action, seen by Bob too: every signer is one
// of a multisig action's accounts.
const created = await actionOf(bob.address, "multisig_create_order");
const cd = created.details;
must(created.success === true, `create_order succeeded ${JSON.stringify(created)}`);
must(cd.source === raw(alice.address) && cd.destination === raw(multisig) && cd.destination_order === raw(order), `create_order parties ${JSON.stringify(cd)}`);
must(cd.query_id === "1" && cd.order_seqno === "0" && cd.creator_index === 0 && cd.expiration_date === expiration, `create_order fields ${JSON.stringify(cd)}`);
must(cd.is_created_by_signer === true && cd.is_signed_by_creator === true, "created and signed by signer 0");
must(Cell.fromBase64(cd.order_boc).hash().equals(orderCell.hash()), "create_order's order_boc");

// 3. The actions, decoded.
const parsed = (await getJson(`/api/v3/multisig/orders?multisig_address=${q(multisig)}&parse_actions=true`)).orders[0].actions;
must(parsed.length === 3, `three actions ${JSON.stringify(parsed)}`);
must(parsed[0].parsed_body_type === "ton_transfer" && parsed[0].parsed_body.comment === "from the multisig", `comment ${JSON.stringify(parsed[0])}`);
must(parsed[0].destination === raw(carol.address) && parsed[0].value === toNano("0.1").toString() && parsed[0].send_mode === 3, "transfer action");
const jt = parsed[1].parsed_body;
must(parsed[1].parsed_body_type === "jetton_transfer" && jt.amount === "100" && jt.query_id === 5, `jetton transfer ${JSON.stringify(parsed[1])}`);
must(jt.destination === raw(bob.address) && jt.response === raw(alice.address) && jt.forward_amount === "1", "jetton transfer fields");
must(jt.payload_sum_type === "TextComment" && jt.comment === "gm", "forward payload comment");
must(Cell.fromBase64(parsed[1].body_raw).hash().equals(jettonTransfer.hash()), "body_raw");
must(parsed[2].parsed_body_type === "multisig_update_params" && parsed[2].parsed_body.new_threshold === 1, `update ${JSON.stringify(parsed[2])}`);
must(JSON.stringify(parsed[2].parsed_body.new_proposers) === JSON.stringify([raw(carol.address)]), "new proposers");

// 4. Bob approves: approve#a762230f query_id signer_index:uint8 — the order executes.
const carolBefore = await client.getBalance(carol.address);
await send(bob, [
  internal({ to: order, value: toNano("0.1"), body: beginCell().storeUint(0xa762230f, 32).storeUint(2, 64).storeUint(1, 8).endCell() }),
]);
const done = await waitFor(
  `/api/v3/multisig/orders?address=${q(order)}`,
  (r) => r.orders[0]?.sent_for_execution === true,
  "the order's execution",
);
must(done.orders[0].approvals_num === 2 && done.orders[0].approvals_mask === "3", `both approvals ${JSON.stringify(done.orders[0])}`);
const updated = await waitFor(
  `/api/v3/multisig/wallets?wallet_address=${q(carol.address)}`,
  (r) => r.multisigs.length === 1,
  "Carol as proposer",
);
must(updated.multisigs[0].threshold === 1, "the new threshold");
must(JSON.stringify(updated.multisigs[0].proposers) === JSON.stringify([raw(carol.address)]), "the new proposers");
must((await client.getBalance(carol.address)) > carolBefore, "Carol was paid by the order");

// Bob's approval and the execution as actions; the signers hash is the
// hash of the multisig's signers dictionary.
const approved = await actionOf(bob.address, "multisig_approve");
must(approved.success === true, `approve succeeded ${JSON.stringify(approved)}`);
const ad = approved.details;
must(ad.source === raw(bob.address) && ad.destination === raw(order) && ad.signer_index === 1 && ad.exit_code === 0, `approve ${JSON.stringify(ad)}`);
const executed = await actionOf(alice.address, "multisig_execute");
const ed = executed.details;
must(executed.success === true && ed.source === raw(order) && ed.destination === raw(multisig), `execute ${JSON.stringify(executed)}`);
must(ed.order_seqno === "0" && ed.approvals_num === 2 && ed.expiration_date === expiration, `execute fields ${JSON.stringify(ed)}`);
must(Cell.fromBase64(ed.order_boc).hash().equals(orderCell.hash()), "execute's order_boc");
const signersCell = beginCell().storeDictDirect(addressDict([alice.address, bob.address])).endCell();
must(Buffer.from(ed.signers_hash, "base64").equals(signersCell.hash()), `signers hash ${ed.signers_hash}`);
const paid = await actionOf(carol.address, "ton_transfer", (a) => a.details.source === raw(multisig));
must(paid.details.comment === "from the multisig", "the order's transfer stays an action of its own");

// Alice approves again by comment: the executed order rejects it, with
// the exit code its answer carries.
await send(alice, [internal({ to: order, value: toNano("0.05"), body: comment("approve") })]);
const rejected = await actionOf(alice.address, "multisig_approve", (a) => a.details.source === raw(alice.address));
const answer = await waitFor(
  `/api/v3/transactions?account=${q(alice.address)}&limit=50&sort=desc`,
  (x) => x.transactions.some((t) => t.in_msg?.opcode === "0xafaf283e"),
  "the rejection",
);
const rejectionBody = Cell.fromBase64(answer.transactions.find((t) => t.in_msg?.opcode === "0xafaf283e").in_msg.message_content.body).beginParse();
rejectionBody.skip(32 + 64);
const exitCode = rejectionBody.loadUint(32);
must(exitCode !== 0, "a rejection carries an exit code");
must(rejected.success === false && rejected.details.exit_code === exitCode, `rejected approval ${JSON.stringify(rejected)}`);
must(rejected.details.signer_index === -1 && rejected.details.destination === raw(order), "an approval by comment has no index");
const missing = await fetch(`${base}/api/v3/multisig/wallets`);
must(missing.status === 422, "a filter is required");
const missingOrders = await fetch(`${base}/api/v3/multisig/orders?parse_actions=true`);
must(missingOrders.status === 422, "a filter is required for orders");

// 5. A vesting wallet: seqno subwallet public_key whitelist:(HashmapE 264)
//    ^(start_time:uint64 total_duration:uint32 unlock_period:uint32
//      cliff_duration:uint32 total_amount:Coins sender owner).
const start = Math.floor(Date.now() / 1000);
const vestingInit = {
  code: vestingCode,
  data: beginCell()
    .storeUint(0, 32)
    .storeUint(698983191, 32)
    .storeBuffer(randomBytes(32))
    .storeBit(0)
    .storeRef(
      beginCell()
        .storeUint(start, 64)
        .storeUint(31104000, 32)
        .storeUint(2592000, 32)
        .storeUint(0, 32)
        .storeCoins(toNano("5"))
        .storeAddress(alice.address)
        .storeAddress(bob.address)
        .endCell(),
    )
    .endCell(),
};
const vesting = contractAddress(0, vestingInit);
await send(alice, [internal({ to: vesting, value: toNano("5.5"), init: vestingInit, bounce: false })]);
const v0 = await waitFor(`/api/v3/vesting?wallet_address=${q(bob.address)}`, (r) => r.vesting_contracts.length === 1, "the vesting wallet");
const v = v0.vesting_contracts[0];
must(v.address === raw(vesting) && v.start_time === start && v.total_duration === 31104000, `vesting row ${JSON.stringify(v)}`);
must(v.unlock_period === 2592000 && v.cliff_duration === 0 && v.total_amount === toNano("5").toString(), "vesting terms");
must(v.sender_address === raw(alice.address) && v.owner_address === raw(bob.address) && v.whitelist.length === 0, "vesting parties");
// add_whitelist#7258a69b query_id addr, from the sender.
await send(alice, [
  internal({ to: vesting, value: toNano("0.1"), body: beginCell().storeUint(0x7258a69b, 32).storeUint(3, 64).storeAddress(carol.address).endCell() }),
]);
const white = await waitFor(
  `/api/v3/vesting?contract_address=${q(vesting)}`,
  (r) => r.vesting_contracts[0]?.whitelist.length === 1,
  "the whitelist",
);
must(white.vesting_contracts[0].whitelist[0] === raw(carol.address), "Carol whitelisted");
const carolPlain = await getJson(`/api/v3/vesting?wallet_address=${q(carol.address)}`);
must(carolPlain.vesting_contracts.length === 0, "whitelisted only with check_whitelist");
const carolChecked = await getJson(`/api/v3/vesting?wallet_address=${q(carol.address)}&check_whitelist=true`);
must(carolChecked.vesting_contracts.length === 1, "check_whitelist finds it");
const both = await fetch(`${base}/api/v3/vesting?wallet_address=${q(carol.address)}&contract_address=${q(vesting)}`);
must(both.status === 422, "not both filters");
const neither = await fetch(`${base}/api/v3/vesting`);
must(neither.status === 422, "one filter is required");

console.log(JSON.stringify({ ok: true, multisig: multisig.toRawString(), order: order.toRawString(), vesting: vesting.toRawString() }));
