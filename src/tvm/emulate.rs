//! Executing a message against an account: tycho-executor runs the
//! phases of an ordinary transaction as a node does, so an emulated
//! transaction hashes like the real one, and fee estimates come from the
//! same run.

use tycho_executor::{
    Executor, ExecutorInspector, ExecutorParams, ParsedConfig, TxError, UncommittedTransaction,
};
use tycho_types::cell::{Cell, CellBuilder, HashBytes, Lazy, StorageStat};
use tycho_types::dict::Dict;
use tycho_types::models::{
    BlockchainConfig, BlockchainConfigParams, ComputePhase, GlobalCapability, HashUpdate, IntAddr,
    LibDescr, MsgInfo, OptionalAccount, OutAction, OwnedRelaxedMessage, ShardAccount, StdAddr,
    Transaction, TxInfo,
};
use tycho_types::num::Tokens;
use tycho_types::prelude::*;

use crate::state::storage_dict;
use crate::tvm::{blockchain_config as config, ordinary};

/// A blockchain config ready for execution (prices parsed once).
pub struct ExecConfig(ParsedConfig);

impl ExecConfig {
    /// Parses `params` for transactions at `now` (storage prices change
    /// over time). Contracts see `params` as given; only the executor's
    /// own view of the workchain list is normalised.
    pub fn new(params: BlockchainConfigParams, now: u32) -> Result<Self, EmulateError> {
        let bad = |e: tycho_types::error::Error| EmulateError::Config(e.to_string());
        // The config address (param 0) decides which accounts are special.
        let address = params
            .get::<tycho_types::models::ConfigParam0>()
            .ok()
            .flatten()
            .unwrap_or_default();
        let readable = config::with_readable_workchains(&params).map_err(bad)?;
        let mut parsed = ParsedConfig::parse(
            BlockchainConfig {
                address,
                params: readable,
            },
            now,
        )
        .map_err(bad)?;
        parsed.raw.params = params;
        Ok(Self(parsed))
    }
}

/// The block a transaction is emulated in.
#[derive(Debug, Clone, Default)]
pub struct BlockContext {
    pub now: u32,
    /// The block's start lt (c7's block lt).
    pub block_lt: u64,
    /// The lowest lt the transaction may take (a node's next free lt).
    pub min_lt: u64,
    /// The block's random seed; mixed with the account address as a node does.
    pub rand_seed: HashBytes,
    /// Public libraries of the masterchain state.
    pub libraries: Dict<HashBytes, LibDescr>,
    /// Signature checks succeed whatever the signature (fee estimates).
    pub ignore_chksig: bool,
}

/// An executed transaction.
pub struct Emulation {
    /// The transaction root: its hash is the transaction hash.
    pub transaction: Cell,
    /// The account after the transaction.
    pub account: ShardAccount,
}

impl Emulation {
    /// The transaction as a model (its phases and fees).
    pub fn parsed(&self) -> Result<Transaction, EmulateError> {
        self.transaction
            .parse::<Transaction>()
            .map_err(|e| EmulateError::Fatal(e.to_string()))
    }
}

/// Why no transaction came out.
#[derive(Debug, thiserror::Error)]
pub enum EmulateError {
    #[error("invalid message: {0}")]
    Message(String),
    #[error("invalid blockchain config: {0}")]
    Config(String),
    /// An external message the account did not accept: a node drops it.
    #[error("external message was not accepted ({})", not_accepted_why(.exit_code))]
    NotAccepted { exit_code: Option<i32> },
    #[error("execution failed: {0}")]
    Fatal(String),
}

/// Why an external message was not accepted, in words.
fn not_accepted_why(exit_code: &Option<i32>) -> String {
    match exit_code {
        Some(code) => format!("exit code {code}"),
        None => "no code ran: the account has no code or cannot pay for the run".into(),
    }
}

/// The destination of an inbound message, and whether it is external.
pub fn message_destination(msg: &Cell) -> Result<(StdAddr, bool), EmulateError> {
    let info = msg
        .parse::<MsgInfo>()
        .map_err(|e| EmulateError::Message(e.to_string()))?;
    let (dst, external) = match info {
        MsgInfo::Int(info) => (info.dst, false),
        MsgInfo::ExtIn(info) => (info.dst, true),
        MsgInfo::ExtOut(_) => {
            return Err(EmulateError::Message(
                "an outbound external message cannot be executed".into(),
            ))
        }
    };
    match dst {
        IntAddr::Std(a) => Ok((a, external)),
        IntAddr::Var(_) => Err(EmulateError::Message(
            "variable-length destination addresses are not supported".into(),
        )),
    }
}

