//! Actions as their rows store them: each account an action names is kept
//! as the number the index gave it ([`crate::tables::AccountNumbers`])
//! where it has one, and read back through
//! [`crate::tables::AccountAddresses`]. An action's addresses were most of
//! its row's random bytes: on the first 80,000 actions of the mainnet
//! corpus, compressed as the last level is, 167.0 → 118.6 bytes an action.

use serde::{Deserialize, Serialize};
use tonindex_model::{ActionRecord, Address, Hash};

use crate::codec::bincode_value;
use crate::Error;

/// An account as an action's row names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AccountRef {
    /// By its number (an account the index has seen a transaction of).
    Num(u64),
    /// Whole (one the index had numbered no transaction of when the
    /// action was classified).
    Address(Address),
}

/// An [`ActionRecord`] with its accounts as [`AccountRef`]s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAction {
    pub action_id: Hash,
    pub trace_id: Hash,
    pub kind: String,
    pub start_lt: u64,
    pub end_lt: u64,
    pub start_utime: u32,
    pub end_utime: u32,
    pub success: bool,
    pub tx_hashes: Vec<Hash>,
    pub accounts: Vec<AccountRef>,
    pub source: Option<AccountRef>,
    pub source_secondary: Option<AccountRef>,
    pub destination: Option<AccountRef>,
    pub destination_secondary: Option<AccountRef>,
    pub asset: Option<AccountRef>,
    pub asset_secondary: Option<AccountRef>,
    pub opcode: Option<u32>,
    pub value: Option<String>,
    pub amount: Option<String>,
    pub ancestor_type: Vec<String>,
    pub parent_action_id: Option<Hash>,
    pub data: String,
}

bincode_value!(StoredAction);

const UNKNOWN_NUMBER: Error = Error::Corrupt("an action names an account number the index lacks");

impl StoredAction {
    /// `action` with each account that `num` numbers by its number.
    pub fn new(action: &ActionRecord, num: impl Fn(&Address) -> Option<u64>) -> Self {
        let r = |a: &Address| num(a).map_or(AccountRef::Address(*a), AccountRef::Num);
        let o = |a: &Option<Address>| a.as_ref().map(r);
        let a = action.clone();
        StoredAction {
            accounts: a.accounts.iter().map(r).collect(),
            source: o(&a.source),
            source_secondary: o(&a.source_secondary),
            destination: o(&a.destination),
            destination_secondary: o(&a.destination_secondary),
            asset: o(&a.asset),
            asset_secondary: o(&a.asset_secondary),
            action_id: a.action_id,
            trace_id: a.trace_id,
            kind: a.kind,
            start_lt: a.start_lt,
            end_lt: a.end_lt,
            start_utime: a.start_utime,
            end_utime: a.end_utime,
            success: a.success,
            tx_hashes: a.tx_hashes,
            opcode: a.opcode,
            value: a.value,
            amount: a.amount,
            ancestor_type: a.ancestor_type,
            parent_action_id: a.parent_action_id,
            data: a.data,
        }
    }

    /// The account numbers it names, to look up for [`Self::record`].
    pub fn numbers(&self) -> impl Iterator<Item = u64> + '_ {
        let singles = [
            &self.source,
            &self.source_secondary,
            &self.destination,
            &self.destination_secondary,
            &self.asset,
            &self.asset_secondary,
        ];
        self.accounts
            .iter()
            .chain(singles.into_iter().flatten())
            .filter_map(|a| match a {
                AccountRef::Num(n) => Some(*n),
                AccountRef::Address(_) => None,
            })
    }

    /// The record, each number read as the account `address` gives for it
    /// (a number it does not know is an error: the index is damaged).
    pub fn record(self, address: impl Fn(u64) -> Option<Address>) -> Result<ActionRecord, Error> {
        let r = |a: AccountRef| match a {
            AccountRef::Num(n) => address(n).ok_or(UNKNOWN_NUMBER),
            AccountRef::Address(a) => Ok(a),
        };
        let o = |a: Option<AccountRef>| a.map(r).transpose();
        Ok(ActionRecord {
            accounts: self.accounts.into_iter().map(r).collect::<Result<_, _>>()?,
            source: o(self.source)?,
            source_secondary: o(self.source_secondary)?,
            destination: o(self.destination)?,
            destination_secondary: o(self.destination_secondary)?,
            asset: o(self.asset)?,
            asset_secondary: o(self.asset_secondary)?,
            action_id: self.action_id,
            trace_id: self.trace_id,
            kind: self.kind,
            start_lt: self.start_lt,
            end_lt: self.end_lt,
            start_utime: self.start_utime,
            end_utime: self.end_utime,
            success: self.success,
            tx_hashes: self.tx_hashes,
            opcode: self.opcode,
            value: self.value,
            amount: self.amount,
            ancestor_type: self.ancestor_type,
            parent_action_id: self.parent_action_id,
            data: self.data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(n: u8) -> Address {
        Address {
            workchain: 0,
            id: [n; 32],
        }
    }

    /// Every account field goes to its number and back, an account without
    /// a number stays whole, and a number nobody knows is refused.
    #[test]
    fn accounts_are_stored_by_number_and_read_back() {
        let action = ActionRecord {
            action_id: [1; 32],
            trace_id: [2; 32],
            kind: "jetton_transfer".into(),
            start_lt: 10,
            end_lt: 12,
            start_utime: 11,
            end_utime: 13,
            success: true,
            tx_hashes: vec![[3; 32]],
            accounts: vec![address(1), address(2), address(9)],
            source: Some(address(1)),
            source_secondary: Some(address(3)),
            destination: Some(address(2)),
            destination_secondary: None,
            asset: Some(address(9)),
            asset_secondary: Some(address(4)),
            opcode: Some(7),
            value: None,
            amount: Some("5".into()),
            ancestor_type: vec!["swap".into()],
            parent_action_id: Some([5; 32]),
            data: "{}".into(),
        };
        // Accounts 1–4 are numbered 101–104; 9 is not.
        let num = |a: &Address| (a.id[0] <= 4).then(|| 100 + u64::from(a.id[0]));
        let stored = StoredAction::new(&action, num);
        assert_eq!(stored.accounts[2], AccountRef::Address(address(9)));
        let mut numbers: Vec<u64> = stored.numbers().collect();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers, [101, 102, 103, 104]);
        let address_of = |n: u64| (101..=104).contains(&n).then(|| address((n - 100) as u8));
        assert_eq!(stored.clone().record(address_of).unwrap(), action);
        assert!(stored
            .record(|n| (n != 103).then(|| address((n - 100) as u8)))
            .is_err());
    }
}
