"""The web application in a real browser: Debian's Chromium driven by
Playwright, against `svc serve` emailing through the local SMTP receiver.

A person signs up, follows the confirmation link they were emailed, signs
in, creates a test key and calls the REST API with it, fills in the issuer
details, creates a webhook whose local receiver then gets the
`invoice.issued` of the invoice it issues, finds that invoice in the list
and downloads its PDF, adds an expense by hand (a wrong NIF comes back
beside its field first), invites a member who signs up with that address and joins, and signs out. The certificate
upload refuses a wrong password with the CLI's message. Also: a wrong password is throttled, a
form without its CSRF token gets 403, another account's key is not found,
another account's invoice URL is a 404, and axe-core reports no serious
or critical accessibility violation on any page visited. Every page runs under the service's own CSP (a violation
fails the run); axe is injected in a second context that bypasses the CSP.

Usage: python web_browser.py SVC_BINARY AXE_JS [SCREENSHOT_DIR]
Needs SVC_SMTP_TEST_URL and SVC_SMTP_TEST_DIR (the receiver .ci/run starts).
"""

import email
import email.policy
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
# Without these Chromium keeps calling Google's hosts, which this network refuses.
CHROMIUM_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PASSWORD = "una frase bastante larga"


def start_svc(binary, data):
    env = dict(os.environ)
    env.update(
        SVC_SMTP_URL=os.environ["SVC_SMTP_TEST_URL"],
        SVC_EMAIL_FROM="svc <app@svc.test>",
        SVC_WEBHOOK_ALLOW_PRIVATE="true",
        # The key that seals webhook secrets (webhooks are refused without it).
        SVC_SECRETS_KEY=os.urandom(32).hex(),
    )
    out = open(data / "serve.out", "w")
    proc = subprocess.Popen(
        [binary, "--data", str(data / "data"), "serve", "--addr", "127.0.0.1:0"],
        stdout=out, stderr=open(data / "serve.err", "w"), env=env,
    )
    for _ in range(150):
        text = (data / "serve.out").read_text()
        found = re.search(r"^svc listening on (\S+)$", text, re.M)
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.terminate()
    sys.exit("svc serve did not start: " + (data / "serve.err").read_text()[-2000:])


def link_in_mail(to, path, count):
    """The link to `path` in the `count`-th message to `to` (waits for it)."""
    folder = pathlib.Path(os.environ["SVC_SMTP_TEST_DIR"]) / to.lower()
    for _ in range(100):
        files = sorted(folder.glob("*.eml")) if folder.exists() else []
        if len(files) >= count:
            message = email.message_from_bytes(files[count - 1].read_bytes(), policy=email.policy.default)
            text = message.get_body(preferencelist=("plain",)).get_content()
            found = re.search(r"https?://\S+" + re.escape(path) + r"\?token=[0-9a-f]{64}", text)
            assert found, f"no {path} link in: {text}"
            return found.group(0)
        time.sleep(0.1)
    sys.exit(f"no message {count} to {to} in {folder}")


