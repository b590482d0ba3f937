// NFTs end to end with @ton/ton against `tonindex dev` (argv[2] = base
// URL): a standard TEP-62 collection (token-contract's editable
// collection and item, compiled code as the MIT-licensed
// @ton-community/assets-sdk 0.0.5 ships it: public contract code, a
// fact) is deployed with off-chain content, mints two items, and one is
// transferred. /nft/collections, /nft/items and /nft/transfers and v2
// getTokenData must show exactly what these steps imply (and Alice's
// get_static_data to an item is nft_discovery); addresses come
// from @ton/core (contractAddress of each state init). Prints one JSON
// summary; any failed expectation throws.
import { internal, toNano } from "@ton/ton";
import { beginCell } from "@ton/core";
import { devnet, must, nftCollection, raw } from "./devnet_helpers.mjs";

const base = process.argv[2];
const { client, getJson, waitFor, newWallet, send, actionOf } = devnet(base);
const q = (a) => encodeURIComponent(a.toRawString());

const alice = await newWallet();
const bob = await newWallet();
await send(bob, [internal({ to: alice.address, value: toNano("0.01"), bounce: false })]);

// token-contract's collection: owner next_item_index content:^(collection
// content, common item content) item_code royalty:^(num den destination).
const nfts = nftCollection(alice.address, "https://example.org/collection.json", "https://example.org/items/");
const collection = nfts.address;
const itemAddress = nfts.item;
const mint = nfts.deployItem;

await send(alice, [internal({ to: collection, value: toNano("0.3"), bounce: false, init: nfts.init, body: mint(0, alice.address) })]);
await send(alice, [internal({ to: collection, value: toNano("0.3"), body: mint(1, bob.address) })]);
const item0 = itemAddress(0);
const item1 = itemAddress(1);

const items = await waitFor(
  `/api/v3/nft/items?collection_address=${q(collection)}`,
  (r) => r.nft_items.length === 2,
  "both items",
);
const [i0, i1] = items.nft_items;
must(i0.address === raw(item0) && i0.index === "0" && i0.owner_address === raw(alice.address), `item 0 ${JSON.stringify(i0)}`);
must(i1.address === raw(item1) && i1.index === "1" && i1.owner_address === raw(bob.address), `item 1 ${JSON.stringify(i1)}`);
must(i0.init === true && i0.collection_address === raw(collection), "item 0 collection");
must(i1.content && i1.content.uri === "https://example.org/items/1.json", `full content from the collection ${JSON.stringify(i1.content)}`);
must(i0.collection && i0.collection.address === raw(collection), "item's collection object");
const colls = await getJson(`/api/v3/nft/collections?collection_address=${q(collection)}`);
must(colls.nft_collections.length === 1, "the collection");
const c = colls.nft_collections[0];
must(c.next_item_index === "2" && c.owner_address === raw(alice.address), `collection row ${JSON.stringify(c)}`);
must(c.collection_content.uri === "https://example.org/collection.json", "collection content");
const one = await getJson(`/api/v3/nft/items?collection_address=${q(collection)}&index=1`);
must(one.nft_items.length === 1 && one.nft_items[0].address === raw(item1), "item by index");

// Alice transfers item 0 to Bob, with a custom payload (the standard item
// ignores it) and a text comment forwarded in a reference.
const comment = (text) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();
const transfer = beginCell()
  .storeUint(0x5fcc3d14, 32)
  .storeUint(9, 64)
  .storeAddress(bob.address)
  .storeAddress(alice.address)
  .storeMaybeRef(comment("custom note"))
  .storeCoins(toNano("0.01"))
  .storeBit(1)
  .storeRef(comment("yours now"))
  .endCell();
