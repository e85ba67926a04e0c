"""What the attack replays of the security suite share (Python stdlib only):
a `svc serve` of their own on a fresh data directory, a browser-like client
that keeps cookies and sends forms with their CSRF token, the messages the
local SMTP receiver kept, and a tally of the attacks that held or did not.

Each replay script runs as `python3 .ci/security_<area>.py SVC_BINARY`; mail
checks need SVC_SMTP_TEST_URL and SVC_SMTP_TEST_DIR (the receiver .ci/run
starts).
"""

import email
import email.policy
import http.client
import json
import os
import pathlib
import re
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.parse

PASSWORD = "una frase bastante larga"


class Svc:
    """`svc serve` on a free loopback port with its own data, mailing to the
    local receiver; `env` adds or overrides variables (None removes one)."""

    def __init__(self, binary, env=None):
        self.dir = tempfile.TemporaryDirectory()
        data = pathlib.Path(self.dir.name)
        variables = dict(os.environ)
        variables.update(
            SVC_SECRETS_KEY=secrets.token_hex(32),
            SVC_EMAIL_FROM="svc <app@svc.test>",
        )
        if os.environ.get("SVC_SMTP_TEST_URL"):
            variables["SVC_SMTP_URL"] = os.environ["SVC_SMTP_TEST_URL"]
        for name, value in (env or {}).items():
            if value is None:
                variables.pop(name, None)
            else:
                variables[name] = value
        self.out = data / "serve.out"
        self.proc = subprocess.Popen(
            [binary, "--data", str(data / "data"), "serve", "--addr", "127.0.0.1:0"],
            stdout=open(self.out, "w"), stderr=open(data / "serve.err", "w"), env=variables,
        )
        for _ in range(300):
            text = self.out.read_text()
            found = re.search(r"^svc listening on (\S+)$", text, re.M)
            if found and "test key:" in text:
                self.base = found.group(1)
                self.port = int(self.base.rsplit(":", 1)[1])
                self.test_key = re.search(r"test key: (\S+)", text).group(1)
                self.live_key = re.search(r"live key: (\S+)", text).group(1)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        sys.exit("svc serve did not start: " + (data / "serve.err").read_text()[-2000:])

    @property
    def pid(self):
        return self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        self.dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


class Page:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def html(self):
        return self.body.decode("utf-8", "replace")

    def header(self, name):
        return self.headers.get(name.lower())

    def csrf(self):
        found = re.search(r'name="_csrf" value="([0-9a-f]{64})"', self.html)
        return found.group(1) if found else None


class Browser:
    """Keeps cookies; sends `Host` as the server's own address unless told;
    every POST carries the server's `Origin`, as a browser's form does."""

    def __init__(self, svc, headers=None):
        self.svc = svc
        self.cookies = {}
        self.headers = dict(headers or {})

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.svc.port, timeout=60)
        sent = {"Host": f"127.0.0.1:{self.svc.port}"}
        sent.update(self.headers)
        sent.update(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        page = Page(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        for value in response.headers.get_all("Set-Cookie") or []:
            pair = value.split(";", 1)[0]
            name, _, content = pair.partition("=")
            if "max-age=0" in value.lower():
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = content
        connection.close()
        return page

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)

    def post(self, path, fields, headers=None):
        body = urllib.parse.urlencode(fields)
        sent = {"Content-Type": "application/x-www-form-urlencoded", "Origin": self.svc.base}
        sent.update(headers or {})
        return self.request("POST", path, body=body, headers=sent)

    def submit(self, form_path, action, fields, headers=None):
        token = self.get(form_path, headers=headers).csrf()
        return self.post(action, [("_csrf", token or "")] + list(fields), headers=headers)

    def sign_in(self, address, password=PASSWORD, headers=None):
        return self.submit("/sign-in", "/sign-in",
                           [("email", address), ("password", password), ("next", "/")], headers=headers)

    def sign_up(self, business, address, password=PASSWORD, headers=None):
        return self.submit("/sign-up", "/sign-up",
                           [("business", business), ("email", address), ("password", password)],
                           headers=headers)

    def open_link(self, url, headers=None):
        parsed = urllib.parse.urlsplit(url)
        return self.get(parsed.path + ("?" + parsed.query if parsed.query else ""), headers=headers)


def api(svc, key, method, path, body=None):
    """(status, JSON answer) of an API request with `key`."""
    connection = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=120)
    payload = None if body is None else json.dumps(body)
    connection.request(method, path, body=payload, headers={
        "Host": f"127.0.0.1:{svc.port}", "Authorization": f"Bearer {key}",
        "Content-Type": "application/json"})
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    connection.close()
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, text


def mail_dir():
    folder = os.environ.get("SVC_SMTP_TEST_DIR")
    return pathlib.Path(folder) if folder else None


def mails(address):
    """Every message the receiver kept for `address`, oldest first."""
    folder = mail_dir() / address.lower()
    if not folder.exists():
        return []
    return [email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
            for f in sorted(folder.glob("*.eml"))]


def text_of(message):
    return message.get_body(preferencelist=("plain",)).get_content()


def wait_mails(address, count, seconds=15):
    """The messages to `address` once there are `count` (or after `seconds`)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = mails(address)
        if len(found) >= count:
            return found
        time.sleep(0.1)
    return mails(address)


def settle(seconds=2.0):
    """Lets the dispatcher send what the last requests posted."""
    time.sleep(seconds)


def links(message, path):
    return re.findall(r"https?://\S+" + re.escape(path) + r"\?token=[0-9a-f]{64}", text_of(message))


def signed_up(svc, business, address, headers=None):
    """A browser of a new, confirmed and signed-in person."""
    browser = Browser(svc, headers)
    before = len(mails(address))
    page = browser.sign_up(business, address)
    assert page.status == 200, (page.status, page.html[:500])
    message = wait_mails(address, before + 1)[-1]
    browser.open_link(links(message, "/verify")[0])
    page = browser.sign_in(address)
    assert page.status == 303, (page.status, page.html[:500])
    return browser


def unique(name):
    return f"{name}-{secrets.token_hex(4)}@example.com"


class Tally:
    """One line per attack: `OK name`, or `FAIL name: why`; `finish` exits
    non-zero when any attack worked."""

    def __init__(self):
        self.failed = []

    def check(self, name, held, why=""):
        if held:
            print(f"OK {name}", flush=True)
        else:
            print(f"FAIL {name}: {why}", flush=True)
            self.failed.append(name)

    def run(self, name, attack):
        try:
            held, why = attack()
        except Exception as error:  # an attack that crashes the replay fails it
            held, why = False, f"{type(error).__name__}: {error}"
        self.check(name, held, why)

    def finish(self):
        if self.failed:
            sys.exit(f"{len(self.failed)} attack(s) worked: {', '.join(self.failed)}")
