//! The v2 document: its parameters, schemas and methods (REST and
//! JSON-RPC), from what the v2 handlers read and write (`crate::api::v2`).

use serde_json::{json, Map, Value};

use super::*;

const ADDRESS: P = p("address", Kind::Address, "The account").req();
const AT_SEQNO: P = p(
    "seqno",
    Kind::Positive,
    "Read the state after this masterchain block (default: the newest)",
);
const BLOCK: &[P] = &[
    p("workchain", Kind::Int, "Workchain").req(),
    p("shard", Kind::Int, "Shard id as a signed 64-bit integer").req(),
    p("seqno", Kind::Positive, "Block seqno").req(),
];
const BLOCK_HASHES: &[P] = &[
    p("root_hash", Kind::Hash, "Must match, when given"),
    p("file_hash", Kind::Hash, "Must match, when given"),
];
const LOCATE: &[P] = &[
    p("source", Kind::Address, "Message source").req(),
    p("destination", Kind::Address, "Message destination").req(),
    p("created_lt", Kind::Unsigned, "Message created_lt").req(),
];

fn v2_schemas() -> Value {
    let block_id = obj(&[
        ("@type", at_type("ton.blockIdExt")),
        ("workchain", int()),
        (
            "shard",
            json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
        ),
        ("seqno", int()),
        ("root_hash", b64_hash()),
        ("file_hash", b64_hash()),
    ]);
    let msg_data = obj(&[
        (
            "@type",
            strings(&["msg.dataRaw", "msg.dataText", "msg.dataEncryptedText"]),
        ),
        ("body?", string()),
        ("init_state?", string()),
        ("text?", string()),
    ]);
    let message = |ext: bool| {
        let address = if ext {
            string()
        } else {
            refer("AccountAddress")
        };
        let mut props = vec![
            (
                "@type",
                at_type(if ext { "ext.message" } else { "raw.message" }),
            ),
            ("hash", b64_hash()),
            ("source", address.clone()),
            ("destination", address),
            ("value", dec()),
            ("extra_currencies", array(refer("ExtraCurrency"))),
            ("fwd_fee", dec()),
            ("ihr_fee", dec()),
            ("created_lt", dec()),
            ("body_hash", b64_hash()),
            ("msg_data", refer("MsgData")),
        ];
        if ext {
            props.push(("message?", string()));
        }
        obj(&props)
    };
    let transaction = |ext: bool| {
        let m = refer(if ext { "ExtMessage" } else { "RawMessage" });
        obj(&[
            (
                "@type",
                at_type(if ext {
                    "ext.transaction"
                } else {
                    "raw.transaction"
                }),
            ),
            ("address", refer("AccountAddress")),
            ("account?", raw_address()),
            ("utime", int()),
            ("data", boc()),
            ("transaction_id", refer("TransactionId")),
            ("fee", dec()),
            ("storage_fee", dec()),
            ("other_fee", dec()),
            ("in_msg?", m.clone()),
            ("out_msgs", array(m)),
        ])
    };
    let fees = obj(&[
        ("@type", at_type("fees")),
        ("in_fwd_fee", int()),
        ("storage_fee", int()),
        ("gas_fee", int()),
        ("fwd_fee", int()),
    ]);
    json!({
        "TonBlockIdExt": block_id,
        "TransactionId": obj(&[
            ("@type", at_type("internal.transactionId")),
            ("lt", dec()),
            ("hash", b64_hash()),
        ]),
        "ExtraCurrency": obj(&[
            ("@type", at_type("extraCurrency")),
            ("id", int()),
            ("amount", string()),
        ]),
        "AccountAddress": obj(&[
            ("@type", at_type("accountAddress")),
            ("account_address", string()),
        ]),
        "TvmCell": obj(&[("@type", at_type("tvm.cell")), ("bytes", boc())]),
        "MsgData": msg_data,
        "ExtMessage": message(true),
        "RawMessage": message(false),
        "ExtTransaction": transaction(true),
        "RawTransaction": transaction(false),
        "Fees": fees,
        "Error": obj(&[
            ("ok", strings_bool(false)),
            ("error", string()),
            ("code", int()),
            ("@extra", string()),
        ]),
    })
}

