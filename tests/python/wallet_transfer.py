"""Prints (base64) a signed external transfer of 1 TON from genesis wallet 0
(v4r2) to genesis wallet 1 of the `tonindex dev` at argv[1], at the wallet's
current seqno, built by pytoniq (PyPI): a message no code of ours wrote."""
import base64
import json
import sys
import time
import urllib.request

from pytoniq.contract.contract import Contract
from pytoniq.contract.wallets.wallet import WalletV4
from pytoniq_core import Address


def get(url):
    with urllib.request.urlopen(url) as r:
        return json.load(r)


def transfer(base):
    """(BoC bytes, wallet address, seqno) of the transfer, signed now."""
    w, to = get(f"{base}/dev/accounts")[:2]
    if w["version"] != "wallet_v4r2":
        raise AssertionError(f"genesis wallet 0 is {w['version']}")
    r = get(f"{base}/api/v2/runGetMethod?address={w['address']}&method=seqno&stack=%5B%5D")
    seqno = int(r["result"]["stack"][0][1], 16)
    body = WalletV4.raw_create_transfer_msg(
        private_key=bytes.fromhex(w["secret_key"]),
        seqno=seqno,
        wallet_id=w["wallet_id"],
        valid_until=int(time.time()) + 120,
        messages=[
            WalletV4.create_wallet_internal_message(
                destination=Address(to["address"]), send_mode=3, value=10**9, body="from pytoniq"
            )
        ],
    )
    msg = Contract.create_external_msg(dest=Address(w["address"]), body=body)
    return msg.serialize().to_boc(), w["address"], seqno


if __name__ == "__main__":
    boc, wallet, seqno = transfer(sys.argv[1])
    print(json.dumps({"boc": base64.b64encode(boc).decode(), "wallet": wallet, "seqno": seqno}))
