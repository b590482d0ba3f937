// What the devnet client scripts share: a @ton/ton client on `tonindex
// dev`, JSON reads that throw on an error status, expectations, polling,
// and v4 wallets funded by the devnet's faucet that send and wait for
// their seqno to move.
//
// `devnet(base, faucet)`: the API at `base` (a devnet, or a follower of
// one), the faucet's `/dev/fund` at `faucet` (the devnet's; `base` if it
// is one).
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { TonClient, WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, Cell, Dictionary, SendMode, beginCell, contractAddress } from "@ton/core";
import { COLLECTION_CODE, ITEM_CODE } from "./nft_codes.mjs";

export const must = (cond, what) => {
  if (!cond) throw new Error(`expectation failed: ${what}`);
};
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A raw address as v3 writes it (upper-case hex). */
export const raw = (a) => a.toRawString().toUpperCase();

export const devnet = (base, faucet = base) => {
  const client = new TonClient({ endpoint: `${base}/api/v2/jsonRPC` });
  const getJson = async (path, init) => {
    const r = await fetch(`${base}${path}`, init);
    const body = await r.json();
    if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  // Polls a path until `ok(body)`: token flows take a few blocks.
  const waitFor = async (path, ok, what) => {
    let last;
    for (let i = 0; i < 150; i++) {
      last = await getJson(path);
      if (ok(last)) return last;
      await sleep(100);
    }
    throw new Error(`${what} never happened: ${JSON.stringify(last)}`);
  };
  // A v4 wallet with 20 TON from the faucet, deployed by its first transfer.
  const newWallet = async () => {
    const keys = await mnemonicToPrivateKey(await mnemonicNew());
    const wallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
    const funded = await fetch(`${faucet}/dev/fund`, {
      method: "POST",
      body: JSON.stringify({ address: wallet.address.toString({ bounceable: false }), amount: toNano("20").toString() }),
    });
    if (!funded.ok) throw new Error(`/dev/fund: ${funded.status} ${await funded.text()}`);
    return { keys, wallet, contract: client.open(wallet), address: wallet.address, seqno: 0 };
  };
  const send = async (w, messages) => {
    await w.contract.sendTransfer({
      seqno: w.seqno,
      secretKey: w.keys.secretKey,
      messages,
      sendMode: SendMode.PAY_GAS_SEPARATELY,
    });
    w.seqno += 1;
    for (let i = 0; i < 100; i++) {
      if ((await w.contract.getSeqno()) >= w.seqno) return;
      await sleep(100);
    }
    throw new Error(`seqno never reached ${w.seqno}`);
  };
  // The first action of `type` (that `ok` accepts) among an account's
  // newest 100, once there is one.
  const actionOf = async (account, type, ok = () => true) =>
    (
      await waitFor(
        `/api/v3/actions?account=${encodeURIComponent(account.toRawString())}&limit=100`,
        (x) => x.actions.some((a) => a.type === type && ok(a)),
        `a ${type} action`,
      )
    ).actions.find((a) => a.type === type && ok(a));
  // Alice and Bob, deployed, and a Jetton (the test data's minter, with
  // `fields` as its content) that has minted 1000 to Alice: her Jetton
  // wallet exists before anyone listens (a wallet's first change is heard
  // at `finalized` only, its later ones at `confirmed` too).
  const aliceBobAndJetton = async (fixtures, fields) => {
    const alice = await newWallet();
    const bob = await newWallet();
    await send(alice, [internal({ to: bob.address, value: toNano("0.01"), bounce: false })]);
    await send(bob, [internal({ to: alice.address, value: toNano("0.01"), bounce: false })]);
    const jetton = jettonMinter(fixtures, alice.address, fields);
    const aliceJw = jetton.walletOf(alice.address);
    await send(alice, [
      internal({
        to: jetton.address,
        value: toNano("0.5"),
        bounce: false,
        init: jetton.init,
        body: mintBody(jetton.address, alice.address, 1000n),
      }),
    ]);
    await waitFor(
      `/api/v3/jetton/wallets?address=${encodeURIComponent(aliceJw.toRawString())}`,
      (r) => r.jetton_wallets[0]?.balance === "1000",
      "Alice's first 1000",
    );
    return { alice, bob, jetton, aliceJw };
  };
  // What the streaming scripts have a listener hear of Alice: Bob pays her
  // 1 TON; her Jetton wallet gets a mint of 500; she signs two transfers
  // to Bob (0.1 and 0.2 TON) with one seqno, both accepted and emulated,
  // the second refused by the chain. Returns once her seqno has moved.
  const payMintAndDoubleSign = async ({ alice, bob, jetton }) => {
    await send(bob, [internal({ to: alice.address, value: toNano("1"), bounce: false })]);
    await send(alice, [
      internal({ to: jetton.address, value: toNano("0.5"), body: mintBody(jetton.address, alice.address, 500n) }),
    ]);
    const seqno = alice.seqno;
    const transfer = (value) =>
      alice.contract.createTransfer({
        seqno,
        secretKey: alice.keys.secretKey,
        messages: [internal({ to: bob.address, value, bounce: false })],
        sendMode: SendMode.PAY_GAS_SEPARATELY,
      });
    await alice.contract.send(await transfer(toNano("0.1")));
    await alice.contract.send(await transfer(toNano("0.2")));
    alice.seqno += 1;
    await until(async () => (await alice.contract.getSeqno()) > seqno, "the double-signed seqno used");
  };
  return { client, getJson, waitFor, newWallet, send, actionOf, aliceBobAndJetton, payMintAndDoubleSign };
};

/** Polls `ok` (sync or async) every 100 ms until it holds; throws after `ms`. */
export const until = async (ok, what, ms = 20000) => {
  for (let waited = 0; waited < ms; waited += 100) {
    if (await ok()) return;
    await sleep(100);
  }
  throw new Error(`${what} never happened`);
};

/** token-contract's TEP-74 minter (its code in the test data directory
 * `fixtures`) administered by `admin`, with on-chain TEP-64 `fields`
 * (attribute sha256 → ^(0x00 + snake text)): its codes, state init and
 * address, and the address of an owner's Jetton wallet (its state init
 * with a zero balance). */
export const jettonMinter = (fixtures, admin, fields) => {
  const boc = (name) => Cell.fromBoc(readFileSync(`${fixtures}/contracts/ton-benchmark/${name}`))[0];
  const minterCode = boc("jetton-minter.code.boc");
  const walletCode = boc("jetton-wallet.code.boc");
  const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  for (const [k, v] of Object.entries(fields)) {
    dict.set(createHash("sha256").update(k).digest(), beginCell().storeUint(0, 8).storeStringTail(v).endCell());
  }
  const content = beginCell().storeUint(0, 8).storeDict(dict).endCell();
  // total_supply admin content wallet_code.
  const data = beginCell().storeCoins(0).storeAddress(admin).storeRef(content).storeRef(walletCode).endCell();
  const init = { code: minterCode, data };
  const address = contractAddress(0, init);
  const walletOf = (owner) =>
    contractAddress(0, {
      code: walletCode,
      data: beginCell().storeCoins(0).storeAddress(owner).storeAddress(address).storeRef(walletCode).endCell(),
    });
  return { minterCode, walletCode, init, address, walletOf };
};

/** token-contract's `mint#15 query_id to ton_amount master_msg:^Cell`, the
 * master message an `internal_transfer#178d4519` of `amount` from `minter`
 * with the excess to `response`. */
export const mintBody = (minter, to, amount, response = to) =>
  beginCell()
    .storeUint(21, 32)
    .storeUint(0, 64)
    .storeAddress(to)
    .storeCoins(toNano("0.05"))
    .storeRef(
      beginCell()
        .storeUint(0x178d4519, 32)
        .storeUint(0, 64)
        .storeCoins(amount)
        .storeAddress(minter)
        .storeAddress(response)
        .storeCoins(0)
        .storeBit(0)
        .endCell(),
    )
    .endCell();

/** token-contract's editable NFT collection owned by `owner`, with
 * off-chain content at `collectionUri` and item content under `itemPrefix`
 * (royalty 0/1 to the owner): its state init and address, the address of
 * item `index`, and the body of `deploy#1 query_id item_index amount
 * ^(owner ^individual_content)` giving item `index` to `itemOwner` with
 * content `<index>.json`. */
export const nftCollection = (owner, collectionUri, itemPrefix) => {
  const offchain = (uri) => beginCell().storeUint(1, 8).storeStringTail(uri).endCell();
  const itemCode = Cell.fromBase64(ITEM_CODE);
  const init = {
    code: Cell.fromBase64(COLLECTION_CODE),
    data: beginCell()
      .storeAddress(owner)
      .storeUint(0, 64)
      .storeRef(beginCell().storeRef(offchain(collectionUri)).storeRef(beginCell().storeStringTail(itemPrefix).endCell()).endCell())
      .storeRef(itemCode)
      .storeRef(beginCell().storeUint(0, 16).storeUint(1, 16).storeAddress(owner).endCell())
      .endCell(),
  };
  const address = contractAddress(0, init);
  const item = (index) =>
    contractAddress(0, { code: itemCode, data: beginCell().storeUint(index, 64).storeAddress(address).endCell() });
  const deployItem = (index, itemOwner) =>
    beginCell()
      .storeUint(1, 32)
      .storeUint(0, 64)
      .storeUint(index, 64)
      .storeCoins(toNano("0.05"))
      .storeRef(beginCell().storeAddress(itemOwner).storeRef(beginCell().storeStringTail(`${index}.json`).endCell()).endCell())
      .endCell();
  return { init, address, item, deployItem };
};

/** GetGems' marketplace on mainnet, as the devnet NFT scripts name it. */
export const GETGEMS_MARKETPLACE = Address.parseRaw("0:584ee61b2dff0837116d0fcb5078d93964bcbe9c05fd6a141b1bfca5d6a43e18");

/** A running GetGems auction's storage (mainnet's auction code): flags
 * end 0, activated 1, cancelled 0; no bid yet; `endTime`; the seller; a fees
 * cell (marketplace fee 5/100 to `fee`, royalty 10/100 to `royalty`) and a
 * constants cell (gas taken from bids, GetGems' marketplace, `minBid`,
 * `maxBid`, a 0.5 TON step, 300 s step time, the NFT, `createdAt`). */
export const getgemsAuctionData = ({ seller, nft, fee, royalty, minBid, maxBid, endTime, createdAt }) =>
  beginCell()
    .storeBit(0)
    .storeBit(1)
    .storeBit(0)
    .storeAddress(null)
    .storeCoins(0)
    .storeUint(0, 32)
    .storeUint(endTime, 32)
    .storeAddress(seller)
    .storeRef(beginCell().storeAddress(fee).storeUint(5, 32).storeUint(100, 32).storeAddress(royalty).storeUint(10, 32).storeUint(100, 32).endCell())
    .storeRef(
      beginCell()
        .storeUint(8449000, 32)
        .storeAddress(GETGEMS_MARKETPLACE)
        .storeCoins(minBid)
        .storeCoins(maxBid)
        .storeCoins(toNano("0.5"))
        .storeUint(300, 32)
        .storeAddress(nft)
        .storeUint(createdAt, 32)
        .endCell(),
    )
    .endCell();
