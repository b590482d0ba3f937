// Nominator pool staking end to end with @ton/ton against `tonindex dev`,
// in two steps.
//
// `prepare FIXTURES` prints the genesis account for the devnet: a pool of
// the TON Foundation's nominator pool code (mainnet's, from tongo's corpus)
// in the masterchain, idle (state 0, not validating), taking up to 40
// nominators of at least 10 TON. Its data follows the layout that decodes
// tongo's mainnet pool to tongo's own reading of it.
//
// `run BASE` funds a basechain v4 wallet, which deposits with the comment
// "d" (the pool's own getter must then count it as a nominator) and
// withdraws with "w" (an idle pool pays at once); Dave, a nominator of the
// genesis pool whose withdrawal request it kept, is paid when the wallet
// sends process_withdraw_requests (op 2); a masterchain wallet's
// deposit, which the pool refuses (nominators live in the basechain), must
// show as a failed stake_deposit.
// Prints one JSON summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, Dictionary } from "@ton/core";
import { devnet, must, raw } from "./devnet_helpers.mjs";

const POOL = Address.parseRaw("-1:" + "5e".repeat(32));
const DAVE_HASH = "d1".repeat(32);
const DAVE = Address.parseRaw("0:" + DAVE_HASH);
const q = (a) => encodeURIComponent(a.toRawString());
const [mode, ...args] = process.argv.slice(2);

