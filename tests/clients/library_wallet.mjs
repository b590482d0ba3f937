// A v4 wallet whose code is a library reference (as USDT wallets' code
// is), for a follower that holds no masterchain state and so must fetch
// the library from its lite servers.
//
// `prepare` prints a fresh mnemonic, the wallet v4 code as a BoC (for
// `tonindex dev --library`), and the genesis account: the wallet's data
// under a library cell naming that code, at the address that state init
// gives.
//
// `send MNEMONIC_JSON ADDRESS SEQNO` prints a signed external
// transfer (base64 BoC) of 0.5 TON with the comment "from a library
// wallet" to a fixed address, built with @ton/ton's v4 wallet.
import { mnemonicNew, mnemonicToPrivateKey } from "@ton/crypto";
import { WalletContractV4, internal, toNano } from "@ton/ton";
import { Address, beginCell, contractAddress, external, storeMessage } from "@ton/core";

const [mode, ...args] = process.argv.slice(2);
const TO = Address.parseRaw("0:" + "7e".repeat(32));

if (mode === "prepare") {
  const mnemonic = await mnemonicNew();
  const keys = await mnemonicToPrivateKey(mnemonic);
  const wallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
  const { code, data } = wallet.init;
  const library = beginCell().storeUint(2, 8).storeBuffer(code.hash()).endCell({ exotic: true });
  const address = contractAddress(0, { code: library, data });
  const b64 = (c) => c.toBoc().toString("base64");
  console.log(
    JSON.stringify({
      mnemonic,
      library_boc: b64(code),
      account: `${address.toRawString()}:${toNano("10")}:${b64(library)}:${b64(data)}`,
      address: address.toRawString(),
    }),
  );
} else {
  const [mnemonicJson, addressRaw, seqno] = args;
  const keys = await mnemonicToPrivateKey(JSON.parse(mnemonicJson));
  const wallet = WalletContractV4.create({ publicKey: keys.publicKey, workchain: 0 });
  const body = wallet.createTransfer({
    seqno: Number(seqno),
    secretKey: keys.secretKey,
    messages: [internal({ to: TO, value: toNano("0.5"), bounce: false, body: "from a library wallet" })],
    sendMode: 3,
  });
  const msg = external({ to: Address.parseRaw(addressRaw), body });
  const boc = beginCell().store(storeMessage(msg)).endCell().toBoc().toString("base64");
  console.log(JSON.stringify({ boc }));
}