fn executor_params(config: &ExecConfig, block: &BlockContext) -> ExecutorParams {
    let caps = config.0.global.capabilities;
    let mut params = ExecutorParams {
        libraries: block.libraries.clone(),
        rand_seed: block.rand_seed,
        block_unixtime: block.now,
        block_lt: block.block_lt,
        // A bounce carries the whole original body in a reference only
        // where the config enables it (mainnet's does not: 256 bits inline).
        full_body_in_bounced: caps.contains(GlobalCapability::CapFullBodyInBounced),
        strict_extra_currency: true,
        charge_action_fees_on_fail: true,
        ..Default::default()
    };
    params.vm_modifiers.chksig_always_succeed = block.ignore_chksig;
    params
}

/// What the compute phase left for a fee estimate.
#[derive(Debug, Default)]
pub struct ComputeTrace {
    pub exit_code: Option<i32>,
    /// The action list the code produced (`OutList`).
    pub actions: Option<Cell>,
}

/// The state of an address with no account (`account_none`).
pub fn no_account() -> ShardAccount {
    ShardAccount {
        account: Lazy::new(&OptionalAccount::EMPTY).expect("account_none fits in a cell"),
        last_trans_hash: HashBytes::ZERO,
        last_trans_lt: 0,
    }
}

/// Why a trace could not be emulated.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The first message (the external one) was not executed: the chain
    /// would not take it either.
    #[error("{0}")]
    First(EmulateError),
    /// An account's state could not be had.
    #[error("{0}")]
    State(String),
    #[error("{0}")]
    Internal(String),
}

/// The library an account's code is, when its code root is a library
/// reference (as USDT wallets' is): its hash.
pub fn code_library(account: &ShardAccount) -> Option<HashBytes> {
    let account = account.load_account().ok()??;
    let tycho_types::models::AccountState::Active(init) = account.state else {
        return None;
    };
    let code = init.code?;
    if code.descriptor().cell_type() != tycho_types::cell::CellType::LibraryReference {
        return None;
    }
    let data = code.data();
    Some(HashBytes(data.get(1..33)?.try_into().ok()?))
}

/// Emulates `msg` and every internal message it causes, breadth first,
/// each on its destination's state (`state_of`, asked once per account,
/// with library cells the account needs beyond `block`'s; later messages
/// see the states earlier ones left): the transaction
/// cells in execution order, at most `max_txs`. Logical times grow from
/// `block.block_lt` and past every account's last transaction; a later
/// message that cannot be executed is left out with what it would cause.
pub fn emulate_trace(
    config: &ExecConfig,
    mut block: BlockContext,
    msg: Cell,
    max_txs: usize,
    mut state_of: impl FnMut(&StdAddr) -> Result<(ShardAccount, Vec<Cell>), String>,
) -> Result<EmulatedTrace, TraceError> {
    let internal = |e: EmulateError| TraceError::Internal(e.to_string());
    let mut states: std::collections::HashMap<StdAddr, ShardAccount> = Default::default();
    let mut queue = std::collections::VecDeque::from([msg]);
    let mut out = Vec::new();
    let mut seen = std::collections::HashMap::new();
    let mut incomplete = false;
    while let Some(m) = queue.pop_front() {
        if out.len() >= max_txs {
            incomplete = true;
            break;
        }
        let (dst, _) = message_destination(&m).map_err(internal)?;
        let account = match states.get(&dst) {
            Some(a) => a.clone(),
            None => {
                let (account, libraries) = state_of(&dst).map_err(TraceError::State)?;
                for lib in libraries {
                    let hash = *lib.repr_hash();
                    block
                        .libraries
                        .set(hash, crate::tvm::getmethod::library_descr(lib))
                        .map_err(|e| TraceError::Internal(e.to_string()))?;
                }
                account
            }
        };
        let lt = block.block_lt.max(account.last_trans_lt + 1);
        block.block_lt = lt;
        block.min_lt = block.min_lt.max(lt);
        let emulation = match emulate(config, &block, &account, m) {
            Ok(e) => e,
            Err(e) if out.is_empty() => return Err(TraceError::First(e)),
            Err(_) => continue,
        };
        let tx = emulation.parsed().map_err(internal)?;
        for sent in tx.out_msgs.values() {
            let sent = sent.map_err(|e| TraceError::Internal(e.to_string()))?;
            let info: MsgInfo = sent
                .parse()
                .map_err(|e| TraceError::Internal(e.to_string()))?;
            if matches!(info, MsgInfo::Int(_)) {
                queue.push_back(sent);
            }
        }
        let next = tx.lt + 1 + u64::from(tx.out_msg_count.into_inner());
        block.block_lt = block.block_lt.max(next);
        block.min_lt = block.min_lt.max(next);
        for a in [&account, &emulation.account] {
            let cell = a.account.inner();
            seen.insert(*cell.repr_hash(), cell.clone());
        }
        states.insert(dst, emulation.account);
        out.push(emulation.transaction);
    }
    Ok(EmulatedTrace {
        txs: out,
        states: seen,
        incomplete,
    })
}