if (mode === "prepare") {
  const [fixtures] = args;
  const cases = JSON.parse(readFileSync(`${fixtures}/contracts/tongo-getmethod-cases.json`, "utf8"));
  const code = Cell.fromBoc(Buffer.from(cases.find((c) => c.name === "GetPoolData").code_hex, "hex"))[0];
  // state:uint8 nominators_count:uint16 stake_amount_sent:Coins
  // validator_amount:Coins ^(validator_address:uint256
  // validator_reward_share:uint16 max_nominators_count:uint16
  // min_validator_stake:Coins min_nominator_stake:Coins) nominators:(HashmapE)
  // withdraw_requests:(HashmapE) stake_at:uint32 saved_validator_set_hash:uint256
  // validator_set_changes_count:uint8 validator_set_change_time:uint32
  // stake_held_for:uint32 config_proposal_votings:(HashmapE)
  // One nominator from before, Dave (12 TON), whose withdrawal request
  // the pool kept (as it does while validating): nominators map the
  // address hash to amount:Coins pending_deposit_amount:Coins, requests to
  // nothing.
  const coins2 = {
    serialize: (v, b) => b.storeCoins(v[0]).storeCoins(v[1]),
    parse: (sl) => [sl.loadCoins(), sl.loadCoins()],
  };
  const none = { serialize: () => {}, parse: () => null };
  const nominators = Dictionary.empty(Dictionary.Keys.BigUint(256), coins2);
  nominators.set(BigInt("0x" + DAVE_HASH), [toNano("12"), 0n]);
  const requests = Dictionary.empty(Dictionary.Keys.BigUint(256), none);
  requests.set(BigInt("0x" + DAVE_HASH), null);
  const data = beginCell()
    .storeUint(0, 8)
    .storeUint(1, 16)
    .storeCoins(0n)
    .storeCoins(toNano("1"))
    .storeRef(
      beginCell()
        .storeBuffer(Buffer.alloc(32, 0xab))
        .storeUint(0, 16)
        .storeUint(40, 16)
        .storeCoins(toNano("1"))
        .storeCoins(toNano("10"))
        .endCell(),
    )
    .storeDict(nominators)
    .storeDict(requests)
    .storeUint(0, 32)
    .storeUint(0n, 256)
    .storeUint(0, 8)
    .storeUint(0, 32)
    .storeUint(0, 32)
    .storeBit(0)
    .endCell();
  const spec = `${POOL.toRawString()}:${toNano("22")}:${code.toBoc().toString("base64")}:${data.toBoc().toString("base64")}`;
  console.log(JSON.stringify({ accounts: [spec] }));
} else {
  const [base] = args;
  const { client, getJson, waitFor, newWallet, send, actionOf } = devnet(base);

  const nominator = await newWallet();
  const text = (t) => beginCell().storeUint(0, 32).storeStringTail(t).endCell();
  const poolData = async () => (await client.runMethod(POOL, "get_pool_data")).stack;

  // 0. Anyone may have the pool pay the requests it kept
  // (process_withdraw_requests, op 2): Dave's payout is a stake_withdrawal;
  // the change the pool sends the caller after it is not.
  await send(nominator, [internal({ to: POOL, value: toNano("1"), body: beginCell().storeUint(2, 32).storeUint(5, 64).storeUint(10, 8).endCell() })]);
  const daveTx = await waitFor(
    `/api/v3/transactions?account=${q(DAVE)}&limit=5`,
    (x) => x.transactions.some((t) => t.in_msg?.source === raw(POOL)),
    "Dave's payout",
  );
  const davePaid = daveTx.transactions.find((t) => t.in_msg?.source === raw(POOL)).in_msg.value;
  must(BigInt(davePaid) > toNano("11.9") && BigInt(davePaid) <= toNano("12"), `Dave's payout ${davePaid}`);
  const daveOut = await actionOf(DAVE, "stake_withdrawal");
  const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
  must(daveOut.success === true && sorted(daveOut.details) === sorted({
    provider: "nominator", stake_holder: raw(DAVE), pool: raw(POOL), amount: davePaid,
    payout_nft: null, tokens_burnt: null, asset: null,
  }), `Dave's withdrawal ${JSON.stringify(daveOut)}`);
  const callerActions = await getJson(`/api/v3/actions?account=${q(nominator.address)}&limit=20`);
  must(!callerActions.actions.some((a) => a.type === "stake_withdrawal"), `the caller's change is no withdrawal ${JSON.stringify(callerActions.actions.map((a) => a.type))}`);
  must(callerActions.actions.some((a) => a.type === "call_contract" && a.details.opcode === "0x00000002"), "the call itself");
  let stack0 = await poolData();
  stack0.readNumber();
  must(stack0.readNumber() === 0, "Dave is no nominator any more");

  // 1. Deposit 15 TON with "d".
  await send(nominator, [internal({ to: POOL, value: toNano("15"), body: text("d") })]);
  const deposit = await actionOf(nominator.address, "stake_deposit");
  const dd = deposit.details;
  must(deposit.success === true, `deposit succeeded ${JSON.stringify(deposit)}`);
  must(dd.provider === "nominator" && dd.stake_holder === raw(nominator.address) && dd.pool === raw(POOL), `deposit parties ${JSON.stringify(dd)}`);
  must(dd.amount === toNano("15").toString() && dd.tokens_minted === null && dd.asset === null, `deposit amount ${JSON.stringify(dd)}`);
  let stack = await poolData();
  stack.readNumber();
  must(stack.readNumber() === 1, "the pool counts one nominator");

  // 2. Withdraw with "w": the idle pool pays the stake back at once.
  await send(nominator, [internal({ to: POOL, value: toNano("1"), body: text("w") })]);
  const withdrawal = await actionOf(nominator.address, "stake_withdrawal");
  const wd = withdrawal.details;
  must(withdrawal.success === true && wd.provider === "nominator" && wd.pool === raw(POOL), `withdrawal ${JSON.stringify(withdrawal)}`);
  const txs = await waitFor(
    `/api/v3/transactions?account=${q(nominator.address)}&limit=20&sort=desc`,
    (x) => x.transactions.some((t) => t.in_msg?.source === raw(POOL) && BigInt(t.in_msg.value) > toNano("1")),
    "the payout",
  );
  const payout = txs.transactions.find((t) => t.in_msg?.source === raw(POOL) && BigInt(t.in_msg.value) > toNano("1")).in_msg.value;
  must(wd.amount === payout && wd.stake_holder === raw(nominator.address), `the payout ${payout} in ${JSON.stringify(wd)}`);
  stack = await poolData();
  stack.readNumber();
  must(stack.readNumber() === 0, "no nominator left");

  // 3. A masterchain wallet's deposit is refused and bounced.
  const keys = await mnemonicToPrivateKey(await mnemonicNew());
  const mcWallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: -1 });
  await getJson("/dev/fund", {
    method: "POST",
    body: JSON.stringify({ address: mcWallet.address.toString({ bounceable: false }), amount: toNano("50").toString() }),
  });
  const outsider = { keys, wallet: mcWallet, contract: client.open(mcWallet), address: mcWallet.address, seqno: 0 };
  await send(outsider, [internal({ to: POOL, value: toNano("15"), body: text("d"), bounce: true })]);
  const refused = await actionOf(outsider.address, "stake_deposit");
  must(refused.success === false && refused.details.stake_holder === raw(outsider.address), `refused deposit ${JSON.stringify(refused)}`);
  console.log(JSON.stringify({ ok: true, pool: POOL.toRawString(), payout }));
}
