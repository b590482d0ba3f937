// Runs get-methods on the official TON emulator (@ton/sandbox's WebAssembly
// build) and prints exit code, gas used and a normalised result stack per
// case, for tests/it/tvm_emulator.rs to compare with tonindex's TVM.
//
// Usage: node getmethods.mjs CASES.json [RUNS]  (an array of
//   {name, code, data, address, balance, now, method_id, stack, config}
//   with BoCs in base64 and stack entries as ["int", "123"] pairs).
// With RUNS, each case instead runs RUNS times after a warm-up and the
// output is its rate: [{name, runs, seconds, per_second}] (benches/getmethod.rs).
import { readFileSync } from 'node:fs';
import { Address, Cell, TupleReader, parseTuple } from '@ton/core';
import { Executor } from '@ton/sandbox';

// Cells by representation hash: serialisation flags cannot make a difference.
function normalise(item) {
    switch (item.type) {
        case 'int': return { int: item.value.toString() };
        case 'nan': return { nan: true };
        case 'null': return null;
        case 'cell': return { cell: item.cell.hash().toString('hex') };
        case 'slice': return { slice: item.cell.hash().toString('hex') };
        case 'builder': return { builder: item.cell.hash().toString('hex') };
        case 'tuple': return item.items.map(normalise);
        default: return { unsupported: item.type };
    }
}

function inputItem([type, value]) {
    switch (type) {
        case 'int': return { type: 'int', value: BigInt(value) };
        case 'cell': return { type: 'cell', cell: Cell.fromBase64(value) };
        case 'slice': return { type: 'slice', cell: Cell.fromBase64(value) };
        default: throw new Error(`unknown input type ${type}`);
    }
}

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const runs = process.argv[3] ? Number(process.argv[3]) : 0;
const executor = await Executor.create();

function args(c) {
    return {
        code: Cell.fromBase64(c.code),
        data: Cell.fromBase64(c.data),
        methodId: c.method_id,
        stack: c.stack.map(inputItem),
        config: c.config,
        libs: c.libs ? Cell.fromBase64(c.libs) : undefined,
        verbosity: 'short',
        address: Address.parseRaw(c.address),
        unixTime: c.now,
        balance: BigInt(c.balance),
        randomSeed: Buffer.alloc(32),
        gasLimit: BigInt(c.gas_limit),
        debugEnabled: false,
    };
}

if (runs > 0) {
    const rates = [];
    for (const c of cases) {
        const a = args(c);
        for (let i = 0; i < Math.min(runs, 100); i++) await executor.runGetMethod(a);
        const start = process.hrtime.bigint();
        for (let i = 0; i < runs; i++) await executor.runGetMethod(a);
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        rates.push({ name: c.name, runs, seconds, per_second: runs / seconds });
    }
    process.stdout.write(JSON.stringify(rates));
    process.exit(0);
}

const results = [];
for (const c of cases) {
    const res = await executor.runGetMethod(args(c));
    const out = res.output;
    if (!out.success) {
        results.push({ name: c.name, error: out.error });
        continue;
    }
    const stack = parseTuple(Cell.fromBase64(out.stack)).map(normalise);
    results.push({
        name: c.name,
        exit_code: out.vm_exit_code,
        gas_used: Number(out.gas_used),
        stack,
    });
}
process.stdout.write(JSON.stringify(results));
