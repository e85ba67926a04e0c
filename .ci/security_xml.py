"""Issue 44, finding 4, replayed as an attack: e-invoice XML must be read in
bounded memory. Starts `svc serve` on a fresh data directory and, with its
free test key, sends floods of empty elements (`<a/>`, 4 bytes each, in a UBL
root so that they are read as an e-invoice) of 52 MB the way a user sends a
large file: declared with `POST /api/v1/uploads`, PUT to the upload URL, then
named by `upload_id`.

- `expense`: one flood as an expense's document (`POST /api/v1/expenses`):
  413 `file_too_large`, the message naming the elements limit.
- `extract`: one flood to `POST /api/v1/invoices/extract`: over the
  synchronous budget, so 202 and a job whose result has the file in `errors`
  as `file_too_large` (extraction answers a bad item beside the good ones,
  never fails the request for it).
- `extract-three`: three floods in one extraction request, the same.

After each, the server's peak resident memory (VmHWM) must have risen less
than 200 MB over its resident memory (VmRSS) before the first attack, and
the server must still answer. Before the limits, one flood raised it to
2.0 GB.

Usage: python3 .ci/security_xml.py SVC_BINARY
Prints `OK <name>` or `FAIL <name>: why` per check; exits 1 on a failure.
Python 3 standard library only.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

FLOOD_BYTES = 52_000_000
MAX_RISE = 200 * 1024 * 1024
UBL_INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
JOB_TIMEOUT = 120


def flood(size):
    """An UBL invoice of `size` bytes (about) made of empty elements."""
    head = f'<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="{UBL_INVOICE}">'.encode()
    tail = b"</Invoice>"
    count = (size - len(head) - len(tail)) // 4
    return head + b"<a/>" * count + tail


def start(binary, data):
    """`svc serve` on a free port: the process, its base URL and test key."""
    proc = subprocess.Popen(
        [binary, "--data", data, "serve", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    key = None
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        found = re.match(r"\s*test key: (svc_test_\S+)", line)
        if found:
            key = found.group(1)
        listening = re.match(r"svc listening on (http://\S+)", line)
        if listening:
            base = listening.group(1)
            break
        if time.monotonic() > deadline:
            break
    else:
        raise RuntimeError("svc serve stopped before it listened")
    if key is None:
        raise RuntimeError("svc serve printed no test key")
    # Keep reading stdout so that the server never blocks on a full pipe.
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, base, key


def memory(pid):
    """VmRSS and VmHWM of a process, in bytes."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


def call(method, url, key=None, body=None, headers=None, timeout=300):
    """The status and JSON answer of a request (an error status too)."""
    headers = dict(headers or {})
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw[:200]


def upload(base, key, name, data):
    """Declares an upload of `data` and PUTs it: its id."""
    status, created = call(
        "POST",
        f"{base}/api/v1/uploads",
        key,
        {"name": name, "mime": "application/xml", "size": len(data)},
    )
    if status != 201:
        raise RuntimeError(f"POST /uploads answered {status}: {created}")
    headers = {k: v for k, v in created["headers"].items() if k.lower() != "content-length"}
    status, answer = call(created["method"], created["upload_url"], body=data, headers=headers)
    if status != 200:
        raise RuntimeError(f"the upload's PUT answered {status}: {answer}")
    return created["id"]


def finished_job(base, key, job_id):
    """The job once it has ended."""
    deadline = time.monotonic() + JOB_TIMEOUT
    while time.monotonic() < deadline:
        status, job = call("GET", f"{base}/api/v1/jobs/{job_id}", key)
        if status == 200 and job.get("status") in ("succeeded", "failed"):
            return job
        time.sleep(0.5)
    raise RuntimeError(f"job {job_id} did not end within {JOB_TIMEOUT} s")


def too_large_items(errors, count):
    """Why the extraction's `errors` are not `count` clear refusals, or None."""
    if len(errors) != count:
        return f"{len(errors)} errors for {count} files: {errors}"
    for error in errors:
        if error.get("code") != "file_too_large" or "elements" not in error.get("message", ""):
            return f"not a clear file_too_large naming the elements limit: {error}"
    return None


def attack_expense(base, key, data):
    upload_id = upload(base, key, "flood.xml", data)
    status, answer = call(
        "POST",
        f"{base}/api/v1/expenses",
        key,
        {"document": {"upload_id": upload_id}, "category": "other"},
        headers={"Idempotency-Key": "security-xml-expense"},
    )
    error = (answer or {}).get("error", {}) if isinstance(answer, dict) else {}
    if status != 413 or error.get("code") != "file_too_large":
        return f"answered {status} {answer}, not 413 file_too_large"
    if "elements" not in error.get("message", ""):
        return f"the message does not name the limit: {error}"
    return None


def attack_extract(base, key, data, files):
    ids = [upload(base, key, f"flood-{i}.xml", data) for i in range(files)]
    body = {"files": [{"name": f"flood-{i}.xml", "upload_id": u} for i, u in enumerate(ids)]}
    status, answer = call("POST", f"{base}/api/v1/invoices/extract", key, body)
    if status == 202:
        job = finished_job(base, key, answer["id"])
        if job["status"] != "succeeded":
            return f"the job {job['status']}: {job}"
        answer = job["result"]
    elif status != 200:
        return f"answered {status} {answer}"
    return too_large_items(answer.get("errors", []), files)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    data = flood(FLOOD_BYTES)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="security-xml-") as tmp:
        proc, base, key = start(binary, tmp)
        try:
            status, _ = call("GET", f"{base}/api/v1/usage", key)
            if status != 200:
                raise RuntimeError(f"GET /usage answered {status} before the attack")
            before, _ = memory(proc.pid)
            attacks = [
                ("expense", lambda: attack_expense(base, key, data)),
                ("extract", lambda: attack_extract(base, key, data, 1)),
                ("extract-three", lambda: attack_extract(base, key, data, 3)),
            ]
            for name, attack in attacks:
                try:
                    why = attack()
                except (RuntimeError, OSError, KeyError) as error:
                    why = f"{type(error).__name__}: {error}"
                _, peak = memory(proc.pid)
                rise = peak - before
                mb = rise / 1e6
                if why is None and rise >= MAX_RISE:
                    why = f"the server's peak RSS rose {mb:.0f} MB (limit {MAX_RISE / 1e6:.0f})"
                status, _ = call("GET", f"{base}/api/v1/usage", key, timeout=30)
                if why is None and status != 200:
                    why = f"the server answered {status} after the attack"
                if proc.poll() is not None:
                    why = f"the server exited ({proc.returncode})"
                if why is None:
                    print(f"OK {name} (peak RSS +{mb:.0f} MB over {before / 1e6:.0f} MB)")
                else:
                    failures += 1
                    print(f"FAIL {name}: {why}")
                if proc.poll() is not None:
                    break
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
