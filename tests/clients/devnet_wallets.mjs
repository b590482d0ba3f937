// Derives the devnet's genesis wallets the way TON clients do, for
// tests/it/devnet_wallets.rs to compare with its own: argv[2] is a JSON
// {mnemonic, global_id, sign_hex, wallets: [{version, n}]}; prints the key
// pair, the signature of sign_hex and each wallet's address (raw form) as JSON.
import { mnemonicToPrivateKey, mnemonicValidate, sign } from "@ton/crypto";
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from "@ton/ton";

const input = JSON.parse(process.argv[2]);
const words = input.mnemonic.split(" ");
const keys = await mnemonicToPrivateKey(words);
const wallets = input.wallets.map(({ version, n }) => {
  const w =
    version === "wallet_v3r2"
      ? WalletContractV3R2.create({ workchain: 0, publicKey: keys.publicKey, walletId: 698983191 + n })
      : version === "wallet_v4r2"
      ? WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey, walletId: 698983191 + n })
      : WalletContractV5R1.create({
          publicKey: keys.publicKey,
          walletId: {
            networkGlobalId: input.global_id,
            context: { workchain: 0, subwalletNumber: n, walletVersion: "v5r1" },
          },
        });
  return w.address.toRawString();
});
console.log(
  JSON.stringify({
    valid: await mnemonicValidate(words),
    public_key: keys.publicKey.toString("hex"),
    secret_key: keys.secretKey.toString("hex"),
    signature: sign(Buffer.from(input.sign_hex, "hex"), keys.secretKey).toString("hex"),
    wallets,
  }),
);
