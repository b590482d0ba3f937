//! Standard contract interfaces, named as toncenter's v3 names them
//! (`wallet_v4r2`, `jetton_wallet`, `nft_item`, `stonfi_pool_v2`, …).
//!
//! The table (`interfaces.txt`) lists each interface's known code hashes and
//! the get-methods its code must declare. A code hash listed there names
//! exactly that one interface; otherwise every interface whose get-methods
//! the code declares all of is reported, sorted by name (spec v3 §1.8).

use std::collections::HashMap;
use std::sync::LazyLock;

use base64::Engine;
use tycho_vm::VmGetterMethodId;

/// One interface of the table.
struct Interface {
    name: &'static str,
    /// Method ids the code must all declare; empty: matched by code hash only.
    methods: Vec<u32>,
}

struct Table {
    interfaces: Vec<Interface>,
    by_code_hash: HashMap<[u8; 32], &'static str>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| parse(include_str!("interfaces.txt")));

fn parse(text: &'static str) -> Table {
    let mut interfaces = Vec::new();
    let mut by_code_hash = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split('|').map(str::trim);
        let (Some(name), Some(methods), Some(hashes)) = (cols.next(), cols.next(), cols.next())
        else {
            panic!("interfaces.txt: malformed line {line:?}");
        };
        for h in hashes.split_whitespace() {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(h)
                .ok()
                .and_then(|b| <[u8; 32]>::try_from(b).ok())
                .unwrap_or_else(|| panic!("interfaces.txt: bad code hash {h:?}"));
            by_code_hash.insert(bytes, name);
        }
        interfaces.push(Interface {
            name,
            methods: methods.split_whitespace().map(method_id).collect(),
        });
    }
    Table {
        interfaces,
        by_code_hash,
    }
}

/// A get-method's id: `crc16(name) | 0x10000`, as FunC assigns it.
pub fn method_id(name: &str) -> u32 {
    name.as_getter_method_id()
}

/// The interfaces of a contract with `code_hash` whose code declares
/// `methods` (sorted ascending, see [`super::methods::method_ids`]).
pub fn detect(code_hash: &[u8; 32], methods: Option<&[u32]>) -> Vec<&'static str> {
    let table = &*TABLE;
    if let Some(name) = table.by_code_hash.get(code_hash) {
        return vec![name];
    }
    let Some(methods) = methods.filter(|m| !m.is_empty()) else {
        return Vec::new();
    };
    let mut found: Vec<&'static str> = table
        .interfaces
        .iter()
        .filter(|i| !i.methods.is_empty())
        .filter(|i| i.methods.iter().all(|m| methods.binary_search(m).is_ok()))
        .map(|i| i.name)
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_names_are_unique() {
        let t = &*TABLE;
        assert!(t.interfaces.len() > 100);
        let mut names: Vec<_> = t.interfaces.iter().map(|i| i.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn code_hash_names_one_interface_and_methods_name_all_that_fit() {
        let v4r2 = base64::engine::general_purpose::STANDARD
            .decode("/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=")
            .unwrap();
        assert_eq!(detect(&v4r2.try_into().unwrap(), None), ["wallet_v4r2"]);
        let mut m: Vec<u32> = ["get_jetton_data", "get_wallet_address", "get_wallet_data"]
            .map(method_id)
            .to_vec();
        m.sort_unstable();
        assert_eq!(
            detect(&[0; 32], Some(&m)),
            ["jetton_master", "jetton_wallet"]
        );
        assert!(detect(&[0; 32], None).is_empty());
    }
}
