// Executes messages on the official TON emulator (@ton/sandbox's
// WebAssembly build of the node's transaction code) and prints, per case,
// the transaction hash, the new account state hash and the fees of each
// phase, for tests/it/tvm_emulator.rs to compare with tonindex's executor.
//
// Usage: node transactions.mjs CASES.json  (an array of
//   {name, shard_account, message, config, libs?, now, lt, seed_hex, ignore_chksig}
//   with BoCs in base64)
import { readFileSync } from 'node:fs';
import { Cell, loadTransaction } from '@ton/core';
import { Executor } from '@ton/sandbox';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const executor = await Executor.create();
const results = [];
for (const c of cases) {
    const res = await executor.runTransaction({
        config: c.config,
        libs: c.libs ? Cell.fromBase64(c.libs) : null,
        verbosity: 'short',
        shardAccount: c.shard_account,
        message: Cell.fromBase64(c.message),
        now: c.now,
        lt: BigInt(c.lt),
        randomSeed: Buffer.from(c.seed_hex, 'hex'),
        ignoreChksig: c.ignore_chksig,
        debugEnabled: false,
    });
    const r = res.result;
    if (!r.success) {
        results.push({ name: c.name, error: r.error, exit_code: r.vmResults?.vmExitCode ?? null });
        continue;
    }
    const txCell = Cell.fromBase64(r.transaction);
    const tx = loadTransaction(txCell.beginParse());
    const d = tx.description;
    const compute = d.computePhase?.type === 'vm' ? d.computePhase : null;
    results.push({
        name: c.name,
        tx_hash: txCell.hash().toString('hex'),
        account_hash: Cell.fromBase64(r.shardAccount).hash().toString('hex'),
        total_fees: tx.totalFees.coins.toString(),
        storage_fees: (d.storagePhase?.storageFeesCollected ?? 0n).toString(),
        gas_fees: (compute?.gasFees ?? 0n).toString(),
        gas_used: (compute?.gasUsed ?? 0n).toString(),
        exit_code: compute?.exitCode ?? null,
        total_fwd_fees: (d.actionPhase?.totalFwdFees ?? 0n).toString(),
        total_action_fees: (d.actionPhase?.totalActionFees ?? 0n).toString(),
        messages_created: d.actionPhase?.messagesCreated ?? 0,
    });
}
process.stdout.write(JSON.stringify(results));
