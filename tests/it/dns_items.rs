//! DNS items read as the index reads them (spec v3 §6.4), on a real
//! mainnet `.ton` item: tongo's get-method corpus gives its code, data and
//! domain (`moneyinvestor`); its `wallet` record names its owner, whose
//! address pytoniq-core reads from the same data as
//! `EQDQx2pQXQK8FodlRGr6QYcp7QkPNYp_GNkcuMgl9eY0c6r6`.

use crate::common;

use serde_json::Value;
use tonindex::api::encoding::{friendly_bounceable, parse_address};
use tonindex::contracts::dns;
use tonindex::tvm::getmethod::{self, Context, Contract, Method};
use tycho_types::boc::Boc;
use tycho_types::cell::HashBytes;
use tycho_types::models::{CurrencyCollection, StdAddr};

fn item() -> (Contract, Value) {
    let cases: Vec<Value> = serde_json::from_slice(
        &std::fs::read(common::fixtures().join("contracts/tongo-getmethod-cases.json")).unwrap(),
    )
    .unwrap();
    let case = cases
        .into_iter()
        .find(|c| c["name"] == "GetDomainResult")
        .expect("tongo's DNS item case");
    let cell = |k: &str| Boc::decode(hex::decode(case[k].as_str().unwrap()).unwrap()).unwrap();
    let account = parse_address(case["account"].as_str().unwrap())
        .unwrap()
        .address;
    let contract = Contract {
        code: cell("code_hex"),
        data: cell("data_hex"),
        address: StdAddr::new(account.workchain as i8, HashBytes(account.id)),
        balance: CurrencyCollection::new(1_000_000_000),
    };
    (contract, case)
}

fn ctx() -> Context {
    Context {
        config: tonindex::tvm::blockchain_config::builtin(),
        libraries: Default::default(),
        now: 1_700_000_000,
        lt: 0,
        rand_seed: HashBytes::ZERO,
        gas_limit: getmethod::DEFAULT_GAS_LIMIT,
        time_limit: None,
    }
}

#[test]
fn a_real_ton_item_gives_its_domain_and_records() {
    let (contract, case) = item();
    let out = getmethod::run(&contract, &ctx(), &Method::parse("get_domain"), vec![]).unwrap();
    assert!(
        case["want_go_literal"]
            .as_str()
            .unwrap()
            .contains("Domain: \"moneyinvestor\""),
        "tongo's expectation"
    );
    assert_eq!(dns::ton_domain(&out).as_deref(), Some("moneyinvestor.ton"));

    let out = getmethod::run(
        &contract,
        &ctx(),
        &Method::parse("dnsresolve"),
        dns::resolve_all_args().unwrap(),
    )
    .unwrap();
    let records = dns::records(&out).expect("dnsresolve answers");
    let wallet = records.wallet.expect("a wallet record");
    assert_eq!(
        friendly_bounceable(&tonindex_model::Address {
            workchain: wallet.workchain as i32,
            id: wallet.address.0,
        }),
        "EQDQx2pQXQK8FodlRGr6QYcp7QkPNYp_GNkcuMgl9eY0c6r6"
    );
    assert_eq!(records.next_resolver, None);
    assert_eq!(records.site_adnl, None);
    assert_eq!(records.storage_bag_id, None);

    // Its collection is mainnet's `.ton` root: its items are DNS entries.
    let data = contract.data.as_slice().unwrap();
    let mut cs = data;
    cs.skip_first(256, 0).unwrap();
    let collection: StdAddr = tycho_types::cell::Load::load_from(&mut cs).unwrap();
    assert!(dns::is_dns_collection(&collection));
}

#[test]
fn telemint_full_domains_read_backwards() {
    use tycho_types::cell::CellBuilder;
    use tycho_vm::{OwnedCellSlice, SafeRc};
    let mut b = CellBuilder::new();
    b.store_raw(b"me\0t\0durov\0", 11 * 8).unwrap();
    let out = getmethod::RunOutput {
        exit_code: 0,
        gas_used: 0,
        vm_steps: 0,
        stack: vec![SafeRc::new_dyn_value(OwnedCellSlice::new_allow_exotic(
            b.build().unwrap(),
        ))],
        missing_library: None,
    };
    assert_eq!(dns::full_domain(&out).as_deref(), Some("durov.t.me"));
}
