"""Attack replays on webhooks and keys (issue 44, findings 9 and 11),
against a `svc serve` of their own:

- port-probing: webhook URLs to public-looking hosts on ports other than
  443/8443 (80 for http) and to local addresses are refused "not allowed",
  and no answer names an address the caller did not write;
- key-flood: creating keys on the application's Keys page until refused
  stops at 20 active keys, with a 4xx.

Usage: python3 .ci/security_hooks.py SVC_BINARY
"""

import re
import sys
import urllib.parse

from security_common import Svc, Tally, api, signed_up, unique

IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
MAX_ACTIVE_KEYS = 20
PROBES = [
    ("live", "https://example.com:22/"),
    ("live", "https://example.com:6379/"),
    ("live", "https://93.184.215.14:25/"),
    ("live", "https://example.com:80/"),
    ("test", "http://example.com:8080/"),
    ("test", "http://127.0.0.1:8080/"),
    ("test", "http://127.0.0.1/"),
    ("test", "http://localhost/"),
    ("test", "http://[::1]/"),
    ("test", "http://169.254.169.254/latest/meta-data/"),
    ("live", "https://localhost/"),
]


def port_probing(svc):
    keys = {"live": svc.live_key, "test": svc.test_key}
    for mode, url in PROBES:
        status, answer = api(svc, keys[mode], "POST", "/api/v1/webhooks", {"url": url, "events": ["*"]})
        if not 400 <= status < 500:
            return False, f"{url}: answered {status} {str(answer)[:200]}"
        message = answer["error"]["message"]
        if "not allowed" not in message:
            return False, f"{url}: {message}"
        written = urllib.parse.urlsplit(url).hostname
        named = set(IPV4.findall(message)) | ({"::1"} if "::1" in message else set())
        if named - {written}:
            return False, f"{url}: the answer names {sorted(named - {written})}: {message}"
    return True, ""


def key_flood(svc):
    browser = signed_up(svc, "Flood", unique("keys"))
    made = 0
    for _ in range(MAX_ACTIVE_KEYS + 10):
        page = browser.submit("/developers/keys", "/developers/keys", [("mode", "test")])
        if page.status == 200 and 'id="new-key"' in page.html:
            made += 1
            continue
        if 400 <= page.status < 500:
            break
        return False, f"key {made + 1}: answered {page.status}"
    return made == MAX_ACTIVE_KEYS, f"{made} active keys were created before the refusal"


def main():
    tally = Tally()
    quiet = {"SVC_WEBHOOK_ALLOW_PRIVATE": None, "SVC_WEBHOOK_PORTS": None}
    with Svc(sys.argv[1], quiet) as svc:
        tally.run("port-probing", lambda: port_probing(svc))
        tally.run("key-flood", lambda: key_flood(svc))
    tally.finish()


if __name__ == "__main__":
    main()