class Run:
    def __init__(self, browser, base, axe, shots):
        self.browser, self.base, self.axe, self.shots = browser, base, axe, shots
        self.checked = []
        self.csp_errors = []

    def context(self):
        ctx = self.browser.new_context(base_url=self.base, locale="es-ES")
        ctx.on("console", lambda m: self.csp_errors.append(m.text)
               if "Content Security Policy" in m.text else None)
        return ctx

    def accessible(self, page, name):
        """axe-core on the page as shown (also the answer of a POST), at its
        URL with the same cookies, in a context that bypasses the CSP."""
        state = page.context.storage_state()
        html = page.content()
        ctx = self.browser.new_context(base_url=self.base, bypass_csp=True, storage_state=state)
        probe = ctx.new_page()
        probe.route(page.url, lambda route: route.fulfill(status=200, body=html, content_type="text/html; charset=utf-8"))
        probe.goto(page.url)
        probe.add_script_tag(path=self.axe)
        violations = probe.evaluate(
            "async () => (await axe.run()).violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
            ".map(v => v.id + ' (' + v.impact + '): ' + v.nodes.map(n => n.target.join(' ')).join(', '))")
        ctx.close()
        assert not violations, f"{name} {page.url}: {violations}"
        self.checked.append(name)
        if self.shots and name in ("overview", "keys-created", "sign-up"):
            page.screenshot(path=str(pathlib.Path(self.shots) / f"{name}.png"), full_page=True)

    def sign_up(self, page, business, address, mails_before=0):
        page.goto("/sign-up")
        self.accessible(page, "sign-up")
        page.fill("#business", business)
        page.fill("#email", address)
        page.fill("#password", PASSWORD)
        page.click("button[type=submit] >> text=Crear cuenta")
        page.wait_for_selector("text=Revisa tu correo")
        self.accessible(page, "check-your-email")
        page.goto(link_in_mail(address, "/verify", mails_before + 1))
        page.wait_for_selector("text=Correo confirmado")
        self.accessible(page, "confirmed")

    def sign_in(self, page, address, password=PASSWORD):
        page.goto("/sign-in")
        page.fill("#email", address)
        page.fill("#password", password)
        page.click("main button[type=submit]")
        page.wait_for_load_state()


def pkcs12(password):
    """A person's certificate (self-signed, with an NIF) as a PKCS#12 file."""
    import datetime
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import pkcs12 as p12
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ANA GARCIA - 12345678Z"),
                      x509.NameAttribute(NameOID.SERIAL_NUMBER, "IDCES-12345678Z")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=365)).sign(key, hashes.SHA256()))
    return p12.serialize_key_and_certificates(b"ana", key, cert, None,
                                              serialization.BestAvailableEncryption(password.encode()))


