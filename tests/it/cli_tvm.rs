//! `tonindex tvm run` on a real wallet v5 from the tongo cases: the v2
//! runGetMethod JSON on stdout, exit status 0 whatever the VM's exit code,
//! and a clear error for input that is not a BoC.

use crate::common;

use std::process::Command;

use serde_json::Value;

fn tvm_run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tonindex"))
        .args(["tvm", "run"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn tvm_run_prints_the_run_get_method_result() {
    let cases: Vec<Value> = serde_json::from_slice(
        &std::fs::read(common::fixtures().join("contracts/tongo-getmethod-cases.json")).unwrap(),
    )
    .unwrap();
    let w5 = &cases[0];
    let (code, data) = (
        w5["code_hex"].as_str().unwrap(),
        w5["data_hex"].as_str().unwrap(),
    );
    // The data cell starts with the signature flag (1 bit) and the seqno.
    let data_bytes = hex::decode(data).unwrap();
    let boc = tycho_types::boc::Boc::decode(&data_bytes).unwrap();
    let mut cs = boc.as_slice().unwrap();
    cs.skip_first(1, 0).unwrap();
    let seqno = cs.load_u32().unwrap();

    let out = tvm_run(&[
        "--code",
        code,
        "--data",
        data,
        "--method",
        "seqno",
        "--now",
        "1700000000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["@type"], "smc.runResult");
    assert_eq!(j["exit_code"], 0);
    assert!(j["gas_used"].as_u64().unwrap() > 0);
    assert_eq!(j["stack"][0][0], "num");
    assert_eq!(j["stack"][0][1], format!("0x{seqno:x}"));

    // By numeric id, and an unknown method: VM exit code 11, still status 0.
    let by_id = tvm_run(&["--code", code, "--data", data, "--method", "85143"]);
    let j2: Value = serde_json::from_slice(&by_id.stdout).unwrap();
    assert_eq!(j2["stack"], j["stack"]);
    let unknown = tvm_run(&["--code", code, "--data", data, "--method", "no_such"]);
    assert!(unknown.status.success());
    let j3: Value = serde_json::from_slice(&unknown.stdout).unwrap();
    assert_eq!(j3["exit_code"], 11);

    // Not a BoC, and a bad stack: exit status 1 with a message.
    let bad = tvm_run(&["--code", "zz", "--data", data, "--method", "seqno"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--code"));
    let bad_stack = tvm_run(&[
        "--code",
        code,
        "--data",
        data,
        "--method",
        "seqno",
        "--stack",
        "[[\"cont\", 1]]",
    ]);
    assert_eq!(bad_stack.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad_stack.stderr).contains("Unsupported stack entry type"));
}
