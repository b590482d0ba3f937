// Re-runs the devnet's transactions on the official TON emulator
// (@ton/sandbox's WebAssembly build of the node's transaction code): for
// each account of each block, its transactions one after the other from
// the account's state before the block, with the block's config, start lt,
// random seed and each transaction's time. Prints, per transaction, the
// emulator's transaction hash and the hash of the account after it.
//
// Usage: node devnet_replay.mjs INPUT.json, INPUT = {config, runs: [{lt, seed_hex,
//   shard_account, txs: [{message, now}]}]} (BoCs in base64).
import { readFileSync } from 'node:fs';
import { Cell } from '@ton/core';
import { Executor } from '@ton/sandbox';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const executor = await Executor.create();
const out = [];
for (const run of input.runs) {
    let shardAccount = run.shard_account;
    for (const tx of run.txs) {
        const res = await executor.runTransaction({
            config: input.config,
            libs: null,
            verbosity: 'short',
            shardAccount,
            message: Cell.fromBase64(tx.message),
            now: tx.now,
            lt: BigInt(run.lt),
            randomSeed: Buffer.from(run.seed_hex, 'hex'),
            ignoreChksig: false,
            debugEnabled: false,
        });
        const r = res.result;
        if (!r.success) {
            out.push({ error: r.error });
            break;
        }
        shardAccount = r.shardAccount;
        out.push({
            tx_hash: Cell.fromBase64(r.transaction).hash().toString('hex'),
            tx: r.transaction,
            account_hash: Cell.fromBase64(r.shardAccount).hash().toString('hex'),
        });
    }
}
process.stdout.write(JSON.stringify(out));