class Receiver:
    """A webhook endpoint on loopback that keeps the events it is sent."""

    def __init__(self):
        import http.server
        import threading
        events = self.events = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                events.append((self.headers.get("svc-signature"), json.loads(body)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, kind, seconds=30):
        for _ in range(seconds * 10):
            for signature, event in self.events:
                if event.get("type") == kind:
                    assert signature and signature.startswith("t="), signature
                    return event
            time.sleep(0.1)
        sys.exit(f"the webhook received no {kind}: {self.events}")

    def close(self):
        self.server.shutdown()


def api_status(base, path, key):
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, None


def main():
    binary, axe = sys.argv[1], sys.argv[2]
    shots = sys.argv[3] if len(sys.argv) > 3 else None
    if shots:
        pathlib.Path(shots).mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp())
    svc, base = start_svc(binary, work)
    receiver = Receiver()
    stamp = str(int(time.time() * 1000))
    owner = f"ana-{stamp}@example.com"
    member = f"eva-{stamp}@example.com"
    stranger = f"luz-{stamp}@example.com"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            run = Run(browser, base, axe, shots)

            # Sign up, confirm, sign in (a wrong password first).
            ctx = run.context()
            page = ctx.new_page()
            run.sign_up(page, "Taller Ana", owner)
            run.sign_in(page, owner, "no es la buena")
            assert page.locator("[role=alert]").inner_text().startswith("El correo o la contraseña"), page.content()
            run.accessible(page, "sign-in-error")
            run.sign_in(page, owner)
            page.wait_for_selector("h1 >> text=Taller Ana")
            run.accessible(page, "overview")

            # A test key, shown once, works on the REST API.
            page.goto("/developers/keys")
            page.wait_for_selector("h1 >> text=Claves de la API")
            run.accessible(page, "keys")
            page.check("input[name=mode][value=test]")
            page.click("main button[type=submit] >> text=Crear clave")
            key = page.locator("#new-key").inner_text().strip()
            assert key.startswith("svc_test_"), key
            run.accessible(page, "keys-created")
            status, usage = api_status(base, "/api/v1/usage", key)
            assert status == 200 and usage["livemode"] is False, (status, usage)

            # The issuer details, then an invoice issued on the web, listed and downloaded.
            page.click("nav >> text=Negocio")
            for field, value in [("#name", "Taller Ana SL"), ("#nif", "B64717838"), ("#address", "Calle Real 4"),
                                 ("#postal_code", "10003"), ("#city", "Cáceres")]:
                page.fill(field, value)
            page.click("main button[type=submit] >> text=Guardar")
            page.wait_for_selector("text=Datos guardados")
            run.accessible(page, "business")

            # The certificate upload refuses a wrong password with the CLI's message.
            page.set_input_files("#p12", files=[{"name": "ana.p12", "mimeType": "application/x-pkcs12",
                                                  "buffer": pkcs12("la buena")}])
            page.fill("#p12-password", "la mala")
            page.click("main button[type=submit] >> text=Subir el certificado")
            error = page.locator("#p12-error").inner_text()
            assert "the password does not open this PKCS#12 file" in error, error
            run.accessible(page, "certificate-refused")

            # A webhook whose local receiver gets the invoice.issued of the invoice issued next.
            page.goto("/developers/webhooks")
            run.accessible(page, "webhooks")
            page.fill("#url", receiver.url)
            page.check("input[name='event.invoice.issued']")
            page.click("main button[type=submit] >> text=Crear webhook")
            secret = page.locator("#webhook-secret").inner_text().strip()
            assert secret.startswith("whsec_"), secret
            run.accessible(page, "webhook-created")

            page.click("nav >> text=Facturas")
            page.click("main >> text=Nueva factura")
            run.accessible(page, "invoice-form")
            for field, value in [("#customer-name", "Bar Lola SL"), ("#customer-tax_id", "B10000024"),
                                 ("#customer-address", "Plaza Mayor 1"), ("#customer-postal_code", "10001"),
                                 ("#customer-city", "Cáceres"), ("#lines-0--description", "Reparación"),
                                 ("#lines-0--quantity", "2"), ("#lines-0--unit_price", "50")]:
                page.fill(field, value)
            page.click("main button[type=submit] >> text=Emitir la factura")
            page.wait_for_selector("text=Factura emitida")
            number = page.locator("h1").inner_text().split()[-1]
            invoice_url = page.url
            assert number.startswith("TEST-F"), number
            run.accessible(page, "invoice")
            event = receiver.wait_for("invoice.issued")
            assert event["data"]["object"]["number"] == number, event
            page.click("nav >> text=Facturas")
            page.wait_for_selector(f"main a >> text={number}")
            run.accessible(page, "invoices")
            # The filters swap the list in place with htmx (no reload, the URL follows).
            page.evaluate("window.stillThisPage = true")
            page.select_option("#status", "cancelled")
            page.click("main button[type=submit] >> text=Filtrar")
            page.wait_for_selector("#invoice-list >> text=No hay facturas")
            assert "status=cancelled" in page.url, page.url
            assert page.evaluate("window.stillThisPage === true"), "the filter reloaded the page"
            page.select_option("#status", "")
            page.click("main button[type=submit] >> text=Filtrar")
            page.click(f"main a >> text={number}")
            with page.expect_download() as download:
                page.click("text=Descargar PDF")
            pdf = pathlib.Path(download.value.path()).read_bytes()
            assert pdf.startswith(b"%PDF"), pdf[:20]
            page.goto("/customers")
            run.accessible(page, "customers")
            # An expense by hand: a wrong NIF comes back beside its field, then it saves
            # (test mode checks everything and keeps nothing).
            page.goto("/expenses/new")
            run.accessible(page, "expense-new")
            page.fill("#supplier_name", "Gestoría López SL")
            page.fill("#supplier_tax_id", "B12345670")
            page.fill("#number", "G-412")
            page.fill("#issue_date", "2026-10-05")
            page.fill("#lines-0--base", "200")
            page.fill("#lines-0--rate", "21")
            page.click("main button[type=submit] >> text=Guardar")
            page.wait_for_selector("#supplier_tax_id-error")
            run.accessible(page, "expense-refused")
            page.fill("#supplier_tax_id", "B12345674")
            page.click("main button[type=submit] >> text=Guardar")
            page.wait_for_selector("text=No hay gastos")
            run.accessible(page, "expenses")
            page.goto("/expenses/from-file")
            run.accessible(page, "expense-from-file")
            for path, name in [("/developers", "developers"), ("/developers/events", "events"),
                               ("/business/series", "series"), ("/extraction", "extraction"),
                               ("/analyses", "analyses"), ("/analyses/cuestionario", "cuestionario"),
                               ("/taxes", "taxes"), ("/taxes/model-130", "model-130")]:
                page.goto(path)
                run.accessible(page, name)
            page.goto("/developers/api")
            page.wait_for_selector("redoc h1, [role=main] h1, .api-content", timeout=20000)
            run.accessible(page, "api-reference")

            # A form without its CSRF token is refused.
            refused = ctx.request.post(base + "/developers/keys", form={"mode": "test"})
            assert refused.status == 403, refused.status

            # Members: the owner invites; the member signs up with that
            # address, signs in, sees the offer and joins.
            page.goto("/members")
            run.accessible(page, "members")
            page.fill("#email", member)
            page.click("main button[type=submit] >> text=Invitar")
            page.wait_for_selector("text=Invitación enviada")
            run.accessible(page, "members-pending")
            invitation = link_in_mail(member, "/invitation", 1)
            member_ctx = run.context()
            member_page = member_ctx.new_page()
            member_page.goto(invitation)
            run.accessible(member_page, "invitation-signed-out")
            run.sign_up(member_page, "Eva", member, mails_before=1)
            run.sign_in(member_page, member)
            member_page.goto(invitation)
            run.accessible(member_page, "invitation")
            member_page.click("main button[type=submit] >> text=Unirme a Taller Ana")
            member_page.wait_for_selector("h1 >> text=Taller Ana")
            assert member_page.goto(base + "/developers/keys").status == 404
            run.accessible(member_page, "not-found")
            member_ctx.close()

            # Another account cannot reach this account's key.
            page.goto("/developers/keys")
            key_id = re.search(r"/developers/keys/(key_[0-9a-f]+)/revoke", page.content()).group(1)
            other_ctx = run.context()
            other = other_ctx.new_page()
            run.sign_up(other, "Otra Empresa", stranger)
            run.sign_in(other, stranger)
            foreign_invoice = other.goto(invoice_url)
            assert foreign_invoice.status == 404, foreign_invoice.status
            run.accessible(other, "foreign-invoice")
            other.goto("/developers/keys")
            token = other.locator("input[name=_csrf]").first.get_attribute("value")
            foreign = other_ctx.request.post(
                base + f"/developers/keys/{key_id}/revoke",
                form={"_csrf": token, "confirm": "yes"},
                headers={"Origin": base},
            )
            assert foreign.status == 404, foreign.status
            other_ctx.close()
            assert api_status(base, "/api/v1/usage", key)[0] == 200, "the key still works"

            # The forgotten-password page.
            anon = run.context()
            anon_page = anon.new_page()
            anon_page.goto("/forgot")
            run.accessible(anon_page, "forgot")

            # Throttling: past five failures even the right password is refused.
            for _ in range(5):
                run.sign_in(anon_page, owner, "tampoco es esta")
            run.sign_in(anon_page, owner)
            alert = anon_page.locator("[role=alert]").inner_text()
            assert alert.startswith("Demasiados intentos"), alert
            anon.close()

            # English, then sign out.
            page.goto("/developers/keys")
            page.click("footer >> text=English")
            page.wait_for_selector("nav >> text=Developers")
            run.accessible(page, "keys-en")
            page.click("nav >> text=Sign out")
            page.wait_for_url("**/sign-in")
            assert page.goto(base + "/developers/keys").url.endswith("/sign-in?next=%2Fdevelopers%2Fkeys")
            ctx.close()
            browser.close()
            # Redoc asks for its "powered by" logo from its CDN; the CSP blocks it, as it should.
            blocked = [e for e in run.csp_errors if "https://cdn.redoc.ly/" not in e]
            assert not blocked, blocked
            print(f"web application OK in Chromium; axe clean on {len(run.checked)} pages: {', '.join(run.checked)}")
    finally:
        receiver.close()
        svc.terminate()
        svc.wait()


if __name__ == "__main__":
    main()
