// A Jetton whose wallets' code is a library reference (as USDT's is), for
// a follower that holds no masterchain state and so must fetch the
// library to index the wallets.
//
// `prepare FIXTURES` prints the Jetton wallet code (token-contract's, from
// the fixtures) as a BoC, for `tonindex dev --library`.
//
// `run DEVNET FOLLOWER FIXTURES` deploys on the devnet a TEP-74 minter
// whose wallet code is a library cell naming that code and mints 1000 to
// a wallet; the follower's /jetton/wallets must then show the wallet (at
// the address @ton/core derives from the library state init) with its
// balance, and /jetton/masters the minter. Prints one JSON summary; any
// failed expectation throws.
import { readFileSync } from "node:fs";
import { internal, toNano } from "@ton/ton";
import { beginCell, Cell, contractAddress } from "@ton/core";
import { devnet, mintBody, must, raw } from "./devnet_helpers.mjs";

const [mode, ...args] = process.argv.slice(2);
const boc = (fixtures, name) => Cell.fromBoc(readFileSync(`${fixtures}/contracts/ton-benchmark/${name}`))[0];

if (mode === "prepare") {
  const [fixtures] = args;
  console.log(JSON.stringify({ library_boc: boc(fixtures, "jetton-wallet.code.boc").toBoc().toString("base64") }));
} else {
  const [base, followerBase, fixtures] = args;
  const { newWallet, send } = devnet(base);
  const follower = devnet(followerBase);
  const minterCode = boc(fixtures, "jetton-minter.code.boc");
  const walletCode = boc(fixtures, "jetton-wallet.code.boc");
  const library = beginCell().storeUint(2, 8).storeBuffer(walletCode.hash()).endCell({ exotic: true });
  const alice = await newWallet();
  // token-contract's minter: total_supply admin content wallet_code.
  const minterInit = {
    code: minterCode,
    data: beginCell()
      .storeCoins(0)
      .storeAddress(alice.address)
      .storeRef(beginCell().storeUint(1, 8).storeStringTail("https://example.org/jetton.json").endCell())
      .storeRef(library)
      .endCell(),
  };
  const minter = contractAddress(0, minterInit);
  const wallet = contractAddress(0, {
    code: library,
    data: beginCell().storeCoins(0).storeAddress(alice.address).storeAddress(minter).storeRef(library).endCell(),
  });
  const mint = mintBody(minter, alice.address, 1000n);
  await send(alice, [internal({ to: minter, value: toNano("0.5"), bounce: false, init: minterInit, body: mint })]);
  const q = encodeURIComponent(alice.address.toRawString());
  const found = await follower.waitFor(
    `/api/v3/jetton/wallets?owner_address=${q}`,
    (r) => r.jetton_wallets.length === 1,
    "the library-coded wallet on the follower",
  );
  const w = found.jetton_wallets[0];
  must(w.address === raw(wallet) && w.balance === "1000" && w.jetton === raw(minter), `wallet ${JSON.stringify(w)}`);
  const masters = await follower.getJson(`/api/v3/jetton/masters?address=${encodeURIComponent(minter.toRawString())}`);
  must(masters.jetton_masters.length === 1 && masters.jetton_masters[0].total_supply === "1000", `minter ${JSON.stringify(masters)}`);
  console.log(JSON.stringify({ ok: true, wallet: wallet.toRawString() }));
}