/// A boolean that is always `value`.
fn strings_bool(value: bool) -> Value {
    json!({ "type": "boolean", "enum": [value] })
}

/// v2's success envelope around a method's result.
fn v2_ok(result: Value) -> Value {
    obj(&[
        ("ok", strings_bool(true)),
        ("result", result),
        ("@extra", string()),
    ])
}

fn v2_ops() -> Vec<Op> {
    let block = refer("TonBlockIdExt");
    let tx_id = refer("TransactionId");
    let extra = array(refer("ExtraCurrency"));
    let account_at: &[P] = &[ADDRESS, AT_SEQNO];
    let full_state = obj(&[
        ("@type", at_type("raw.fullAccountState")),
        ("balance", dec()),
        ("extra_currencies", extra.clone()),
        ("code", string()),
        ("data", string()),
        ("last_transaction_id", tx_id.clone()),
        ("block_id", block.clone()),
        ("frozen_hash", string()),
        ("sync_utime", int()),
        ("state", strings(&["uninitialized", "active", "frozen"])),
    ]);
    let extended = obj(&[
        ("@type", at_type("fullAccountState")),
        ("address", refer("AccountAddress")),
        ("balance", dec()),
        ("extra_currencies", extra.clone()),
        ("last_transaction_id", tx_id.clone()),
        ("block_id", block.clone()),
        ("sync_utime", int()),
        (
            "account_state",
            obj(&[(
                "@type",
                strings(&[
                    "uninited.accountState",
                    "wallet.v3.accountState",
                    "wallet.v4.accountState",
                    "raw.accountState",
                ]),
            )]),
        ),
        ("revision", int()),
    ]);
    let wallet = obj(&[
        ("@type", at_type("ext.accounts.walletInformation")),
        ("wallet", boolean()),
        ("balance", dec()),
        (
            "account_state",
            strings(&["uninitialized", "active", "frozen"]),
        ),
        ("last_transaction_id", tx_id.clone()),
        ("wallet_type?", string()),
        ("seqno?", int()),
        ("wallet_id?", int()),
        ("is_signature_allowed?", boolean()),
    ]);
    let run_result = |std: bool| {
        let mut props = vec![
            ("@type", at_type("smc.runResult")),
            ("gas_used", int()),
            (
                "stack",
                array(json!({ "type": if std { "object" } else { "array" } })),
            ),
            ("exit_code", int()),
        ];
        if !std {
            props.push(("block_id", block.clone()));
            props.push(("last_transaction_id", tx_id.clone()));
        }
        obj(&props)
    };
    let run: &[P] = &[
        ADDRESS,
        p("method", Kind::Method, "Method name or integer id").req(),
        p("stack", Kind::Stack, "Input stack entries"),
        AT_SEQNO,
    ];
    let ext_info = obj(&[
        ("@type", at_type("raw.extMessageInfo")),
        ("hash", b64_hash()),
        ("hash_norm", b64_hash()),
    ]);
    let boc_param: &[P] = &[p("boc", Kind::Str, "The external message as a base64 BoC").req()];
    let block_txs = |ext: bool| {
        let item = if ext {
            refer("RawTransaction")
        } else {
            obj(&[
                ("@type", at_type("blocks.shortTxId")),
                ("mode", int()),
                ("account", string()),
                ("lt", dec()),
                ("hash", b64_hash()),
            ])
        };
        obj(&[
            (
                "@type",
                at_type(if ext {
                    "blocks.transactionsExt"
                } else {
                    "blocks.transactions"
                }),
            ),
            ("id", block.clone()),
            ("req_count", int()),
            ("incomplete", boolean()),
            ("transactions", array(item)),
        ])
    };
    let block_page: &[P] = &[
        p(
            "after_lt",
            Kind::Unsigned,
            "Cursor: the last seen transaction's lt",
        ),
        p(
            "after_hash",
            Kind::Str,
            "Cursor: the last seen account (hash or address)",
        ),
        p(
            "count",
            Kind::Positive,
            "Page size, 1 to 10000 (default 40)",
        ),
    ];
    let history: &[P] = &[
        ADDRESS,
        p("limit", Kind::Positive, "At most this many (default 10)"),
        p(
            "lt",
            Kind::Unsigned,
            "Start from this transaction (with hash)",
        ),
        p("hash", Kind::Hash, "Start from this transaction (with lt)"),
        p("to_lt", Kind::Unsigned, "Stop at this lt (exclusive)"),
    ];
    let address_only: &[P] = &[ADDRESS];
    let config_info = obj(&[
        ("@type", at_type("configInfo")),
        ("config", refer("TvmCell")),
    ]);
    let variant = obj(&[
        ("@type", at_type("ext.utils.detectedAddressVariant")),
        ("b64", string()),
        ("b64url", string()),
    ]);
    let mc_seqno: &[P] = &[p("seqno", Kind::Positive, "Masterchain block seqno").req()];
    let shards = obj(&[
        ("@type", at_type("blocks.shards")),
        ("shards", array(block.clone())),
    ]);
    let locate = "The destination's transaction that received the message";
    vec![
        op(
            "accounts",
            "getAddressInformation",
            "An account's state",
            &[account_at],
            full_state,
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getExtendedAddressInformation",
            "An account's state with its detected wallet",
            &[account_at],
            extended,
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getWalletInformation",
            "An account's wallet details",
            &[account_at],
            wallet,
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getTokenData",
            "What a Jetton master or wallet, NFT collection or item says of itself (409: not a token, or not confirmed by its master or collection)",
            &[account_at],
            obj(&[
                (
                    "@type",
                    strings(&[
                        "ext.tokens.jettonMasterData",
                        "ext.tokens.jettonWalletData",
                        "ext.tokens.nftCollectionData",
                        "ext.tokens.nftItemData",
                    ]),
                ),
                ("address", string()),
                (
                    "contract_type",
                    strings(&["jetton_master", "jetton_wallet", "nft_collection", "nft_item"]),
                ),
                ("total_supply?", dec()),
                ("mintable?", boolean()),
                ("admin_address?", string()),
                ("jetton_content?", nullable(ty("object"))),
                ("jetton_wallet_code?", boc()),
                ("balance?", dec()),
                ("owner?", string()),
                ("jetton?", string()),
                (
                    "next_item_index?",
                    json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
                ),
                ("owner_address?", string()),
                ("collection_content?", nullable(ty("object"))),
                ("init?", boolean()),
                ("index?", dec()),
                ("collection_address?", string()),
                ("content?", nullable(ty("object"))),
            ]),
            &[404, 409, 422, 501],
        ),
        op(
            "accounts",
            "getAddressBalance",
            "An account's balance in nanotons",
            &[account_at],
            dec(),
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getAddressState",
            "An account's status",
            &[account_at],
            strings(&["uninitialized", "active", "frozen"]),
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "getShardAccountCell",
            "An account's ShardAccount cell",
            &[account_at],
            refer("TvmCell"),
            &[404, 422, 501],
        ),
        op(
            "accounts",
            "dnsResolve",
            "Resolves a TEP-81 name with the given resolver's dnsresolve, following next \
             resolvers while ttl allows (409: the contract cannot resolve it)",
            &[
                &[ADDRESS],
                &[
                    p("name", Kind::Str, "The name (absolute; default: the resolver itself)"),
                    p("category", Kind::Str, "Accepted and not used: every category is returned"),
                    p("ttl", Kind::Unsigned, "How many next resolvers to follow (default 0)"),
                ],
                &[AT_SEQNO],
            ],
            obj(&[
                ("@type", at_type("dns.resolved")),
                (
                    "entries",
                    array(obj(&[
                        ("@type", at_type("dns.entry")),
                        ("name", string()),
                        ("category", b64_hash()),
                        (
                            "entry",
                            obj(&[
                                (
                                    "@type",
                                    strings(&[
                                        "dns.entryDataNextResolver",
                                        "dns.entryDataSmcAddress",
                                        "dns.entryDataAdnlAddress",
                                        "dns.entryDataStorageAddress",
                                        "dns.entryDataText",
                                        "dns.entryDataUnknown",
                                    ]),
                                ),
                                ("resolver?", refer("AccountAddress")),
                                ("smc_address?", refer("AccountAddress")),
                                (
                                    "adnl_address?",
                                    obj(&[
                                        ("@type", at_type("adnlAddress")),
                                        ("adnl_address", string()),
                                    ]),
                                ),
                                ("bag_id?", string()),
                                ("text?", string()),
                                ("bytes?", string()),
                            ]),
                        ),
                    ])),
                ),
            ]),
            &[404, 409, 422],
        ),
        op(
            "run method",
            "runGetMethod",
            "Runs a get-method (tonlib's stack form)",
            &[run],
            run_result(false),
            &[404, 422, 501, 533, 542],
        ),
        op(
            "run method",
            "runGetMethodStd",
            "Runs a get-method (tvm.StackEntry form)",
            &[run],
            run_result(true),
            &[404, 422, 501, 533, 542],
        ),
        op(
            "send",
            "estimateFee",
            "Fees of an external message to the account",
            &[&[ADDRESS], ESTIMATE],
            obj(&[
                ("@type", at_type("query.fees")),
                ("source_fees", refer("Fees")),
                ("destination_fees", array(refer("Fees"))),
            ]),
            &[404, 422],
        ),
        op(
            "send",
            "sendBoc",
            "Sends an external message",
            &[boc_param],
            obj(&[("@type", at_type("ok"))]),
            &[422],
        ),
        op(
            "send",
            "sendBocReturnHash",
            "Sends an external message, returning its hashes",
            &[boc_param],
            ext_info.clone(),
            &[422],
        ),
        op(
            "send",
            "sendBocReturnHashNoError",
            "Sends an external message; a failed send is a 400",
            &[boc_param],
            ext_info,
            &[400, 422],
        ),
        op(
            "blocks",
            "getMasterchainInfo",
            "The newest indexed masterchain block",
            &[],
            obj(&[
                ("@type", at_type("blocks.masterchainInfo")),
                ("last", block.clone()),
                ("state_root_hash", b64_hash()),
                ("init", block.clone()),
            ]),
            &[],
        ),
        op(
            "blocks",
            "getMasterchainBlockSignatures",
            "Validator signatures of a masterchain block (a chain this process runs)",
            &[mc_seqno],
            obj(&[
                ("@type", at_type("blocks.blockSignatures")),
                ("id", block.clone()),
                ("signatures", array(ty("object"))),
            ]),
            &[404, 422, 501],
        ),
        op(
            "blocks",
            "getShardBlockProof",
            "Proof of a block from a masterchain block (a chain this process runs)",
            &[
                BLOCK,
                &[p(
                    "from_seqno",
                    Kind::Positive,
                    "Masterchain block to prove from (default: the newest)",
                )],
            ],
            obj(&[
                ("@type", at_type("blocks.shardBlockProof")),
                ("from", block.clone()),
                ("mc_id", block.clone()),
                ("links", array(ty("object"))),
                ("mc_proof", array(ty("object"))),
            ]),
            &[404, 422, 501],
        ),
        op(
            "blocks",
            "getConsensusBlock",
            "The newest indexed masterchain block's seqno",
            &[],
            obj(&[
                ("@type", at_type("ext.blocks.consensusBlock")),
                ("consensus_block", int()),
                ("timestamp", int()),
            ]),
            &[],
        ),
        op(
            "blocks",
            "lookupBlock",
            "A block by seqno, logical time or unix time",
            &[&[
                p("workchain", Kind::Int, "Workchain").req(),
                p("shard", Kind::Int, "Shard id as a signed 64-bit integer").req(),
                p("seqno", Kind::Positive, "Block seqno"),
                p("lt", Kind::Unsigned, "A logical time within the block"),
                p(
                    "unixtime",
                    Kind::Unsigned,
                    "The newest block at or before this time",
                ),
            ]],
            block.clone(),
            &[404, 422],
        ),
        op(
            "blocks",
            "getShards",
            "Shard blocks of a masterchain block's state",
            &[mc_seqno],
            shards.clone(),
            &[404, 422],
        ),
        op(
            "blocks",
            "shards",
            "Alias of getShards",
            &[mc_seqno],
            shards,
            &[404, 422],
        ),
        op(
            "blocks",
            "getBlockHeader",
            "A block's header",
            &[BLOCK, BLOCK_HASHES],
            obj(&[
                ("@type", at_type("blocks.header")),
                ("id", block.clone()),
                ("global_id", int()),
                ("version", int()),
                ("after_merge", boolean()),
                ("after_split", boolean()),
                ("before_split", boolean()),
                ("want_merge", boolean()),
                ("want_split", boolean()),
                ("validator_list_hash_short", int()),
                ("catchain_seqno", int()),
                ("min_ref_mc_seqno", int()),
                ("is_key_block", boolean()),
                ("prev_key_block_seqno", int()),
                ("start_lt", dec()),
                ("end_lt", dec()),
                ("gen_utime", int()),
                ("prev_blocks", array(block.clone())),
            ]),
            &[404, 422],
        ),
        op(
            "blocks",
            "getOutMsgQueueSize",
            "Outbound queue sizes of the newest blocks (a chain this process runs)",
            &[],
            obj(&[
                ("@type", at_type("blocks.outMsgQueueSizes")),
                (
                    "shards",
                    array(obj(&[("id", block.clone()), ("size", int())])),
                ),
                ("ext_msg_queue_size_limit", int()),
            ]),
            &[501],
        ),
        op(
            "transactions",
            "getBlockTransactions",
            "Short ids of a block's transactions",
            &[BLOCK, BLOCK_HASHES, block_page],
            block_txs(false),
            &[404, 422],
        ),
        op(
            "transactions",
            "getBlockTransactionsExt",
            "A block's transactions",
            &[BLOCK, BLOCK_HASHES, block_page],
            block_txs(true),
            &[404, 422],
        ),
        op(
            "transactions",
            "getTransactions",
            "An account's transactions, newest first",
            &[history],
            array(refer("ExtTransaction")),
            &[404, 422],
        ),
        op(
            "transactions",
            "getTransactionsStd",
            "An account's transactions, newest first (raw.transactions)",
            &[history],
            obj(&[
                ("@type", at_type("raw.transactions")),
                ("transactions", array(refer("RawTransaction"))),
                ("previous_transaction_id", tx_id),
            ]),
            &[404, 422],
        ),
        op(
            "transactions",
            "tryLocateTx",
            locate,
            &[LOCATE],
            refer("ExtTransaction"),
            &[404, 422],
        ),
        op(
            "transactions",
            "tryLocateResultTx",
            "Alias of tryLocateTx",
            &[LOCATE],
            refer("ExtTransaction"),
            &[404, 422],
        ),
        op(
            "transactions",
            "tryLocateSourceTx",
            "The source's transaction that sent the message",
            &[LOCATE],
            refer("ExtTransaction"),
            &[404, 422],
        ),
        op(
            "utils",
            "detectAddress",
            "All forms of an address",
            &[address_only],
            obj(&[
                ("@type", at_type("ext.utils.detectedAddress")),
                ("raw_form", string()),
                ("bounceable", variant.clone()),
                ("non_bounceable", variant),
                (
                    "given_type",
                    strings(&["raw_form", "friendly_bounceable", "friendly_non_bounceable"]),
                ),
                ("test_only", boolean()),
            ]),
            &[422],
        ),
        op(
            "utils",
            "detectHash",
            "All forms of a hash",
            &[&[p("hash", Kind::Hash, "The hash").req()]],
            obj(&[
                ("@type", at_type("ext.utils.detectedHash")),
                ("b64", b64_hash()),
                ("b64url", string()),
                (
                    "hex",
                    json!({ "type": "string", "pattern": "^[0-9a-f]{64}$" }),
                ),
            ]),
            &[422],
        ),
        op(
            "utils",
            "packAddress",
            "An address in user-friendly url-safe form",
            &[address_only],
            string(),
            &[422],
        ),
        op(
            "utils",
            "unpackAddress",
            "An address in raw form",
            &[address_only],
            raw_address(),
            &[422],
        ),
        op(
            "config",
            "getConfigParam",
            "One blockchain config parameter (config_id or param is required)",
            &[&[
                p("config_id", Kind::Unsigned, "Parameter number"),
                p(
                    "param",
                    Kind::Unsigned,
                    "Parameter number (when config_id is absent)",
                ),
                p(
                    "seqno",
                    Kind::Positive,
                    "In force at this masterchain block (default: the newest)",
                ),
            ]],
            config_info.clone(),
            &[404, 422],
        ),
        op(
            "config",
            "getConfigAll",
            "The whole blockchain config",
            &[&[p(
                "seqno",
                Kind::Positive,
                "In force at this masterchain block (default: the newest)",
            )]],
            config_info,
            &[404, 422],
        ),
        op(
            "config",
            "getLibraries",
            "Library cells by hash (unknown ones are left out)",
            &[&[p("libraries", Kind::Hash, "Library hashes").many()]],
            obj(&[
                ("@type", at_type("smc.libraryResult")),
                (
                    "result",
                    array(obj(&[
                        ("@type", at_type("smc.libraryEntry")),
                        ("hash", b64_hash()),
                        ("data", boc()),
                    ])),
                ),
            ]),
            &[422],
        ),
    ]
}

