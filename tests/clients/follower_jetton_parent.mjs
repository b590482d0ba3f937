// A follower that starts after a Jetton was minted, so that the minter's
// state is in none of the blocks it follows: the wallets a later transfer
// changes must still be confirmed by their master (spec v3 §6.3) and
// listed, as the devnet itself lists them.
//
// `mint BASE FIXTURES`: a fresh v4 wallet (Alice; mnemonic printed)
// deploys token-contract's minter and mints 1000 to herself; prints the
// addresses once the devnet lists her Jetton wallet.
// `transfer BASE FOLLOWER_BASE FIXTURES MNEMONIC_JSON MINTER`: Alice sends
// 100 to Bob; the follower must list both wallets with the balances, owners
// and master the devnet lists, the minter among its masters, and the
// transfer. Prints one JSON summary; any failed expectation throws.
import { readFileSync } from "node:fs";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, Cell, SendMode, contractAddress } from "@ton/core";
import { devnet, mintBody, must, raw, sleep } from "./devnet_helpers.mjs";

const [mode, base, ...args] = process.argv.slice(2);
const { client, getJson, waitFor } = devnet(base);
const boc = (fixtures, name) => Cell.fromBoc(readFileSync(`${fixtures}/contracts/ton-benchmark/${name}`))[0];
const q = (a) => encodeURIComponent(a.toRawString());

const sendFrom = async (keys, messages) => {
  const wallet = client.open(WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }));
  const seqno = await wallet.getSeqno().catch(() => 0);
  await wallet.sendTransfer({ seqno, secretKey: keys.secretKey, messages, sendMode: SendMode.PAY_GAS_SEPARATELY });
  for (let i = 0; i < 100; i++) {
    if ((await wallet.getSeqno().catch(() => 0)) > seqno) return;
    await sleep(100);
  }
  throw new Error(`seqno never passed ${seqno}`);
};

if (mode === "mint") {
  const [fixtures] = args;
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const alice = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  await getJson("/dev/fund", {
    method: "POST",
    body: JSON.stringify({ address: alice.toString({ bounceable: false }), amount: toNano("20").toString() }),
  });
  const minterCode = boc(fixtures, "jetton-minter.code.boc");
  const walletCode = boc(fixtures, "jetton-wallet.code.boc");
  const minterInit = {
    code: minterCode,
    data: beginCell()
      .storeCoins(0)
      .storeAddress(alice)
      .storeRef(beginCell().storeUint(1, 8).storeStringTail("https://example.org/parent.json").endCell())
      .storeRef(walletCode)
      .endCell(),
  };
  const minter = contractAddress(0, minterInit);
  const mint = mintBody(minter, alice, 1000n);
  await sendFrom(keys, [internal({ to: minter, value: toNano("0.5"), bounce: false, init: minterInit, body: mint })]);
  await waitFor(`/api/v3/jetton/wallets?owner_address=${q(alice)}`, (r) => r.jetton_wallets[0]?.balance === "1000", "the mint");
  console.log(JSON.stringify({ mnemonic, minter: minter.toRawString() }));
} else if (mode === "transfer") {
  const [followerBase, fixtures, mnemonicJson, minterRaw] = args;
  const follower = devnet(followerBase);
  const keys = await mnemonicToPrivateKey(JSON.parse(mnemonicJson));
  const alice = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 }).address;
  const minter = Address.parseRaw(minterRaw);
  const bob = Address.parseRaw("0:" + "b0".repeat(32));
  const aliceJw = Address.parseRaw((await getJson(`/api/v3/jetton/wallets?owner_address=${q(alice)}`)).jetton_wallets[0].address);
  const transfer = beginCell()
    .storeUint(0x0f8a7ea5, 32)
    .storeUint(9, 64)
    .storeCoins(100n)
    .storeAddress(bob)
    .storeAddress(alice)
    .storeBit(0)
    .storeCoins(0)
    .storeBit(0)
    .endCell();
  await sendFrom(keys, [internal({ to: aliceJw, value: toNano("0.2"), body: transfer })]);
  const path = `/api/v3/jetton/wallets?jetton_address=${q(minter)}&sort=desc`;
  const onDevnet = await waitFor(path, (r) => r.jetton_wallets.length === 2 && r.jetton_wallets[0].balance === "900", "the transfer on the devnet");
  const strip = (r) => r.jetton_wallets.map(({ address, balance, owner, jetton, code_hash }) => ({ address, balance, owner, jetton, code_hash }));
  const onFollower = await follower.waitFor(path, (r) => r.jetton_wallets.length === 2, "both wallets on the follower");
  must(JSON.stringify(strip(onFollower)) === JSON.stringify(strip(onDevnet)), `follower ${JSON.stringify(strip(onFollower))} vs devnet ${JSON.stringify(strip(onDevnet))}`);
  must(onFollower.jetton_wallets[1].owner === raw(bob) && onFollower.jetton_wallets[1].balance === "100", "Bob's wallet");
  const masters = await follower.getJson(`/api/v3/jetton/masters?address=${q(minter)}`);
  must(masters.jetton_masters.length === 1 && masters.jetton_masters[0].total_supply === "1000", `the minter on the follower ${JSON.stringify(masters)}`);
  const transfers = await follower.waitFor(`/api/v3/jetton/transfers?owner_address=${q(alice)}&direction=out`, (r) => r.jetton_transfers.length === 1, "the transfer row");
  must(transfers.jetton_transfers[0].amount === "100" && transfers.jetton_transfers[0].destination === raw(bob), `transfer ${JSON.stringify(transfers)}`);
  console.log(JSON.stringify({ ok: true }));
}
