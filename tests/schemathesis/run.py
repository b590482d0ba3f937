"""Schemathesis (PyPI) against a running tonindex, with a peer's OpenAPI
schema from tests/data/spec or with the schema tonindex serves itself.

Usage: python3 run.py <base url> <v2|v3|own-v2|own-v3> <seconds> <workdir>

Checks: no 5xx except those the wire contract prescribes (hooks.py), and
every response conforms to the schema. The peers' schemas are machine
generated and disagree with the servers they describe in known places;
those places are corrected below, each with the section of the wire
contract (spec v2/v3) that says so, and nothing else is changed. Endpoints tonindex does not
serve (a clear 501) are left out.
"""

import copy
import json
import os
import subprocess
import sys
import urllib.request

import yaml

SPEC = os.path.join(os.path.dirname(__file__), "../data/spec")

# Endpoints tonindex answers with 501 (src/api/v3 and src/api/v2 NOT_YET),
# left out of the runs: none now.
V3_NOT_YET = None
V2_NOT_YET = None


def nullable_30(prop):
    """OpenAPI 3.0: a property that may be null."""
    if "$ref" in prop:
        return {"allOf": [{"$ref": prop["$ref"]}], "nullable": True}
    out = dict(prop)
    out["nullable"] = True
    return out


def v3_schema():
    """toncenter's live v3 swagger (OpenAPI 3.0.3), corrected per spec/v3.md."""
    s = yaml.safe_load(open(os.path.join(SPEC, "v3-openapi.yaml")))
    sc = s["components"]["schemas"]
    # v3.md §1.4: opcode is a "0x…" string ("swagger wrongly says integer").
    sc["Message"]["properties"]["opcode"] = {"type": "string"}
    # v3.md message shape (lines 231-236): these are null for external
    # messages, or when the body has no opcode / decoder.
    for name in (
        "source destination value value_extra_currencies fwd_fee ihr_fee extra_flags "
        "created_lt created_at opcode decoded_opcode ihr_disabled bounce bounced "
        "import_fee message_content init_state in_msg_tx_hash out_msg_tx_hash"
    ).split():
        p = sc["Message"]["properties"]
        p[name] = nullable_30(p[name])
    sc["MessageContent"]["properties"]["decoded"] = nullable_30(
        sc["MessageContent"]["properties"]["decoded"]
    )
    # v3.md line 224: AccountState keys are always present, null when the
    # state row is missing.
    for name, prop in list(sc["AccountState"]["properties"].items()):
        sc["AccountState"]["properties"][name] = nullable_30(prop)
    # v3.md line 197: in_msg is Message | null; mc_block_seqno is null while
    # the shard block is not committed by an indexed masterchain block.
    for name in ("in_msg", "mc_block_seqno"):
        p = sc["Transaction"]["properties"]
        p[name] = nullable_30(p[name])
    # v3.md line 91: finality is "pending" | "confirmed" | "finalized".
    sc["emulated.FinalityState"] = {
        "type": "string",
        "enum": ["pending", "confirmed", "finalized"],
    }
    # v3.md line 133: domain is a name or null; §3.1: an invalid address
    # string gets user_friendly null.
    for name in ("domain", "user_friendly"):
        p = sc["AddressBookRow"]["properties"]
        p[name] = nullable_30(p[name])
    # v3.md line 466: admin_address is an address or null; line 531: a
    # collection's owner_address too; line 706: a trace's external_hash.
    for schema, name in (
        ("JettonMaster", "admin_address"),
        ("NFTCollection", "owner_address"),
        ("Trace", "external_hash"),
    ):
        p = sc[schema]["properties"]
        p[name] = nullable_30(p[name])
    # As mc_block_seqno above: a trace's masterchain seqnos (and an
    # action's trace_mc_seqno_end) are null while its blocks are not
    # committed by an indexed masterchain block (the node never makes one
    # up).
    for schema, name in (
        ("Trace", "mc_seqno_start"),
        ("Trace", "mc_seqno_end"),
        ("Action", "trace_mc_seqno_end"),
    ):
        p = sc[schema]["properties"]
        p[name] = nullable_30(p[name])
    # v3.md lines 901-903: addressInformation's code, data, last
    # transaction and frozen_hash may be null (frozen_hash is, unless the
    # account is frozen).
    p = sc["V2AddressInformation"]["properties"]
    for name in ("code", "data", "last_transaction_lt", "last_transaction_hash", "frozen_hash"):
        p[name] = nullable_30(p[name])
    # v3.md line 119: pendingTraces' `traces` is null when nothing is
    # pending (a Go nil slice); /traces keeps its array.
    pending = copy.deepcopy(sc["TracesResponse"])
    pending["properties"]["traces"] = nullable_30(pending["properties"]["traces"])
    sc["PendingTracesResponse"] = pending
    s["paths"]["/api/v3/pendingTraces"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"] = {"$ref": "#/components/schemas/PendingTracesResponse"}
    # masterchain_block_ref is null for a shard block whose masterchain
    # block is not indexed (the node never makes one up).
    sc["Block"]["properties"]["masterchain_block_ref"] = nullable_30(
        sc["Block"]["properties"]["masterchain_block_ref"]
    )
    return s


def v2_schema():
    """The C++ v2 server's schema (OpenAPI 3.1.1), corrected per spec/v2.md."""
    s = yaml.safe_load(open(os.path.join(SPEC, "v2-openapi-cpp.yaml")))
    # A `$ref` written where a `type` belongs (getLibraries' `libraries`
    # items), and the C++ type name `int` for dnsResolve's `ttl` (an int32,
    # as its `format` says): the schema cannot be loaded otherwise.
    def fix(node):
        if isinstance(node, dict):
            t = node.get("type")
            if isinstance(t, str) and t.startswith("#/"):
                del node["type"]
                node["$ref"] = t
            if t == "int":
                node["type"] = "integer"
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(s)
    return s


def main():
    base, which, seconds, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    os.makedirs(work, exist_ok=True)
    if which == "v3":
        schema = v3_schema()
        exclude = rf"^/api/v3/({V3_NOT_YET})" if V3_NOT_YET else None
    elif which == "v2":
        schema = v2_schema()
        exclude = rf"/api/v2/({V2_NOT_YET})$" if V2_NOT_YET else None
    elif which in ("own-v2", "own-v3"):
        api = which[4:]
        with urllib.request.urlopen(f"{base}/api/{api}/openapi.json") as r:
            schema = json.load(r)
        exclude = None
    else:
        sys.exit(f"unknown schema {which}")
    path = os.path.join(work, f"{which}.json")
    with open(path, "w") as f:
        json.dump(schema, f)
    cmd = [
        sys.executable, "-m", "schemathesis.cli", "run", path, "--url", base,
        "--checks", "no_unprescribed_server_error,response_schema_conformance",
        "--phases", "examples,fuzzing",
        "--max-time", str(seconds),
        "--max-examples", "100",
        "--seed", "1",
        "--no-color",
        "--output-truncate", "false",
        "--suppress-health-check", "all",
    ]
    if exclude:
        cmd += ["--exclude-path-regex", exclude]
    env = dict(os.environ, SCHEMATHESIS_HOOKS="hooks")
    env["PYTHONPATH"] = os.path.dirname(os.path.abspath(__file__))
    # In the scratch directory: Schemathesis keeps its cache (.schemathesis/) in
    # the working directory.
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=work)
    out = r.stdout + r.stderr
    with open(os.path.join(work, f"{which}.txt"), "w") as f:
        f.write(out)
    # The whole report also where TONINDEX_ST_OUT names a directory (the
    # scratch one is removed with the test).
    keep = os.environ.get("TONINDEX_ST_OUT")
    if keep:
        with open(os.path.join(keep, f"{which}.txt"), "w") as f:
            f.write(out)
    print(out[-6000:])
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
