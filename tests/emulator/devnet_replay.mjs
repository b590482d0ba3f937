// Re-runs the devnet's transactions on the official TON emulator
// (@ton/sandbox's WebAssembly build of the node's transaction code): for
// each account of each block, its transactions one after the other from
// the account's state before the block, with the block's config, start lt,
// random seed and each transaction's time. Prints, per transaction, the
// emulator's transaction hash and the hash of the account after it.
//
// Usage: node devnet_replay.mjs INPUT.json [--timing], INPUT = {config, runs: [{lt,
//   seed_hex, shard_account, txs: [{message, now}]}]} (BoCs in base64). With
// --timing it prints instead {transactions, cpu_s, wall_s} of the runs alone
// (for `tonindex bench-dev`).
import { readFileSync } from 'node:fs';
import { Cell } from '@ton/core';
import { Executor } from '@ton/sandbox';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const executor = await Executor.create();
const timing = process.argv[3] === '--timing';
const cpu0 = process.cpuUsage();
const wall0 = process.hrtime.bigint();
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
if (timing) {
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(JSON.stringify({
        transactions: out.filter((r) => r.tx_hash).length,
        errors: out.filter((r) => r.error).length,
        cpu_s: (cpu.user + cpu.system) / 1e6,
        wall_s: Number(process.hrtime.bigint() - wall0) / 1e9,
    }));
} else {
    process.stdout.write(JSON.stringify(out));
}
