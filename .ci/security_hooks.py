"""Replays two attacks of issue 44 against `svc serve`, as an attacker with
the demo account's keys and a self-service account would:

- port probing through webhooks (finding 9): URLs to public-looking hosts on
  ports other than 443/8443 (80 for http) and to local addresses must be
  refused "not allowed", and no answer may name an address;
- key flood (finding 11): creating keys on the application's Keys page until
  refused must stop at 20 active keys.

Usage: python3 .ci/security_hooks.py SVC_BINARY
Prints `OK <name>` or `FAIL <name>: why` per attack; exits 1 on any failure.
Python 3 standard library only.
"""

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
MAX_ACTIVE_KEYS = 20


def start(binary, data):
    """`svc serve` on an ephemeral port: its base URL, keys and process."""
    env = dict(os.environ, SVC_SECRETS_KEY=os.urandom(32).hex())
    for name in ("SVC_WEBHOOK_ALLOW_PRIVATE", "SVC_WEBHOOK_PORTS", "SVC_SMTP_URL"):
        env.pop(name, None)
    out, err = open(os.path.join(data, "out"), "w"), open(os.path.join(data, "err"), "w")
    proc = subprocess.Popen([binary, "--data", os.path.join(data, "svc"), "serve", "--addr", "127.0.0.1:0"],
                            stdout=out, stderr=err, env=env)
    for _ in range(300):
        text = open(os.path.join(data, "out")).read()
        base = re.search(r"^svc listening on (\S+)$", text, re.M)
        keys = dict(re.findall(r"^  (live|test) key: (svc_\S+)$", text, re.M))
        if base and len(keys) == 2:
            return proc, base.group(1), keys
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.terminate()
    sys.exit("svc serve did not start: " + open(os.path.join(data, "err")).read()[-2000:])


def api(base, key, method, path, body=None):
    """(status, text) of an API request."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={
        "authorization": f"Bearer {key}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def port_probing(base, keys):
    """Every probe refused with 4xx "not allowed", no address in any answer."""
    probes = [
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
    for mode, url in probes:
        status, text = api(base, keys[mode], "POST", "/api/v1/webhooks", {"url": url, "events": ["*"]})
        if not 400 <= status < 500:
            return f"{url}: answered {status} {text[:200]}"
        message = json.loads(text)["error"]["message"]
        if "not allowed" not in message:
            return f"{url}: {message}"
        written = urllib.parse.urlsplit(url).hostname
        named = set(IPV4.findall(message)) | ({"::1"} if "::1" in message else set())
        if named - {written}:
            return f"{url}: the answer names {sorted(named - {written})}: {message}"
    return None


class Browser:
    """Cookies, and the CSRF token of the last form page."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect())

    def request(self, method, path, fields=None):
        data = None if fields is None else urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"origin": self.base})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def submit(self, form_path, action, fields):
        _, page = self.request("GET", form_path)
        token = re.search(r'name="_csrf" value="([^"]+)"', page)
        return self.request("POST", action, dict(fields, _csrf=token.group(1) if token else ""))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def verification_link(err_path, address):
    """The confirmation link `svc serve` logs when it has no SMTP server."""
    for _ in range(100):
        text = open(err_path).read().replace("\\n", " ").replace("\\u0026", "&")
        found = re.findall(r"https?://[^\s\"\\]+/verify\?token=[0-9a-f]{64}", text)
        if found:
            return found[-1]
        time.sleep(0.1)
    return None


def key_flood(base, err_path):
    """Keys made until refused: at most 20 active, the refusal a 4xx."""
    browser = Browser(base)
    address, password = "attacker@example.com", "una frase bastante larga"
    browser.submit("/sign-up", "/sign-up", {"business": "Flood", "email": address, "password": password})
    link = verification_link(err_path, address)
    if not link:
        return "no confirmation link in the server's log"
    browser.request("GET", urllib.parse.urlsplit(link)._replace(scheme="", netloc="").geturl())
    status, _ = browser.submit("/sign-in", "/sign-in", {"email": address, "password": password})
    if status >= 400:
        return f"sign-in answered {status}"
    made = 0
    for _ in range(MAX_ACTIVE_KEYS + 10):
        status, page = browser.submit("/developers/keys", "/developers/keys", {"mode": "test"})
        if status == 200 and 'id="new-key"' in page:
            made += 1
            continue
        if 400 <= status < 500:
            break
        return f"key {made + 1}: answered {status}"
    if made > MAX_ACTIVE_KEYS:
        return f"{made} active keys were created"
    if made < MAX_ACTIVE_KEYS:
        return f"refused after {made} keys, before the limit"
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    failed = False
    with tempfile.TemporaryDirectory() as data:
        proc, base, keys = start(sys.argv[1], data)
        try:
            for name, attack in [("port-probing", lambda: port_probing(base, keys)),
                                 ("key-flood", lambda: key_flood(base, os.path.join(data, "err")))]:
                try:
                    why = attack()
                except Exception as e:  # an attack that crashes is a failure too
                    why = f"{type(e).__name__}: {e}"
                print(f"FAIL {name}: {why}" if why else f"OK {name}", flush=True)
                failed |= why is not None
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
