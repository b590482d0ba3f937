//! The phases of an ordinary transaction, run on tycho-executor's phase
//! functions in a node's order, with what tycho-executor 0.3.7 does
//! otherwise than a node: precompiled contracts (config param 45), library
//! entry gas, and the compute phase's `msg_state_used`/`account_activated`
//! flags, which a node leaves false.
//!
//! A node charges a contract whose code hash param 45 lists the listed gas,
//! whatever TVM used: it skips the compute phase (`cskip_no_gas`) when the
//! balance cannot pay that gas, otherwise runs the code and then reports
//! `gas_used` = the listed gas, `vm_steps` = 0 and zero VM state hashes, with
//! the gas fee (and so the balance the action phase sees) computed from it.

use anyhow::{anyhow, Context as _};
use tycho_executor::phase::{
    ActionPhaseContext, BouncePhaseContext, ComputePhaseContext, ComputePhaseFull, ReceivedMessage,
    StoragePhaseContext, TransactionInput,
};
use tycho_executor::{ExecutorInspector, ExecutorState, TxError, TxResult};
use tycho_types::cell::{Cell, CellFamily, HashBytes};
use tycho_types::models::{
    AccountState, AccountStatus, ActionPhase, BouncePhase, BounceReason, ComputePhase,
    ComputePhaseSkipReason, ExecutedComputePhase, NewBounceComputePhaseInfo, OrdinaryTxInfo,
    SkippedComputePhase, StateInit,
};
use tycho_types::num::{Tokens, VarUint56};

use crate::tvm::getmethod::precompiled_gas;

/// Runs `msg_root` on `exec` as an ordinary transaction.
pub fn run(
    exec: &mut ExecutorState<'_>,
    is_external: bool,
    msg_root: Cell,
    mut inspector: Option<&mut ExecutorInspector<'_>>,
) -> TxResult<OrdinaryTxInfo> {
    let mut msg = match exec.receive_in_msg(msg_root) {
        Ok(msg) if msg.is_external == is_external => msg,
        Ok(_) => {
            return Err(TxError::Fatal(anyhow!(
                "the message kind changed on receipt"
            )))
        }
        // A node drops an external message it cannot read.
        Err(_) if is_external => return Err(TxError::Skipped),
        Err(e) => return Err(TxError::Fatal(e)),
    };

    // Bounceable messages pay storage first, then credit; others the reverse.
    let storage_first = msg.bounce_enabled;
    let mut credit_phase = None;
    if !storage_first && !is_external {
        credit_phase = Some(exec.credit_phase(&msg).context("credit phase")?);
    }
    let storage_phase = exec
        .storage_phase(StoragePhaseContext {
            adjust_msg_balance: !storage_first,
            received_message: Some(&mut msg),
            inspector: inspector.as_deref_mut(),
        })
        .context("storage phase")?;
    if storage_first && !is_external {
        credit_phase = Some(exec.credit_phase(&msg).context("credit phase")?);
    }

    let precompiled = precompiled_gas_of(exec, &msg)?;
    let is_masterchain = exec.address.is_masterchain();
    let fee_of = |exec: &ExecutorState<'_>, gas: u64| {
        exec.config.gas_prices(is_masterchain).compute_gas_fee(gas)
    };
    let ComputePhaseFull {
        mut compute_phase,
        accepted,
        original_balance,
        new_state,
        actions,
    } = match precompiled {
        Some(gas) if fee_of(exec, gas) > exec.balance.tokens => ComputePhaseFull {
            compute_phase: ComputePhase::Skipped(SkippedComputePhase {
                reason: ComputePhaseSkipReason::NoGas,
            }),
            accepted: false,
            original_balance: exec.balance.clone(),
            new_state: Default::default(),
            actions: Cell::empty_cell(),
        },
        _ => exec
            .compute_phase(ComputePhaseContext {
                input: TransactionInput::Ordinary(&msg),
                storage_fee: storage_phase.storage_fees_collected,
                force_accept: false,
                stop_on_accept: false,
                inspector: inspector.as_deref_mut(),
            })
            .context("compute phase")?,
    };
    if let ComputePhase::Executed(phase) = &mut compute_phase {
        charge_as_a_node(exec, phase, precompiled, &msg)?;
    }
    if is_external && !accepted {
        return Err(TxError::Skipped);
    }

    let mut aborted = true;
    let mut state_exceeds_limits = false;
    let mut bounce_required = false;
    let mut action_fine = Tokens::ZERO;
    let mut destroyed = false;
    let mut action_phase = None;
    if let ComputePhase::Executed(phase) = &compute_phase {
        if phase.success {
            let res = exec
                .action_phase(ActionPhaseContext {
                    received_message: Some(&mut msg),
                    original_balance,
                    new_state,
                    actions,
                    compute_phase: phase,
                    inspector,
                })
                .context("action phase")?;
            aborted = !res.action_phase.success;
            state_exceeds_limits = res.state_exceeds_limits;
            bounce_required = res.bounce;
            action_fine = res.action_fine;
            destroyed = exec.end_status == AccountStatus::NotExists;
            action_phase = Some(res.action_phase);
        }
    }

    let compute_ok = matches!(&compute_phase, ComputePhase::Executed(p) if p.success);
    let mut bounce_phase = None;
    if msg.bounce_enabled && (!compute_ok || state_exceeds_limits || bounce_required) {
        let phases = (&compute_phase, action_phase.as_ref());
        bounce_phase = Some(bounce(exec, &msg, phases, action_fine)?);
    }

    Ok(OrdinaryTxInfo {
        credit_first: !msg.bounce_enabled,
        storage_phase: Some(storage_phase),
        credit_phase,
        compute_phase,
        action_phase,
        aborted,
        bounce_phase,
        destroyed,
    })
}

