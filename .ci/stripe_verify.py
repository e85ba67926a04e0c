"""Verifies webhook signatures with Stripe's official library, as a receiver
of this service's webhooks would. Reads JSON lines
{"payload", "header", "secret", "tolerance"} on stdin and prints one line per
case: "ok", or "error: <why>" when Stripe refuses it."""

import json
import sys

import stripe

for line in sys.stdin:
    case = json.loads(line)
    try:
        stripe.WebhookSignature.verify_header(
            case["payload"].encode("utf-8"),
            case["header"],
            case["secret"],
            tolerance=case["tolerance"],
        )
        print("ok")
    except stripe.SignatureVerificationError as e:
        print("error: " + " ".join(str(e).split()))
