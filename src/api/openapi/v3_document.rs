//! The v3 document: its parameters, schemas and operations, from what the
//! v3 handlers read and write (`crate::api::v3`).

use serde_json::{json, Map, Value};

use super::*;

const LIMIT: P = p(
    "limit",
    Kind::Int,
    "Page size (default serve.default_limit, at most serve.max_limit; below 1 reads as 1)",
);
const OFFSET: P = p("offset", Kind::Int, "Items to skip (negative reads as 0)");
const SORT: P = p("sort", Kind::Sort, "Order (also `a`/`d`); default desc");
const PAGING: &[P] = &[LIMIT, OFFSET, SORT];
const NO_BOOK: &[P] = &[p(
    "x_no_address_book",
    Kind::Bool,
    "Leave the address book empty (also the X-No-Address-Book header)",
)];
const ACCOUNT: &[P] = &[p("address", Kind::Address, "The account").req()];
const BLOCK_FILTER: &[P] = &[
    p("workchain", Kind::Int, "Workchain"),
    p("shard", Kind::ShardV3, "Shard id"),
    p("seqno", Kind::Int, "Block seqno"),
];
const TIME_LT: &[P] = &[
    p("start_utime", Kind::Utime, "Not before this unix time"),
    p("end_utime", Kind::Utime, "Not after this unix time"),
    p("start_lt", Kind::Unsigned, "Not below this logical time"),
    p("end_lt", Kind::Unsigned, "Not above this logical time"),
];