await send(alice, [internal({ to: item0, value: toNano("0.1"), body: transfer })]);
await waitFor(
  `/api/v3/nft/items?owner_address=${q(bob.address)}`,
  (r) => r.nft_items.length === 2,
  "Bob owning both",
);
const alices = await getJson(`/api/v3/nft/items?owner_address=${q(alice.address)}`);
must(alices.nft_items.length === 0, "Alice owns none");
const tr = await getJson(`/api/v3/nft/transfers?owner_address=${q(bob.address)}&direction=in`);
must(tr.nft_transfers.length === 1, `Bob's incoming transfers ${JSON.stringify(tr)}`);
const t = tr.nft_transfers[0];
must(t.nft_address === raw(item0) && t.nft_collection === raw(collection) && t.query_id === "9", `transfer ${JSON.stringify(t)}`);
must(t.old_owner === raw(alice.address) && t.new_owner === raw(bob.address), "transfer owners");
must(t.transaction_aborted === false && typeof t.trace_id === "string", "transfer transaction");
// Both payloads decoded as message bodies are (toncenter's DecodedContent).
must(t.decoded_custom_payload?.type === "text_comment" && t.decoded_custom_payload.comment === "custom note", `decoded_custom_payload ${JSON.stringify(t)}`);
must(t.decoded_forward_payload?.type === "text_comment" && t.decoded_forward_payload.comment === "yours now", `decoded_forward_payload ${JSON.stringify(t)}`);
// metadata: the item and its collection, as tokens.
must(tr.metadata[raw(item0)]?.token_info?.[0]?.type === "nft_items", `item metadata ${JSON.stringify(tr.metadata)}`);
const itemActions = await getJson(`/api/v3/actions?trace_id=${encodeURIComponent(t.trace_id)}`);
must(itemActions.metadata[raw(item0)]?.token_info?.[0]?.nft_index === "0", `/actions metadata ${JSON.stringify(itemActions.metadata)}`);
const outBob = await getJson(`/api/v3/nft/transfers?owner_address=${q(bob.address)}&direction=out`);
must(outBob.nft_transfers.length === 0, "Bob sent none");
const byItem = await getJson(`/api/v3/nft/transfers?item_address=${q(item0)}`);
must(byItem.nft_transfers.length === 1, "transfers by item");

// The classifier sees the item: an nft_transfer action.
const tracesR = await waitFor(
  `/api/v3/traces?trace_id=${encodeURIComponent(t.trace_id)}&include_actions=true`,
  (r) => r.traces.length === 1 && r.traces[0].trace_info.classification_state === "ok",
  "classification",
);
const act = tracesR.traces[0].actions.find((a) => a.type === "nft_transfer");
must(act && act.details.nft_item === raw(item0) && act.details.new_owner === raw(bob.address), `nft_transfer action ${JSON.stringify(tracesR.traces[0].actions)}`);

// v2 getTokenData on the collection and an item.
const td = async (a) => (await fetch(`${base}/api/v2/getTokenData?address=${encodeURIComponent(a.toString())}`)).json();
const tc = await td(collection);
must(tc.ok && tc.result.contract_type === "nft_collection" && tc.result.next_item_index === "2", `getTokenData(collection) ${JSON.stringify(tc)}`);
must(tc.result.collection_content.type === "offchain" && tc.result.collection_content.data === "https://example.org/collection.json", "collection content (v2)");
const ti = await td(item1);
must(ti.ok && ti.result.contract_type === "nft_item" && ti.result.index === "1", `getTokenData(item) ${JSON.stringify(ti)}`);
must(ti.result.owner_address === bob.address.toString() && ti.result.collection_address === collection.toString(), "item owner and collection (v2)");
must(ti.result.content.data === "https://example.org/items/1.json", "item content (v2)");

// Alice asks item 1 what it is (TEP-62 get_static_data): nft_discovery
// with the index and collection the item's own getter gives.
await send(alice, [internal({ to: item1, value: toNano("0.05"), body: beginCell().storeUint(0x2fcb26a2, 32).storeUint(77, 64).endCell() })]);
const asked = await actionOf(alice.address, "nft_discovery");
const own = (await client.runMethod(item1, "get_nft_data")).stack;
own.skip(1);
const ownIndex = own.readBigNumber();
const ownCollection = own.readAddress();
must(asked.success === true && asked.details.source === raw(alice.address) && asked.details.nft_item === raw(item1), `discovery ${JSON.stringify(asked)}`);
must(asked.details.nft_item_index === ownIndex.toString() && asked.details.nft_collection === raw(ownCollection), `the item's report ${JSON.stringify(asked.details)}`);

console.log(JSON.stringify({ ok: true, collection: collection.toRawString(), items: [item0.toRawString(), item1.toRawString()] }));
