//! Actions as their rows store them: each account an action names is kept
//! as the number the index gave it ([`crate::tables::AccountNumbers`])
//! where it has one, and read back through
//! [`crate::tables::AccountAddresses`]. An action's addresses were most of
//! its row's random bytes: on the first 80,000 actions of the mainnet
//! corpus, compressed as the last level is, 167.0 → 118.6 bytes an action.

use serde::{Deserialize, Serialize};
use tonindex_model::{ActionRecord, Address};

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

/// An [`ActionRecord`] with its accounts as [`AccountRef`]s: the same row,
/// field for field, so its bincode is the record's with each address
/// replaced by its reference.
pub type StoredAction = ActionRecord<AccountRef>;

bincode_value!(StoredAction);

const UNKNOWN_NUMBER: Error = Error::Corrupt("an action names an account number the index lacks");

/// `action` with each account that `num` numbers by its number.
pub fn to_stored(action: &ActionRecord, num: impl Fn(&Address) -> Option<u64>) -> StoredAction {
    let by_ref = |a: Address| {
        Ok::<_, std::convert::Infallible>(num(&a).map_or(AccountRef::Address(a), AccountRef::Num))
    };
    match action.clone().try_map_accounts(by_ref) {
        Ok(stored) => stored,
        Err(never) => match never {},
    }
}

/// The account numbers `stored` names, to look up for [`from_stored`].
pub fn numbers(stored: &StoredAction) -> impl Iterator<Item = u64> + '_ {
    stored.named_accounts().filter_map(|a| match a {
        AccountRef::Num(n) => Some(*n),
        AccountRef::Address(_) => None,
    })
}

/// The record, each number read as the account `address` gives for it
/// (a number it does not know is an error: the index is damaged).
pub fn from_stored(
    stored: StoredAction,
    address: impl Fn(u64) -> Option<Address>,
) -> Result<ActionRecord, Error> {
    stored.try_map_accounts(|a| match a {
        AccountRef::Num(n) => address(n).ok_or(UNKNOWN_NUMBER),
        AccountRef::Address(a) => Ok(a),
    })
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
        let stored = to_stored(&action, num);
        assert_eq!(stored.accounts[2], AccountRef::Address(address(9)));
        let mut numbers: Vec<u64> = numbers(&stored).collect();
        numbers.sort();
        numbers.dedup();
        assert_eq!(numbers, [101, 102, 103, 104]);
        let address_of = |n: u64| (101..=104).contains(&n).then(|| address((n - 100) as u8));
        assert_eq!(from_stored(stored.clone(), address_of).unwrap(), action);
        assert!(from_stored(stored, |n| (n != 103).then(|| address((n - 100) as u8))).is_err());
    }
}