fn v3_schemas() -> Value {
    let block_id = obj(&[
        ("workchain", int()),
        (
            "shard",
            json!({ "type": "string", "pattern": "^[0-9A-F]{16}$" }),
        ),
        ("seqno", int()),
    ]);
    let block = obj(&[
        ("workchain", int()),
        (
            "shard",
            json!({ "type": "string", "pattern": "^[0-9A-F]{16}$" }),
        ),
        ("seqno", int()),
        ("root_hash", b64_hash()),
        ("file_hash", b64_hash()),
        ("global_id", int()),
        ("version", int()),
        ("after_merge", boolean()),
        ("before_split", boolean()),
        ("after_split", boolean()),
        ("want_merge", boolean()),
        ("want_split", boolean()),
        ("key_block", boolean()),
        ("vert_seqno_incr", boolean()),
        ("flags", int()),
        ("gen_utime", dec()),
        ("start_lt", dec()),
        ("end_lt", dec()),
        ("validator_list_hash_short", int()),
        ("gen_catchain_seqno", int()),
        ("min_ref_mc_seqno", int()),
        ("prev_key_block_seqno", int()),
        ("vert_seqno", int()),
        ("master_ref_seqno", int()),
        ("rand_seed", b64_hash()),
        ("created_by", b64_hash()),
        ("tx_count", int()),
        ("masterchain_block_ref", nullable(refer("BlockId"))),
        ("prev_blocks", array(refer("BlockId"))),
    ]);
    let content = obj(&[
        ("hash", b64_hash()),
        ("body", nullable(boc())),
        ("decoded", nullable(ty("object"))),
    ]);
    let extra = map_of(string());
    let message = obj(&[
        ("hash", b64_hash()),
        ("source", nullable(raw_address())),
        ("destination", nullable(raw_address())),
        ("value", nullable(dec())),
        ("value_extra_currencies", nullable(extra.clone())),
        ("fwd_fee", nullable(dec())),
        ("ihr_fee", nullable(dec())),
        ("extra_flags", nullable(dec())),
        ("created_lt", nullable(dec())),
        ("created_at", nullable(dec())),
        (
            "opcode",
            nullable(json!({ "type": "string", "pattern": "^0x[0-9a-f]{8}$" })),
        ),
        ("decoded_opcode", nullable(string())),
        ("ihr_disabled", nullable(boolean())),
        ("bounce", nullable(boolean())),
        ("bounced", nullable(boolean())),
        ("import_fee", nullable(dec())),
        ("in_msg_tx_hash?", b64_hash()),
        ("out_msg_tx_hash?", b64_hash()),
        ("message_content", nullable(refer("MessageContent"))),
        ("init_state", nullable(refer("MessageContent"))),
        ("hash_norm?", b64_hash()),
        ("trace_id?", b64_hash()),
    ]);
    let account_state = obj(&[
        ("hash", b64_hash()),
        ("balance", nullable(dec())),
        ("extra_currencies", nullable(extra.clone())),
        ("account_status", nullable(status_v3())),
        ("frozen_hash", nullable(string())),
        ("data_hash", nullable(string())),
        ("code_hash", nullable(string())),
    ]);
    let status_change = strings(&["unchanged", "frozen", "deleted"]);
    let msg_size = obj(&[("cells", dec()), ("bits", dec())]);
    let description = obj(&[
        (
            "type",
            strings(&[
                "ord",
                "storage",
                "tick_tock",
                "split_prepare",
                "split_install",
                "merge_prepare",
                "merge_install",
            ]),
        ),
        ("aborted?", boolean()),
        ("destroyed?", boolean()),
        ("credit_first?", boolean()),
        ("is_tock?", boolean()),
        ("installed?", boolean()),
        (
            "storage_ph?",
            obj(&[
                ("storage_fees_collected", dec()),
                ("storage_fees_due?", dec()),
                ("status_change", status_change.clone()),
            ]),
        ),
        (
            "credit_ph?",
            obj(&[
                ("due_fees_collected?", dec()),
                ("credit", dec()),
                ("credit_extra_currencies", extra.clone()),
            ]),
        ),
        (
            "compute_ph?",
            obj(&[
                ("skipped", boolean()),
                (
                    "reason?",
                    strings(&["no_state", "bad_state", "no_gas", "suspended"]),
                ),
                ("success?", boolean()),
                ("msg_state_used?", boolean()),
                ("account_activated?", boolean()),
                ("gas_fees?", dec()),
                ("gas_used?", dec()),
                ("gas_limit?", dec()),
                ("gas_credit?", dec()),
                ("mode?", int()),
                ("exit_code?", int()),
                ("exit_arg?", int()),
                ("vm_steps?", int()),
                ("vm_init_state_hash?", b64_hash()),
                ("vm_final_state_hash?", b64_hash()),
            ]),
        ),
        (
            "action?",
            obj(&[
                ("success", boolean()),
                ("valid", boolean()),
                ("no_funds", boolean()),
                ("status_change", status_change),
                ("total_fwd_fees?", dec()),
                ("total_action_fees?", dec()),
                ("result_code", int()),
                ("result_arg?", int()),
                ("tot_actions", int()),
                ("spec_actions", int()),
                ("skipped_actions", int()),
                ("msgs_created", int()),
                ("action_list_hash", b64_hash()),
                ("tot_msg_size", msg_size.clone()),
            ]),
        ),
        (
            "bounce?",
            obj(&[
                ("type", strings(&["negfunds", "nofunds", "ok"])),
                ("msg_size?", msg_size),
                ("req_fwd_fees?", dec()),
                ("msg_fees?", dec()),
                ("fwd_fees?", dec()),
            ]),
        ),
        (
            "split_info?",
            obj(&[
                ("cur_shard_pfx_len", int()),
                ("acc_split_depth", int()),
                ("this_addr", string()),
                ("sibling_addr", string()),
            ]),
        ),
    ]);
    let transaction = obj(&[
        ("account", raw_address()),
        ("hash", b64_hash()),
        ("lt", dec()),
        ("now", int()),
        ("mc_block_seqno", nullable(int())),
        ("prev_trans_hash", b64_hash()),
        ("prev_trans_lt", dec()),
        ("orig_status", status_v3()),
        ("end_status", status_v3()),
        ("total_fees", dec()),
        ("total_fees_extra_currencies", extra.clone()),
        ("description", nullable(refer("TransactionDescr"))),
        ("block_ref", nullable(refer("BlockId"))),
        ("in_msg", nullable(refer("Message"))),
        ("out_msgs", array(refer("Message"))),
        ("account_state_before", refer("AccountState")),
        ("account_state_after", refer("AccountState")),
        ("emulated", boolean()),
        ("finality", strings(&["pending", "confirmed", "finalized"])),
        ("trace_id?", b64_hash()),
    ]);
    let action = obj(&[
        ("trace_id", b64_hash()),
        ("action_id", b64_hash()),
        ("start_lt", dec()),
        ("end_lt", dec()),
        ("start_utime", int()),
        ("end_utime", int()),
        ("trace_end_lt", dec()),
        ("trace_end_utime", int()),
        ("trace_mc_seqno_end", nullable(int())),
        ("transactions", array(b64_hash())),
        ("success", boolean()),
        ("type", string()),
        ("details", ty("object")),
        ("trace_external_hash?", b64_hash()),
        ("trace_external_hash_norm?", b64_hash()),
        ("accounts?", array(raw_address())),
        ("transactions_full?", array(refer("Transaction"))),
        ("finality", strings(&["pending", "confirmed", "finalized"])),
    ]);
    let trace_node = obj(&[
        ("tx_hash", b64_hash()),
        ("in_msg_hash?", b64_hash()),
        ("children", nullable(array(refer("TraceNode")))),
    ]);
    let trace = obj(&[
        ("trace_id", b64_hash()),
        ("external_hash", nullable(b64_hash())),
        ("mc_seqno_start", nullable(dec())),
        ("mc_seqno_end", nullable(dec())),
        ("start_lt", dec()),
        ("start_utime", int()),
        ("end_lt", dec()),
        ("end_utime", int()),
        (
            "trace_info",
            obj(&[
                ("trace_state", strings(&["complete", "pending", "broken"])),
                ("messages", int()),
                ("transactions", int()),
                ("pending_messages", int()),
                (
                    "classification_state",
                    strings(&["unclassified", "ok", "failed", "broken"]),
                ),
            ]),
        ),
        ("is_incomplete", boolean()),
        ("warning?", string()),
        ("actions?", array(refer("Action"))),
        ("trace?", refer("TraceNode")),
        ("transactions_order", array(b64_hash())),
        ("transactions", map_of(refer("Transaction"))),
    ]);
    let book_row = obj(&[
        ("user_friendly", nullable(string())),
        ("domain", nullable(string())),
        ("interfaces", array(string())),
    ]);
    let fees = obj(&[
        ("in_fwd_fee", int()),
        ("storage_fee", int()),
        ("gas_fee", int()),
        ("fwd_fee", int()),
    ]);
    json!({
        "BlockId": block_id,
        "Block": block,
        "MessageContent": content,
        "Message": message,
        "AccountState": account_state,
        "TransactionDescr": description,
        "Transaction": transaction,
        "Action": action,
        "TraceNode": trace_node,
        "Trace": trace,
        "AddressBookRow": book_row,
        "AddressBook": map_of(refer("AddressBookRow")),
        "Fees": fees,
        "Error": obj(&[("error", string())]),
    })
}