/// An emulated trace: its transactions and the account states around them.
pub struct EmulatedTrace {
    /// Transaction cells in execution order.
    pub txs: Vec<Cell>,
    /// Every account state before or after one of them (`Account` cells by
    /// their hashes: the transactions' `account_state_hash_before/after`).
    pub states: std::collections::HashMap<HashBytes, Cell>,
    /// Whether `max_txs` cut it short (messages left unexecuted).
    pub incomplete: bool,
}

/// Executes `msg` on `account` (`ShardAccount`; an `account_none` one for
/// an address that does not exist yet) inside `block`.
pub fn emulate(
    config: &ExecConfig,
    block: &BlockContext,
    account: &ShardAccount,
    msg: Cell,
) -> Result<Emulation, EmulateError> {
    emulate_traced(config, block, account, msg, &mut ComputeTrace::default())
}

/// [`emulate`] that also reports the compute phase's exit code and actions,
/// even when the message is not accepted.
pub fn emulate_traced(
    config: &ExecConfig,
    block: &BlockContext,
    account: &ShardAccount,
    msg: Cell,
    trace: &mut ComputeTrace,
) -> Result<Emulation, EmulateError> {
    let (address, external) = message_destination(&msg)?;
    let params = executor_params(config, block);
    let mut inspector = ExecutorInspector::default();
    let executor = Executor::new(&params, &config.0).with_min_lt(block.min_lt);
    let result = (|| {
        let state = account
            .load_account()
            .map_err(|e| TxError::Fatal(anyhow::anyhow!("account: {e}")))?;
        let mut exec = executor.begin(&address, state).map_err(TxError::Fatal)?;
        let info = ordinary::run(&mut exec, external, msg.clone(), Some(&mut inspector))?;
        UncommittedTransaction::with_info(exec, account, Some(msg), info).map_err(TxError::Fatal)
    })();
    trace.exit_code = inspector.exit_code;
    trace.actions = inspector.actions.take();
    let output = match result {
        Ok(tx) => tx
            .commit()
            .map_err(|e| EmulateError::Fatal(format!("{e:#}")))?,
        Err(TxError::Skipped) => {
            return Err(EmulateError::NotAccepted {
                exit_code: trace.exit_code,
            })
        }
        Err(TxError::Fatal(e)) => return Err(EmulateError::Fatal(format!("{e:#}"))),
    };
    with_storage_dict(Emulation {
        transaction: output.transaction.into_inner(),
        account: output.new_state,
    })
}

/// tycho-executor carries an account's `storage_extra` over unchanged; a
/// node recomputes it from the new storage. Where they differ, the account
/// is rewritten and the transaction's state update (and so its hash) with it.
fn with_storage_dict(emulation: Emulation) -> Result<Emulation, EmulateError> {
    let fatal = |e: tycho_types::error::Error| EmulateError::Fatal(e.to_string());
    let Some(mut account) = emulation.account.load_account().map_err(fatal)? else {
        return Ok(emulation);
    };
    let extra = storage_dict::storage_extra(&account).map_err(fatal)?;
    if extra == account.storage_stat.storage_extra {
        return Ok(emulation);
    }
    account.storage_stat.storage_extra = extra;
    let account = Lazy::new(&OptionalAccount(Some(account))).map_err(fatal)?;
    let mut tx = emulation.parsed()?;
    let update = tx.state_update.load().map_err(fatal)?;
    tx.state_update = Lazy::new(&HashUpdate {
        old: update.old,
        new: *account.repr_hash(),
    })
    .map_err(fatal)?;
    let transaction = CellBuilder::build_from(&tx).map_err(fatal)?;
    Ok(Emulation {
        account: ShardAccount {
            account,
            last_trans_hash: *transaction.repr_hash(),
            last_trans_lt: emulation.account.last_trans_lt,
        },
        transaction,
    })
}

/// tonlib's fee estimate (`query.fees`) for an external message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fees {
    /// Import fee of the inbound message.
    pub in_fwd_fee: u128,
    /// Storage fee due since the account last paid.
    pub storage_fee: u128,
    /// Gas of the compute phase, when the message is accepted.
    pub gas_fee: u128,
    /// Forwarding fees of the messages the code sends.
    pub fwd_fee: u128,
}

