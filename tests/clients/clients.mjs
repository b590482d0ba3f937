// Real TON clients against `tonindex serve`: @ton/ton's TonClient and
// tonweb's HttpProvider, both through /api/v2/jsonRPC as they are used in
// the wild. Usage: node clients.mjs <base url> <expectations.json>
// Exits non-zero with a message on the first mismatch or client error.
import fs from 'node:fs';
import assert from 'node:assert/strict';
import { TonClient } from '@ton/ton';
import { Address } from '@ton/core';
import TonWeb from 'tonweb';

const [, , base, expectPath] = process.argv;
const want = JSON.parse(fs.readFileSync(expectPath, 'utf8'));
const rpc = `${base}/api/v2/jsonRPC`;
let step = 'start';

async function tonClient() {
  const client = new TonClient({ endpoint: rpc });
  step = 'TonClient.getMasterchainInfo';
  const info = await client.getMasterchainInfo();
  assert.equal(info.latestSeqno, want.last_mc_seqno, 'TonClient latest seqno');
  assert.equal(info.workchain, -1);

  step = 'TonClient.getWorkchainShards';
  const shards = await client.getWorkchainShards(want.shards_mc_seqno);
  assert.deepEqual(shards.map((s) => s.seqno), want.shard_seqnos, 'TonClient shards');

  step = 'TonClient.getShardTransactions';
  const txs = await client.getShardTransactions(want.block.workchain, want.block.seqno, want.block.shard);
  assert.deepEqual(txs.map((t) => t.hash).sort(), [...want.block.tx_hashes].sort(), 'TonClient block transactions');

  step = 'TonClient.getTransactions';
  const history = await client.getTransactions(Address.parse(want.account.address), { limit: want.account.tx_hashes.length });
  // TonClient parses each transaction BoC with @ton/core: hashes must survive the round trip.
  assert.deepEqual(history.map((t) => t.hash().toString('base64')), want.account.tx_hashes, 'TonClient account transactions');
  assert.deepEqual(history.map((t) => t.lt.toString()), want.account.tx_lts, 'TonClient lts');
  console.log(`@ton/ton TonClient: masterchain ${info.latestSeqno}, ${shards.length} shards, ${txs.length} block txs, ${history.length} account txs`);
}

async function tonweb() {
  const provider = new TonWeb.HttpProvider(rpc);
  step = 'tonweb.getMasterchainInfo';
  const info = await provider.getMasterchainInfo();
  assert.equal(info.last.seqno, want.last_mc_seqno, 'tonweb latest seqno');
  step = 'tonweb.getBlockShards';
  const shards = await provider.getBlockShards(want.shards_mc_seqno);
  assert.deepEqual(shards.shards.map((s) => s.seqno), want.shard_seqnos, 'tonweb shards');
  step = 'tonweb.getBlockTransactions';
  const block = await provider.getBlockTransactions(want.block.workchain, want.block.shard, want.block.seqno);
  assert.deepEqual(block.transactions.map((t) => t.hash).sort(), [...want.block.tx_hashes].sort(), 'tonweb block transactions');
  step = 'tonweb.getTransactions';
  const history = await provider.getTransactions(want.account.address, want.account.tx_hashes.length);
  assert.deepEqual(history.map((t) => t.transaction_id.hash), want.account.tx_hashes, 'tonweb account transactions');
  console.log(`tonweb HttpProvider: masterchain ${info.last.seqno}, ${shards.shards.length} shards, ${block.transactions.length} block txs, ${history.length} account txs`);
}

try {
  await tonClient();
  await tonweb();
} catch (e) {
  console.error(`client check failed at ${step}: ${e?.stack ?? e}`);
  process.exit(1);
}
