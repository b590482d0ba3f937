// Builds the messages tests/it/devnet.rs sends to `tonindex dev` (argv[2] = base
// URL) with @ton/ton: genesis wallet 0 first sends one transfer (seqno 0)
// itself, then the script prints, as base64 BoCs, a wrong-signature copy of
// the next transfer, a replay of the sent one, the next transfer itself
// ("good"), an internal message and an external one to workchain 5.
import { keyPairFromSeed } from "@ton/crypto";
import { WalletContractV4, internal, toNano, Address } from "@ton/ton";
import { beginCell, external, storeMessage, SendMode } from "@ton/core";

const base = process.argv[2];
const accounts = await (await fetch(`${base}/dev/accounts`)).json();
const secretKey = Buffer.from(accounts[0].secret_key, "hex");
const publicKey = Buffer.from(accounts[0].public_key, "hex");
const wallet = WalletContractV4.create({ workchain: 0, publicKey });
if (wallet.address.toRawString() !== accounts[0].address) throw new Error("wallet 0 differs");
const to = Address.parse(accounts[1].address);

const transfer = (seqno, key) =>
  wallet.createTransfer({
    seqno,
    secretKey: key,
    messages: [internal({ to, value: toNano("0.1"), bounce: false })],
    sendMode: SendMode.PAY_GAS_SEPARATELY,
  });
const boc = (body, dest = wallet.address) =>
  beginCell()
    .store(storeMessage(external({ to: dest, body })))
    .endCell()
    .toBoc()
    .toString("base64");

const first = boc(transfer(0, secretKey));
const sent = await fetch(`${base}/api/v2/sendBoc`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ boc: first }),
});
if (sent.status !== 200) throw new Error(`first transfer: ${sent.status} ${await sent.text()}`);

const stranger = keyPairFromSeed(Buffer.alloc(32, 7));
const internalMsg = beginCell()
  .store(storeMessage(internal({ to, value: toNano("1"), bounce: false })))
  .endCell()
  .toBoc()
  .toString("base64");

console.log(
  JSON.stringify({
    wrong_signature: boc(transfer(1, stranger.secretKey)),
    replayed_seqno: first,
    good: boc(transfer(1, secretKey)),
    next: boc(transfer(2, secretKey)),
    internal: internalMsg,
    unknown_workchain: boc(transfer(1, secretKey), new Address(5, Buffer.alloc(32, 1))),
  }),
);
