"""Schemathesis hooks for tonindex: the one check that replaces
`not_a_server_error`. A 5xx is a failure unless the wire contract
prescribes it for that request:

* v2 runGetMethod(Std): 542 `Unsupported stack entry type` and 533 for a
  result stack too deep (spec/v2.md table of codes, lines 123-124, 1073);
* v2 on an imported index: 501 for what only a chain can answer (block
  signatures, proofs, queue sizes) and 503 for sending with no network
  (spec/v2.md: a node without liteservers cannot send);
* Streaming on an index no process writes: 501 for a subscription and
  503 from healthz (there are no commits to stream);
* 504 when a request's time budget runs out (a deadline, not a crash).
"""

import schemathesis

PRESCRIBED = {
    542: ("Unsupported stack entry type",),
    533: ("stack depth", "Result stack depth", "too deep"),
    501: ("is not available: the index holds blocks", "streaming is served where new blocks arrive"),
    503: ("no network to send to", "no commits to stream"),
    504: ("timed out",),
}


@schemathesis.check
def no_unprescribed_server_error(ctx, response, case):
    status = response.status_code
    if status < 500:
        return None
    text = response.text or ""
    for marker in PRESCRIBED.get(status, ()):
        if marker in text:
            return None
    raise AssertionError(f"server error {status}: {text[:300]}")