/// Cells and bits a message is charged for: everything below its root
/// cell, each distinct cell once.
fn message_stats(root: &Cell) -> tycho_types::cell::CellTreeStats {
    let mut stat = StorageStat::unlimited();
    for child in root.references() {
        stat.add_cell(child);
    }
    stat.stats()
}

/// Estimates what executing the external message `msg` costs, as tonlib
/// does: the import fee, the storage fee due at `block.now`, the gas of an
/// accepted compute phase and the forwarding fees of the sent messages
/// (zero for the last two when the message is not accepted).
pub fn estimate_fees(
    config: &ExecConfig,
    block: &BlockContext,
    account: &ShardAccount,
    msg: Cell,
) -> Result<Fees, EmulateError> {
    let (address, external) = message_destination(&msg)?;
    if !external {
        return Err(EmulateError::Message(
            "fees are estimated for inbound external messages".into(),
        ));
    }
    let parsed = &config.0;
    let mc = address.is_masterchain();
    let mut fees = Fees {
        in_fwd_fee: parsed
            .fwd_prices(mc)
            .compute_fwd_fee(message_stats(&msg))
            .into_inner(),
        ..Fees::default()
    };
    if let Some(acc) = account
        .load_account()
        .map_err(|e| EmulateError::Fatal(e.to_string()))?
    {
        fees.storage_fee = parsed
            .compute_storage_fees(&acc.storage_stat, block.now, false, mc)
            .into_inner();
    }
    let mut trace = ComputeTrace::default();
    let tx = match emulate_traced(config, block, account, msg, &mut trace) {
        Ok(e) => e.parsed()?,
        Err(EmulateError::NotAccepted { .. }) => return Ok(fees),
        Err(e) => return Err(e),
    };
    let info = tx
        .load_info()
        .map_err(|e| EmulateError::Fatal(e.to_string()))?;
    if let TxInfo::Ordinary(info) = info {
        if let ComputePhase::Executed(compute) = info.compute_phase {
            fees.gas_fee = compute.gas_fees.into_inner();
            if compute.success {
                if let Some(actions) = &trace.actions {
                    fees.fwd_fee = actions_fwd_fee(parsed, mc, actions)?;
                }
            }
        }
    }
    Ok(fees)
}

/// Forwarding fees of the `send_msg` actions in an action list; reserve
/// and other actions cost nothing here.
fn actions_fwd_fee(
    config: &ParsedConfig,
    from_mc: bool,
    list: &Cell,
) -> Result<u128, EmulateError> {
    let bad = |e: tycho_types::error::Error| EmulateError::Fatal(format!("action list: {e}"));
    let mut total = Tokens::ZERO;
    let mut next = list.clone();
    // out_list$_ prev:^(OutList n) action:OutAction; out_list_empty$_ = OutList 0.
    while next.reference_count() > 0 {
        let mut cs = next.as_slice().map_err(bad)?;
        let prev = cs.load_reference_cloned().map_err(bad)?;
        if let Ok(OutAction::SendMsg { out_msg, .. }) = OutAction::load_from(&mut cs) {
            let to_mc = out_msg
                .parse::<OwnedRelaxedMessage>()
                .ok()
                .and_then(|m| match m.info {
                    tycho_types::models::RelaxedMsgInfo::Int(i) => Some(i.dst.is_masterchain()),
                    _ => None,
                })
                .unwrap_or(false);
            total = total.saturating_add(
                config
                    .fwd_prices(from_mc || to_mc)
                    .compute_fwd_fee(message_stats(out_msg.inner())),
            );
        }
        next = prev;
    }
    Ok(total.into_inner())
}

/// An external inbound message to `dst` carrying `body`, with a state
/// init when both `code` and `data` are given (a deployment).
pub fn external_message(
    dst: &StdAddr,
    body: Cell,
    code: Option<Cell>,
    data: Option<Cell>,
) -> Result<Cell, tycho_types::error::Error> {
    use tycho_types::models::{ExtInMsgInfo, Message, StateInit};
    let init = match (code, data) {
        (None, None) => None,
        (code, data) => Some(StateInit {
            split_depth: None,
            special: None,
            code,
            data,
            libraries: Dict::new(),
        }),
    };
    CellBuilder::build_from(Message {
        info: MsgInfo::ExtIn(ExtInMsgInfo {
            src: None,
            dst: IntAddr::Std(dst.clone()),
            import_fee: Tokens::ZERO,
        }),
        init,
        body: body.as_slice_allow_exotic(),
        layout: None,
    })
}