/// Makes an executed compute phase's gas what a node charges:
/// precompiled contracts' fixed gas, and library code without the entry
/// tycho-vm charges; the fee and the balance follow the gas.
fn charge_as_a_node(
    exec: &mut ExecutorState<'_>,
    phase: &mut ExecutedComputePhase,
    precompiled: Option<u64>,
    msg: &ReceivedMessage,
) -> TxResult<()> {
    let is_masterchain = exec.address.is_masterchain();
    let fee_of = |exec: &ExecutorState<'_>, gas: u64| {
        exec.config.gas_prices(is_masterchain).compute_gas_fee(gas)
    };
    // A node never sets these two flags (its compute phase keeps them
    // false even when the message's state init deploys the account);
    // tycho-executor reports the deploy in them.
    phase.msg_state_used = false;
    phase.account_activated = false;
    let node_gas = match precompiled {
        Some(gas) => {
            phase.vm_steps = 0;
            Some(gas)
        }
        None if runs_library_code(exec, msg) && phase.vm_steps > 0 => {
            // tycho-vm enters library code through a wrapper cell: one
            // implicit JMPREF (10 gas) and a cell load (100 gas) that a
            // node (global version >= 9) does not charge, loading the
            // code before the VM starts.
            phase.vm_steps -= 1;
            Some(
                phase
                    .gas_used
                    .into_inner()
                    .saturating_sub(LIBRARY_ENTRY_GAS),
            )
        }
        None => None,
    };
    if let Some(gas) = node_gas {
        // Nothing is charged when the message was not accepted or the
        // account is special; otherwise the fee follows the gas.
        if !phase.gas_fees.is_zero() {
            let fee = fee_of(exec, gas);
            let overflow = || TxError::Fatal(anyhow!("gas fee overflow"));
            exec.balance.tokens = exec
                .balance
                .tokens
                .checked_add(phase.gas_fees)
                .and_then(|b| b.checked_sub(fee))
                .ok_or_else(overflow)?;
            exec.total_fees = exec
                .total_fees
                .checked_sub(phase.gas_fees)
                .and_then(|t| t.checked_add(fee))
                .ok_or_else(overflow)?;
            phase.gas_fees = fee;
        }
        phase.gas_used = VarUint56::new(gas);
    }
    Ok(())
}

/// The bounce phase of a bounceable message whose transaction failed
/// (`phases`: its compute phase, and its action phase if one ran).
fn bounce(
    exec: &mut ExecutorState<'_>,
    msg: &ReceivedMessage,
    phases: (&ComputePhase, Option<&ActionPhase>),
    action_fine: Tokens,
) -> TxResult<BouncePhase> {
    let (compute_phase, action_phase) = phases;
    let reason = match (action_phase, compute_phase) {
        (Some(a), _) => BounceReason::ActionPhaseFailed {
            result_code: a.result_code,
        },
        (None, ComputePhase::Executed(p)) => BounceReason::ComputePhaseFailed {
            exit_code: p.exit_code,
        },
        (None, ComputePhase::Skipped(s)) => BounceReason::ComputePhaseSkipped(s.reason),
    };
    let (gas_fees, compute_phase_info) = match compute_phase {
        ComputePhase::Executed(p) => (
            p.gas_fees,
            Some(NewBounceComputePhaseInfo {
                gas_used: p.gas_used.into_inner().try_into().unwrap_or(u32::MAX),
                vm_steps: p.vm_steps,
            }),
        ),
        ComputePhase::Skipped(_) => (Tokens::ZERO, None),
    };
    Ok(exec
        .bounce_phase(BouncePhaseContext {
            gas_fees,
            action_fine,
            received_message: msg,
            reason,
            compute_phase_info,
        })
        .context("bounce phase")?)
}

/// Gas tycho-vm charges for entering library code that a node does not.
const LIBRARY_ENTRY_GAS: u64 = 110;

/// The code the compute phase runs: the account's own, or for an account
/// not active yet the code its message brings.
fn code_to_run(exec: &ExecutorState<'_>, msg: &ReceivedMessage) -> Option<Cell> {
    match &exec.state {
        AccountState::Active(init) => init.code.clone(),
        _ => msg.init.as_ref().and_then(|i| i.parsed.code.clone()),
    }
}

/// Whether that code is a library cell whose library is at hand, which a
/// node of global version 9 or later resolves before the VM starts (a
/// missing one it enters through a wrapper cell as tycho-vm does).
fn runs_library_code(exec: &ExecutorState<'_>, msg: &ReceivedMessage) -> bool {
    let Some(code) = code_to_run(exec, msg) else {
        return false;
    };
    if exec.config.global.version < 9 || !code.descriptor().is_library() {
        return false;
    }
    let Some(hash) = code
        .data()
        .get(1..33)
        .and_then(|h| <[u8; 32]>::try_from(h).ok())
    else {
        return false;
    };
    let hash = HashBytes(hash);
    let own = |init: &StateInit| init.libraries.contains_key(hash).unwrap_or(false);
    exec.params.libraries.contains_key(hash).unwrap_or(false)
        || matches!(&exec.state, AccountState::Active(init) if own(init))
        || msg.init.as_ref().is_some_and(|i| own(&i.parsed))
}

/// The gas param 45 lists for the code the compute phase runs.
fn precompiled_gas_of(exec: &ExecutorState<'_>, msg: &ReceivedMessage) -> TxResult<Option<u64>> {
    let Some(code) = code_to_run(exec, msg) else {
        return Ok(None);
    };
    precompiled_gas(&exec.config.raw.params, &code)
        .map_err(|e| TxError::Fatal(anyhow!("config param 45: {e}")))
}
