// Validator elections end to end with @ton/ton against `tonindex dev`, in
// two steps.
//
// `prepare FIXTURES` prints the genesis accounts: mainnet's elector code
// (from the elector account in ton-core's fixture) at the elector address,
// its data (in the layout its code loads: elect, credits, past_elections,
// grams, active_id, active_hash) holding open elections with a 10 TON
// minimum stake and a 5 TON credit for a masterchain v4 wallet of a fresh
// mnemonic (printed too).
//
// `run BASE MNEMONIC_JSON`: the wallet recovers its credit (the elector's
// own getter says what it holds before and nothing after; the action's
// amount is what the elector sent), stakes with a bad signature (the
// elector returns the stake: a failed election_deposit), and stakes
// properly signed (the elector confirms and counts the stake). Prints one
// JSON summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { mnemonicNew, mnemonicToPrivateKey, sign, keyPairFromSeed } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, Dictionary, loadAccount } from "@ton/core";
import { randomBytes } from "node:crypto";
import { devnet, must, raw } from "./devnet_helpers.mjs";

const ELECTOR = Address.parseRaw("-1:" + "33".repeat(32));
const q = (a) => encodeURIComponent(a.toRawString());
const [mode, ...args] = process.argv.slice(2);
const walletOf = async (mnemonic) => {
  const keys = await mnemonicToPrivateKey(mnemonic);
  return { keys, wallet: WalletContractV4.create({ publicKey: keys.publicKey, workchain: -1 }) };
};