fn v3_ops() -> Vec<Op> {
    let book = || ("address_book", refer("AddressBook"));
    let metadata = || ("metadata", ty("object"));
    let blocks = || obj(&[("blocks", array(refer("Block")))]);
    let txs = || obj(&[("transactions", array(refer("Transaction"))), book()]);
    let account_info = || {
        obj(&[
            ("balance", dec()),
            ("code", nullable(boc())),
            ("data", nullable(boc())),
            ("last_transaction_lt", dec()),
            ("last_transaction_hash", b64_hash()),
            ("frozen_hash", nullable(b64_hash())),
            ("status", status_v3()),
        ])
    };
    let wallet_info = || {
        obj(&[
            ("balance", dec()),
            ("wallet_type?", string()),
            ("seqno?", int()),
            ("wallet_id?", int()),
            ("last_transaction_lt", dec()),
            ("last_transaction_hash", b64_hash()),
            ("status", status_v3()),
        ])
    };
    let accounts = obj(&[
        (
            "accounts",
            array(obj(&[
                ("address", raw_address()),
                ("account_state_hash", b64_hash()),
                ("balance", dec()),
                ("extra_currencies", map_of(string())),
                ("status", status_v3()),
                ("frozen_hash?", b64_hash()),
                ("last_transaction_hash", b64_hash()),
                ("last_transaction_lt", dec()),
                ("data_hash?", b64_hash()),
                ("code_hash?", b64_hash()),
                ("data_boc?", boc()),
                ("code_boc?", boc()),
                ("contract_methods", nullable(array(int()))),
                ("interfaces", array(string())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let wallets = obj(&[
        (
            "wallets",
            array(obj(&[
                ("address", raw_address()),
                ("is_wallet", boolean()),
                ("wallet_type?", string()),
                ("seqno?", int()),
                ("wallet_id?", int()),
                ("is_signature_allowed?", boolean()),
                ("balance", dec()),
                ("extra_currencies", map_of(string())),
                ("status", status_v3()),
                ("code_hash?", b64_hash()),
                ("last_transaction_hash", b64_hash()),
                ("last_transaction_lt", dec()),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_masters = obj(&[
        (
            "jetton_masters",
            array(obj(&[
                ("address", raw_address()),
                ("total_supply", dec()),
                ("mintable", boolean()),
                ("admin_address", nullable(raw_address())),
                ("jetton_content", nullable(map_of(string()))),
                ("jetton_wallet_code_hash", b64_hash()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                ("last_transaction_lt", dec()),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_wallets = obj(&[
        (
            "jetton_wallets",
            array(obj(&[
                ("address", raw_address()),
                ("balance", dec()),
                ("owner", raw_address()),
                ("jetton", raw_address()),
                ("last_transaction_lt", dec()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                (
                    "mintless_info?",
                    obj(&[
                        ("amount", dec()),
                        ("start_from", int()),
                        ("expire_at", int()),
                        ("custom_payload_api_uri", array(string())),
                    ]),
                ),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_transfers = obj(&[
        (
            "jetton_transfers",
            array(obj(&[
                ("query_id", dec()),
                ("source", nullable(raw_address())),
                ("destination", nullable(raw_address())),
                ("amount", dec()),
                ("source_wallet", raw_address()),
                ("jetton_master", raw_address()),
                ("transaction_hash", b64_hash()),
                ("transaction_lt", dec()),
                ("transaction_now", int()),
                ("transaction_aborted", boolean()),
                ("response_destination", nullable(raw_address())),
                ("custom_payload", nullable(boc())),
                ("decoded_custom_payload", nullable(ty("object"))),
                ("forward_ton_amount", nullable(dec())),
                ("forward_payload", nullable(boc())),
                ("decoded_forward_payload", nullable(ty("object"))),
                ("trace_id", nullable(b64_hash())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let jetton_burns = obj(&[
        (
            "jetton_burns",
            array(obj(&[
                ("query_id", dec()),
                ("owner", nullable(raw_address())),
                ("jetton_wallet", raw_address()),
                ("jetton_master", raw_address()),
                ("transaction_hash", b64_hash()),
                ("transaction_lt", dec()),
                ("transaction_now", int()),
                ("transaction_aborted", boolean()),
                ("amount", dec()),
                ("response_destination", nullable(raw_address())),
                ("custom_payload", nullable(boc())),
                ("decoded_custom_payload", nullable(ty("object"))),
                ("trace_id", nullable(b64_hash())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let nft_collection = obj(&[
        ("address", raw_address()),
        ("owner_address", nullable(raw_address())),
        ("last_transaction_lt", dec()),
        // Any integer: Fragment's collections answer -1.
        (
            "next_item_index",
            json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
        ),
        ("collection_content", nullable(map_of(string()))),
        ("data_hash", b64_hash()),
        ("code_hash", b64_hash()),
    ]);
    let nft_collections = obj(&[
        ("nft_collections", array(nft_collection.clone())),
        book(),
        metadata(),
    ]);
    let nft_item = obj(&[
        ("address", raw_address()),
        ("init", boolean()),
        ("index", dec()),
        ("collection_address", nullable(raw_address())),
        ("owner_address", nullable(raw_address())),
        ("content", nullable(map_of(string()))),
        ("last_transaction_lt", dec()),
        ("code_hash", b64_hash()),
        ("data_hash", b64_hash()),
        ("collection", nullable(nft_collection)),
        ("on_sale", boolean()),
        ("sale_contract_address?", raw_address()),
        ("auction_contract_address?", raw_address()),
        ("real_owner?", raw_address()),
    ]);
    let nft_items = obj(&[("nft_items", array(nft_item.clone())), book(), metadata()]);
    let nft_sales = obj(&[
        (
            "nft_sales",
            array(obj(&[
                ("type", string()),
                ("address", raw_address()),
                ("nft_address", raw_address()),
                ("nft_owner_address?", raw_address()),
                ("marketplace_address?", raw_address()),
                ("created_at", int()),
                ("last_transaction_lt", dec()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                ("details", ty("object")),
                ("nft_item?", nft_item),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let nft_transfers = obj(&[
        (
            "nft_transfers",
            array(obj(&[
                ("query_id", dec()),
                ("nft_address", raw_address()),
                ("nft_collection", nullable(raw_address())),
                ("transaction_hash", b64_hash()),
                ("transaction_lt", dec()),
                ("transaction_now", int()),
                ("transaction_aborted", boolean()),
                ("old_owner", nullable(raw_address())),
                ("new_owner", nullable(raw_address())),
                ("response_destination", nullable(raw_address())),
                ("custom_payload", nullable(boc())),
                ("decoded_custom_payload", nullable(ty("object"))),
                ("forward_amount", nullable(dec())),
                ("forward_payload", nullable(boc())),
                ("decoded_forward_payload", nullable(ty("object"))),
                ("trace_id", nullable(b64_hash())),
            ])),
        ),
        book(),
        metadata(),
    ]);
    let order = obj(&[
        ("address", raw_address()),
        ("multisig_address", raw_address()),
        ("order_seqno", dec()),
        ("threshold", int()),
        ("sent_for_execution", boolean()),
        ("approvals_mask", dec()),
        ("approvals_num", int()),
        ("expiration_date", int()),
        ("order_boc", boc()),
        ("signers", array(raw_address())),
        ("last_transaction_lt", dec()),
        ("code_hash", b64_hash()),
        ("data_hash", b64_hash()),
        ("actions", nullable(array(ty("object")))),
    ]);
    let multisigs = obj(&[
        (
            "multisigs",
            array(obj(&[
                ("address", raw_address()),
                ("next_order_seqno", string()),
                ("threshold", int()),
                ("signers", array(raw_address())),
                ("proposers", array(raw_address())),
                ("last_transaction_lt", dec()),
                ("code_hash", b64_hash()),
                ("data_hash", b64_hash()),
                ("orders", nullable(array(order.clone()))),
            ])),
        ),
        book(),
    ]);
    let orders = obj(&[("orders", array(order)), book()]);
    let vestings = obj(&[
        (
            "vesting_contracts",
            array(obj(&[
                ("address", raw_address()),
                ("start_time", int()),
                ("total_duration", int()),
                ("unlock_period", int()),
                ("cliff_duration", int()),
                ("sender_address", nullable(raw_address())),
                ("owner_address", nullable(raw_address())),
                ("total_amount", dec()),
                ("whitelist", array(raw_address())),
            ])),
        ),
        book(),
    ]);
    let states: &[P] = &[
        p("address", Kind::Address, "Accounts (up to 1000)")
            .req()
            .many(),
        p(
            "code_hash",
            Kind::Hash,
            "Only accounts with one of these code hashes",
        )
        .many(),
    ];
    let seqno_req: &[P] = &[p("seqno", Kind::Int, "Masterchain block seqno").req()];
    let msg_filter: &[P] = &[
        p(
            "msg_hash",
            Kind::Hash,
            "Message hashes (or normalized hashes)",
        )
        .many(),
        p("body_hash", Kind::Hash, "Body hash"),
        p("opcode", Kind::Opcode, "Body opcode"),
        p(
            "direction",
            Kind::Direction,
            "in: received by a transaction; out: sent by one",
        ),
    ];
    let stack_entry = obj(&[
        ("type", strings(&["num", "cell", "slice", "list", "tuple"])),
        ("value", json!({ "type": ["string", "array"] })),
    ]);
    vec![
        op(
            "blocks",
            "masterchainInfo",
            "First and last indexed masterchain blocks",
            &[],
            obj(&[("first", refer("Block")), ("last", refer("Block"))]),
            &[],
        ),
        op(
            "blocks",
            "blocks",
            "Blocks by filter",
            &[
                BLOCK_FILTER,
                &[
                    p("root_hash", Kind::Hash, "Block root hash"),
                    p("file_hash", Kind::Hash, "Block file hash"),
                    p("mc_seqno", Kind::Int, "Committed by this masterchain block"),
                ],
                TIME_LT,
                PAGING,
            ],
            blocks(),
            &[422],
        ),
        op(
            "blocks",
            "masterchainBlockShardState",
            "A masterchain block and the top shard blocks of its state",
            &[seqno_req],
            blocks(),
            &[404, 422],
        ),
        op(
            "blocks",
            "masterchainBlockShards",
            "A masterchain block and the shard blocks it commits",
            &[seqno_req, PAGING],
            blocks(),
            &[404, 422],
        ),
        op(
            "transactions",
            "transactions",
            "Transactions by filter",
            &[
                BLOCK_FILTER,
                &[
                    p("mc_seqno", Kind::Int, "Committed by this masterchain block"),
                    p("account", Kind::Address, "Accounts").many(),
                    p("hash", Kind::Hash, "Transaction hashes").many(),
                    p("lt", Kind::Unsigned, "Logical time"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            txs(),
            &[404, 422],
        ),
        op(
            "transactions",
            "transactionsByMasterchainBlock",
            "Transactions of a masterchain block and the shard blocks it commits",
            &[seqno_req, PAGING, NO_BOOK],
            txs(),
            &[404, 422],
        ),
        op(
            "transactions",
            "transactionsByMessage",
            "Transactions that sent or received messages (one filter is required)",
            &[msg_filter, PAGING, NO_BOOK],
            txs(),
            &[422],
        ),
        op(
            "transactions",
            "adjacentTransactions",
            "The parent and children of a transaction",
            &[
                &[
                    p("hash", Kind::Hash, "Transaction hash").req(),
                    p(
                        "direction",
                        Kind::Direction,
                        "in: the parent; out: the children",
                    ),
                ],
                NO_BOOK,
            ],
            txs(),
            &[404, 422],
        ),
        op(
            "messages",
            "messages",
            "Messages by filter",
            &[
                &[
                    p(
                        "msg_hash",
                        Kind::Hash,
                        "Message hashes (or normalized hashes)",
                    )
                    .many(),
                    p("hash", Kind::Hash, "Same as msg_hash").many(),
                    p("body_hash", Kind::Hash, "Body hash"),
                    p(
                        "source",
                        Kind::Str,
                        "Source address, or `null` for external-in",
                    ),
                    p(
                        "destination",
                        Kind::Str,
                        "Destination address, or `null` for external-out",
                    ),
                    p("opcode", Kind::Opcode, "Body opcode"),
                    p(
                        "direction",
                        Kind::Direction,
                        "in: received by a transaction; out: sent by one",
                    ),
                    p(
                        "exclude_externals",
                        Kind::Bool,
                        "Leave out external messages",
                    ),
                    p("only_externals", Kind::Bool, "Only external messages"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            obj(&[("messages", array(refer("Message"))), book(), metadata()]),
            &[422],
        ),
        op(
            "accounts",
            "addressBook",
            "User-friendly forms of addresses, keyed as sent",
            &[&[p(
                "address",
                Kind::Str,
                "Addresses (an unreadable one gets user_friendly null)",
            )
            .req()
            .many()]],
            refer("AddressBook"),
            &[422],
        ),
        op(
            "accounts",
            "metadata",
            "Token metadata of the addresses that are token contracts, keyed by raw address",
            &[&[p(
                "address",
                Kind::Str,
                "Addresses (non-token and unreadable ones are absent)",
            )
            .req()
            .many()]],
            ty("object"),
            &[422],
        ),
        op(
            "accounts",
            "accountStates",
            "Current states of accounts the node holds",
            &[
                states,
                &[p(
                    "include_boc",
                    Kind::Bool,
                    "Include code and data BoCs (default true)",
                )],
                NO_BOOK,
            ],
            accounts,
            &[422],
        ),
        op(
            "accounts",
            "walletStates",
            "Current states of accounts with wallet details",
            &[states, NO_BOOK],
            wallets,
            &[422],
        ),
        op(
            "accounts",
            "topAccountsByBalance",
            "Accounts whose current state the node holds, richest first",
            &[&[LIMIT, OFFSET]],
            array(obj(&[("account", string()), ("balance", dec())])),
            &[422],
        ),
        op(
            "jettons",
            "jetton/masters",
            "Jetton masters the index has read (get_jetton_data)",
            &[
                &[
                    p("address", Kind::Address, "Jetton masters").many(),
                    p("admin_address", Kind::Address, "Their admins").many(),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            jetton_masters,
            &[422],
        ),
        op(
            "jettons",
            "jetton/wallets",
            "Jetton wallets their masters confirm",
            &[
                &[
                    p("address", Kind::Address, "Jetton wallets").many(),
                    p("owner_address", Kind::Address, "Their owners").many(),
                    p(
                        "jetton_address",
                        Kind::Address,
                        "Their masters (several need exactly one owner_address)",
                    )
                    .many(),
                    p(
                        "exclude_zero_balance",
                        Kind::Bool,
                        "Leave out wallets with a zero balance",
                    ),
                    LIMIT,
                    OFFSET,
                    p(
                        "sort",
                        Kind::Sort,
                        "Order by balance (within each owner or master); default by address",
                    ),
                ],
                NO_BOOK,
            ],
            jetton_wallets,
            &[422],
        ),
        op(
            "jettons",
            "jetton/transfers",
            "Jetton transfers (transfer#0f8a7ea5 on confirmed wallets; aborted ones left out)",
            &[
                &[
                    p(
                        "owner_address",
                        Kind::Address,
                        "Sending or receiving owners",
                    )
                    .many(),
                    p("address", Kind::Address, "Alias of owner_address"),
                    p(
                        "direction",
                        Kind::Str,
                        "in, out or both (with owner_address)",
                    ),
                    p("jetton_wallet", Kind::Address, "Senders' Jetton wallets").many(),
                    p("jetton_master", Kind::Address, "The Jetton master"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            jetton_transfers,
            &[422],
        ),
        op(
            "jettons",
            "jetton/burns",
            "Jetton burns (burn#595f07bc on confirmed wallets)",
            &[
                &[
                    p("address", Kind::Address, "Owner"),
                    p("owner_address", Kind::Address, "Owners").many(),
                    p("jetton_wallet", Kind::Address, "Jetton wallets").many(),
                    p("jetton_master", Kind::Address, "The Jetton master"),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            jetton_burns,
            &[422],
        ),
        op(
            "nfts",
            "nft/collections",
            "NFT collections the index has read (get_collection_data)",
            &[
                &[
                    p("collection_address", Kind::Address, "Collections").many(),
                    p("owner_address", Kind::Address, "Their owners").many(),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            nft_collections.clone(),
            &[422],
        ),
        op(
            "nfts",
            "nft/items",
            "NFT items (an item of a collection only when the collection confirms it)",
            &[
                &[
                    p("address", Kind::Address, "Items").many(),
                    p("owner_address", Kind::Address, "Their owners").many(),
                    p(
                        "collection_address",
                        Kind::Address,
                        "Their collections (several need exactly one owner_address)",
                    )
                    .many(),
                    p(
                        "index",
                        Kind::Str,
                        "Item indexes (digits; with collection_address)",
                    )
                    .many(),
                    p(
                        "include_on_sale",
                        Kind::Bool,
                        "With owner_address: count items listed on a GetGems sale or auction for their seller",
                    ),
                    p(
                        "sort_by_last_transaction_lt",
                        Kind::Bool,
                        "Newest change first",
                    ),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            nft_items,
            &[422],
        ),
        op(
            "nfts",
            "nft/sales",
            "GetGems fixed-price sales and auctions by contract address, as they describe themselves",
            &[&[p("address", Kind::Address, "Sale or auction contracts (at most 1000)")
                .req()
                .many()]],
            nft_sales,
            &[422],
        ),
        op(
            "nfts",
            "nft/transfers",
            "NFT transfers (transfer#5fcc3d14 on known items; aborted ones included)",
            &[
                &[
                    p("owner_address", Kind::Address, "Old or new owners").many(),
                    p("address", Kind::Address, "Alias of owner_address"),
                    p("item_address", Kind::Address, "Items").many(),
                    p("collection_address", Kind::Address, "The collection"),
                    p(
                        "direction",
                        Kind::Str,
                        "in, out or both (with owner_address)",
                    ),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            nft_transfers,
            &[422],
        ),
        op(
            "dns",
            "dns/records",
            "DNS items of the .ton and .t.me collections, by domain or by the wallet their records name",
            &[
                &[
                    p("wallet", Kind::Address, "The address a `wallet` record names"),
                    p("domain", Kind::Str, "An exact domain, e.g. foundation.ton"),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            obj(&[
                (
                    "records",
                    array(obj(&[
                        ("nft_item_address", raw_address()),
                        ("nft_item_owner", nullable(raw_address())),
                        ("domain", string()),
                        ("dns_next_resolver", nullable(raw_address())),
                        ("dns_wallet", nullable(raw_address())),
                        ("dns_site_adnl", nullable(string())),
                        ("dns_storage_bag_id", nullable(string())),
                    ])),
                ),
                book(),
            ]),
            &[422],
        ),
        op(
            "actions",
            "balanceChanges",
            "What a trace, or one of its actions, did to balances: each account's nanotons \
             (value less fees), its fees, and Jetton units by owner and master ({} for an \
             action of another trace or a contract_deploy)",
            &[&[
                p("trace_id", Kind::Hash, "The trace"),
                p("action_id", Kind::Hash, "One action (of trace_id, when both are given)"),
            ]],
            obj(&[
                ("changes?", map_of(int())),
                ("fees?", map_of(int())),
                (
                    "jettons?",
                    map_of(map_of(json!({ "type": "string", "pattern": "^-?[0-9]+$" }))),
                ),
            ]),
            &[400, 404, 422],
        ),
        op(
            "utils",
            "decode",
            "Opcodes to constructor names and message bodies to JSON (GET, or POST with a JSON body)",
            &[&[
                p("opcodes", Kind::Str, "Opcodes: hex (0x optional), decimal or signed decimal (up to 1000)").many(),
                p("bodies", Kind::Str, "Message bodies: BoC in base64 or hex (up to 1000)").many(),
            ]],
            obj(&[
                ("opcodes", array(string())),
                ("bodies", array(ty("object"))),
            ]),
            &[422],
        ),
        op(
            "multisig",
            "multisig/wallets",
            "Multisig v2 wallets the index has read (get_multisig_data), with their orders",
            &[
                &[
                    p("address", Kind::Address, "Multisig contracts").many(),
                    p(
                        "wallet_address",
                        Kind::Address,
                        "Their signers or proposers",
                    )
                    .many(),
                    p(
                        "include_orders",
                        Kind::Bool,
                        "Attach each multisig's orders (default true)",
                    ),
                ],
                PAGING,
                NO_BOOK,
            ],
            multisigs,
            &[422],
        ),
        op(
            "multisig",
            "multisig/orders",
            "Multisig v2 orders their multisig confirms (get_order_data, get_order_address)",
            &[
                &[
                    p("address", Kind::Address, "Order contracts").many(),
                    p("multisig_address", Kind::Address, "Their multisigs").many(),
                    p(
                        "parse_actions",
                        Kind::Bool,
                        "Decode each order's actions (default false)",
                    ),
                ],
                PAGING,
                NO_BOOK,
            ],
            orders,
            &[422],
        ),
        op(
            "vesting",
            "vesting",
            "Standard vesting wallets the index has read (get_vesting_data)",
            &[
                &[
                    p("contract_address", Kind::Address, "Vesting contracts").many(),
                    p("wallet_address", Kind::Address, "Their owners or senders").many(),
                    p(
                        "check_whitelist",
                        Kind::Bool,
                        "With wallet_address: whitelisted wallets match too",
                    ),
                    LIMIT,
                    OFFSET,
                ],
                NO_BOOK,
            ],
            vestings,
            &[422],
        ),
        op(
            "accounts",
            "addressInformation",
            "An account's current state",
            &[ACCOUNT],
            account_info(),
            &[401, 404, 422],
        ),
        op(
            "accounts",
            "account",
            "Alias of addressInformation",
            &[ACCOUNT],
            account_info(),
            &[401, 404, 422],
        ),
        op(
            "accounts",
            "walletInformation",
            "A wallet's current state",
            &[ACCOUNT],
            wallet_info(),
            &[401, 404, 409, 422],
        ),
        op(
            "accounts",
            "wallet",
            "Alias of walletInformation",
            &[ACCOUNT],
            wallet_info(),
            &[401, 404, 409, 422],
        ),
        op(
            "accounts",
            "runGetMethod",
            "Runs a get-method on the account's current state",
            &[
                ACCOUNT,
                &[
                    p("method", Kind::Method, "Method name or id").req(),
                    p("stack", Kind::Stack, "Input stack"),
                ],
            ],
            obj(&[
                ("gas_used", int()),
                ("exit_code", int()),
                ("stack", array(stack_entry)),
            ]),
            &[401, 404, 422, 501],
        ),
        op(
            "accounts",
            "estimateFee",
            "Fees of an external message to the account",
            &[ACCOUNT, ESTIMATE],
            obj(&[
                ("source_fees", refer("Fees")),
                ("destination_fees", array(refer("Fees"))),
            ]),
            &[401, 404, 422],
        ),
        op(
            "traces",
            "traces",
            "Traces by filter (at most one of account, trace_id, tx_hash, msg_hash)",
            &[TRACE_FILTER, PAGING, NO_BOOK],
            obj(&[("traces", array(refer("Trace"))), book(), metadata()]),
            &[404, 422],
        ),
        op(
            "traces",
            "events",
            "Traces by filter, under the key `events`",
            &[TRACE_FILTER, PAGING, NO_BOOK],
            obj(&[("events", array(refer("Trace"))), book(), metadata()]),
            &[404, 422],
        ),
        op(
            "traces",
            "actions",
            "Actions of classified traces by filter",
            &[
                &[
                    p("account", Kind::Address, "Actions involving this account"),
                    p(
                        "tx_hash",
                        Kind::Hash,
                        "Actions including these transactions",
                    )
                    .many(),
                    p(
                        "msg_hash",
                        Kind::Hash,
                        "Actions of traces with these messages",
                    )
                    .many(),
                    p("action_id", Kind::Hash, "Action ids").many(),
                    p("trace_id", Kind::Hash, "Trace ids").many(),
                    p(
                        "mc_seqno",
                        Kind::Int,
                        "Traces completed in this masterchain block",
                    ),
                    p("action_type", Kind::Str, "Only these types").many(),
                    p("exclude_action_type", Kind::Str, "Not these types").many(),
                    p(
                        "supported_action_types",
                        Kind::Str,
                        "Types (and shortcuts v1…v4, latest, groups) the client understands",
                    )
                    .many(),
                    p("include_accounts", Kind::Bool, "Fill `accounts`"),
                    p(
                        "include_transactions",
                        Kind::Bool,
                        "Fill `transactions_full`",
                    ),
                ],
                TIME_LT,
                PAGING,
                NO_BOOK,
            ],
            obj(&[("actions", array(refer("Action"))), book(), metadata()]),
            &[404, 422],
        ),
        op(
            "traces",
            "pendingTraces",
            "Emulated traces of sent messages not executed yet (null when none)",
            &[PENDING_FILTER, NO_BOOK],
            obj(&[
                ("traces", nullable(array(refer("Trace")))),
                book(),
                metadata(),
            ]),
            &[422],
        ),
        op(
            "traces",
            "pendingActions",
            "Actions of emulated traces",
            &[
                PENDING_FILTER,
                &[p(
                    "include_transactions",
                    Kind::Bool,
                    "Fill `transactions_full`",
                )],
                NO_BOOK,
            ],
            obj(&[("actions", array(refer("Action"))), book(), metadata()]),
            &[422],
        ),
        op(
            "traces",
            "pendingTransactions",
            "Emulated transactions on these accounts",
            &[
                &[p("account", Kind::Address, "Accounts (at least one)").many()],
                NO_BOOK,
            ],
            obj(&[("transactions", array(refer("Transaction"))), book()]),
            &[404, 422],
        ),
        op(
            "send",
            "message",
            "Sends an external message",
            &[&[p("boc", Kind::Str, "The message as a base64 BoC").req()]],
            obj(&[
                ("message_hash", b64_hash()),
                ("message_hash_norm", b64_hash()),
            ]),
            &[401, 422],
        ),
    ]
}

/// `/pendingTraces` and `/pendingActions` filters (one is required).
const PENDING_FILTER: &[P] = &[
    p(
        "account",
        Kind::Address,
        "Traces with a transaction on this account",
    ),
    p(
        "ext_msg_hash",
        Kind::Hash,
        "External message hashes (or normalized hashes)",
    )
    .many(),
    p(
        "supported_action_types",
        Kind::Str,
        "Types (and shortcuts v1…v4, latest, groups) the client understands",
    )
    .many(),
];

/// `/traces` and `/events` filters.
const TRACE_FILTER: &[P] = &[
    p(
        "account",
        Kind::Address,
        "Traces with a transaction on this account",
    ),
    p("trace_id", Kind::Hash, "Trace ids").many(),
    p("tx_hash", Kind::Hash, "Traces holding these transactions").many(),
    p(
        "msg_hash",
        Kind::Hash,
        "Traces holding these messages (or normalized hashes)",
    )
    .many(),
    p(
        "mc_seqno",
        Kind::Int,
        "Traces completed in this masterchain block",
    ),
    p("start_utime", Kind::Utime, "Trace end time at or after"),
    p("end_utime", Kind::Utime, "Trace end time at or before"),
    p("start_lt", Kind::Unsigned, "Trace end lt at or after"),
    p("end_lt", Kind::Unsigned, "Trace end lt at or before"),
    p("include_actions", Kind::Bool, "Attach the actions"),
    p(
        "supported_action_types",
        Kind::Str,
        "Types (and shortcuts v1…v4, latest, groups) the client understands",
    )
    .many(),
];

/// `estimateFee`'s fields after `address`, the same in both APIs.
pub(super) const ESTIMATE: &[P] = &[
    p("body", Kind::Str, "Message body, base64 BoC").req(),
    p("init_code", Kind::Str, "StateInit code, base64 BoC"),
    p("init_data", Kind::Str, "StateInit data, base64 BoC"),
    p(
        "ignore_chksig",
        Kind::Bool,
        "Let signature checks pass (default true)",
    ),
];

pub(super) fn v3_doc() -> Value {
    let error = refer("Error");
    let mut paths = Map::new();
    for o in v3_ops() {
        let post = crate::api::v3::is_post_endpoint(o.name);
        let mut operation = json!({
            "tags": [o.tag],
            "summary": o.summary,
            "operationId": o.name,
            "responses": responses(o.ok, o.errors, &error),
        });
        if post {
            operation["requestBody"] = json_body(&o.params, true);
        } else if !o.params.is_empty() {
            operation["parameters"] = query_params(&o.params);
        }
        let method = if post { "post" } else { "get" };
        let mut item = json!({ method: operation.clone() });
        if crate::api::v3::is_get_and_post_endpoint(o.name) {
            let mut as_post = operation;
            as_post["operationId"] = json!(format!("{}_post", o.name));
            if let Some(obj) = as_post.as_object_mut() {
                obj.remove("parameters");
            }
            as_post["requestBody"] = json_body(&o.params, false);
            item["post"] = as_post;
        }
        paths.insert(format!("/api/v3/{}", o.name), item);
    }
    let mut doc = document_shell(
        Which::V3,
        "toncenter's indexed API (v3): `GET /api/v3/<endpoint>` with query parameters (lists as \
         repeated keys), POST with a JSON body for runGetMethod, estimateFee and message. Errors \
         are `{\"error\": \"...\"}` with the HTTP status.",
        crate::api::v3::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": v3_schemas(), "securitySchemes": security_schemes() });
    doc
}