pub(super) fn v2_doc() -> Value {
    let error = refer("Error");
    let mut paths = Map::new();
    let ops = v2_ops();
    for o in &ops {
        let ok = v2_ok(o.ok.clone());
        let mut get_op = json!({
            "tags": [o.tag],
            "summary": o.summary,
            "operationId": format!("{}_get", o.name),
            "responses": responses(ok.clone(), o.errors, &error),
        });
        if !o.params.is_empty() {
            get_op["parameters"] = query_params(&o.params);
        }
        let mut post_op = json!({
            "tags": [o.tag],
            "summary": o.summary,
            "operationId": format!("{}_post", o.name),
            "responses": responses(ok, o.errors, &error),
        });
        let body = json_body(&o.params, false);
        if o.params.iter().any(|p| p.required) {
            post_op["requestBody"] = body;
        } else {
            post_op["requestBody"] = json!({ "required": false, "content": body["content"] });
        }
        paths.insert(
            format!("/api/v2/{}", o.name),
            json!({ "get": get_op, "post": post_op }),
        );
    }
    let methods: Vec<&str> = ops.iter().map(|o| o.name).collect();
    let rpc_ok = obj(&[
        ("ok", strings_bool(true)),
        ("result", json!({ "type": ["object", "array", "string"] })),
        ("@extra", string()),
        ("jsonrpc", strings(&["2.0"])),
        ("id?", string()),
    ]);
    let rpc_body = obj(&[
        ("method", strings(&methods)),
        ("params?", ty("object")),
        ("id?", json!({ "type": ["string", "integer"] })),
        ("jsonrpc?", string()),
    ]);
    paths.insert(
        "/api/v2/jsonRPC".into(),
        json!({ "post": {
            "tags": ["json-rpc"],
            "summary": "Calls any method above: {method, params, id}; the answer echoes id",
            "operationId": "jsonRPC",
            "requestBody": {
                "required": true,
                "content": { "application/json": { "schema": rpc_body } },
            },
            "responses": responses(rpc_ok, &[404, 422, 501], &error),
        }}),
    );
    let mut doc = document_shell(
        Which::V2,
        "toncenter's API v2: every method by GET with query parameters or by POST with a JSON \
         body, and all of them through `POST /api/v2/jsonRPC`. Answers are `{\"ok\": true, \
         \"result\", \"@extra\"}`; errors `{\"ok\": false, \"error\", \"code\", \"@extra\"}` with \
         the HTTP status equal to `code`.",
        crate::api::v2::NOT_YET,
        paths,
    );
    doc["components"] = json!({ "schemas": v2_schemas(), "securitySchemes": security_schemes() });
    doc
}