if (mode === "prepare") {
  const [fixtures] = args;
  // The fixture is an `Account` with its leading account$1 tag.
  const accountSlice = Cell.fromBase64(readFileSync(`${fixtures}/accounts/ton-core/accountState.txt`, "utf8").trim()).beginParse();
  must(accountSlice.loadBit(), "an account, not account_none");
  const account = loadAccount(accountSlice);
  const code = account.storage.state.state.code;
  const mnemonic = await mnemonicNew();
  const { wallet } = await walletOf(mnemonic);
  const now = Math.floor(Date.now() / 1000);
  const electAt = now + 100000;
  // elect: elect_at:uint32 elect_close:uint32 min_stake:Coins
  // total_stake:Coins members:(HashmapE 256) failed:Bool finished:Bool
  const elect = beginCell()
    .storeUint(electAt, 32)
    .storeUint(electAt - 8192, 32)
    .storeCoins(toNano("10"))
    .storeCoins(0n)
    .storeBit(0)
    .storeBit(0)
    .storeBit(0)
    .endCell();
  const credits = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.BigVarUint(4));
  credits.set(BigInt("0x" + wallet.address.hash.toString("hex")), toNano("5"));
  const data = beginCell()
    .storeMaybeRef(elect)
    .storeDict(credits)
    .storeBit(0)
    .storeCoins(0n)
    .storeUint(0, 32)
    .storeUint(0n, 256)
    .endCell();
  const b64 = (c) => c.toBoc().toString("base64");
  console.log(
    JSON.stringify({
      accounts: [`${ELECTOR.toRawString()}:${toNano("100")}:${b64(code)}:${b64(data)}`],
      mnemonic,
      elect_at: electAt,
    }),
  );
} else {
  const [base, mnemonicJson, electAtText] = args;
  const electAt = Number(electAtText);
  const { client, getJson, waitFor } = devnet(base);
  const { keys, wallet } = await walletOf(JSON.parse(mnemonicJson));
  await getJson("/dev/fund", {
    method: "POST",
    body: JSON.stringify({ address: wallet.address.toString({ bounceable: false }), amount: toNano("100").toString() }),
  });
  const w = { keys, contract: client.open(wallet), seqno: 0 };
  const send = async (value, body) => {
    await w.contract.sendTransfer({ seqno: w.seqno, secretKey: keys.secretKey, messages: [internal({ to: ELECTOR, value, body })], sendMode: 1 });
    w.seqno += 1;
    for (let i = 0; i < 100 && (await w.contract.getSeqno()) < w.seqno; i++) await new Promise((r) => setTimeout(r, 100));
  };
  const actions = async (type, n) =>
    (
      await waitFor(
        `/api/v3/actions?account=${q(wallet.address)}&limit=100&sort=asc`,
        (x) => x.actions.filter((a) => a.type === type).length >= n,
        `${n} ${type} actions`,
      )
    ).actions.filter((a) => a.type === type);
  const walletId = BigInt("0x" + wallet.address.hash.toString("hex"));
  const returned = async () =>
    (await client.runMethod(ELECTOR, "compute_returned_stake", [{ type: "int", value: walletId }])).stack.readBigNumber();

  // 1. Recover the credit.
  must((await returned()) === toNano("5"), "the elector holds 5 TON for the wallet");
  await send(toNano("1"), beginCell().storeUint(0x47657424, 32).storeUint(1, 64).endCell());
  const [recovered] = await actions("election_recover", 1);
  const answer = (
    await waitFor(
      `/api/v3/transactions?account=${q(wallet.address)}&limit=20&sort=desc`,
      (x) => x.transactions.some((t) => t.in_msg?.opcode === "0xf96f7324"),
      "the elector's answer",
    )
  ).transactions.find((t) => t.in_msg?.opcode === "0xf96f7324").in_msg;
  must(recovered.success === true && recovered.details.stake_holder === raw(wallet.address), `recover ${JSON.stringify(recovered)}`);
  must(recovered.details.amount === answer.value && BigInt(answer.value) >= toNano("5"), `recovered amount ${JSON.stringify(recovered.details)} vs ${answer.value}`);
  must((await returned()) === 0n, "nothing left to recover");

  // 2. new_stake#4e73744b query_id validator_pubkey stake_at max_factor
  //    adnl_addr ^signature, the signature over 0x654c5074 stake_at
  //    max_factor src_addr adnl_addr.
  const validator = keyPairFromSeed(randomBytes(32));
  const adnl = randomBytes(32);
  const maxFactor = 65536 * 3;
  const signed = beginCell()
    .storeUint(0x654c5074, 32)
    .storeUint(electAt, 32)
    .storeUint(maxFactor, 32)
    .storeBuffer(wallet.address.hash)
    .storeBuffer(adnl)
    .endCell();
  const stake = (signature) =>
    beginCell()
      .storeUint(0x4e73744b, 32)
      .storeUint(2, 64)
      .storeBuffer(validator.publicKey)
      .storeUint(electAt, 32)
      .storeUint(maxFactor, 32)
      .storeBuffer(adnl)
      .storeRef(beginCell().storeBuffer(signature).endCell())
      .endCell();
  const signedBytes = signed.beginParse().loadBuffer(76);
  await send(toNano("20"), stake(sign(signedBytes, keyPairFromSeed(randomBytes(32)).secretKey)));
  const [refused] = await actions("election_deposit", 1);
  must(refused.success === false && refused.details.amount === toNano("20").toString(), `refused stake ${JSON.stringify(refused)}`);
  await send(toNano("20"), stake(sign(signedBytes, validator.secretKey)));
  const deposits = await actions("election_deposit", 2);
  const accepted = deposits.find((a) => a.success);
  must(accepted && accepted.details.stake_holder === raw(wallet.address) && accepted.details.amount === toNano("20").toString(), `accepted stake ${JSON.stringify(deposits)}`);
  const counted = (
    await client.runMethod(ELECTOR, "participates_in", [{ type: "int", value: BigInt("0x" + validator.publicKey.toString("hex")) }])
  ).stack.readBigNumber();
  must(counted > 0n, "the elector counts the stake");
  console.log(JSON.stringify({ ok: true, recovered: recovered.details, counted: counted.toString() }));
}
