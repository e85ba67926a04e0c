"""Attack replays on people and their accounts (issue 44, findings 2, 3, 6,
7, 8, 10), each against a `svc serve` of its own:

- invitation-squat: an owner invites an address; its owner later signs up,
  gets an account of their own, and a reset joins them to nothing.
- parallel-sign-ins: 100 parallel wrong passwords for one address: at most
  5 are checked (answered 422), the rest wait (429).
- lockout-by-stranger: failures from other clients (behind a trusted proxy)
  do not stop the owner on the browser they signed in on before.
- enumeration-by-message: invite, forgot and sign-up answer the same for a
  known and an unknown address.
- enumeration-by-timing: over 20 tries each, the median answer times of
  forgot and sign-up for known and unknown addresses are within 20 %.
- mail-floods: 15 resets, 10 sign-ups of a registered address, 15
  invitations: at most 5 letters to an address an hour, at most 10
  invitations an account an hour.
- crlf-in-names: a business name with CR/LF is refused; an account name
  with HTML reaches an invitation as plain text on one line.
- sessions-after-reset: a reset ends every session and every earlier link;
  signing in again replaces the session.

Usage: python3 .ci/security_people.py SVC_BINARY
"""

import statistics
import sys
import threading
import time

from security_common import (
    Browser, Svc, Tally, links, mails, settle, signed_up, text_of, unique, wait_mails,
)

PROXY = {"SVC_TRUSTED_PROXY_HEADER": "X-Forwarded-For"}


def forwarded(n):
    """A request through the trusted proxy from client `n`: the proxy appends
    the client's address, and only that right-most entry counts."""
    return {"X-Forwarded-For": f"203.0.113.9, 198.51.{n // 250}.{n % 250 + 1}"}


def invitation_squat(svc):
    attacker = signed_up(svc, "Atacante SL", unique("attacker"))
    victim = unique("victim")
    page = attacker.submit("/members", "/members", [("email", victim)])
    if page.status != 200:
        return False, f"the invitation answered {page.status}"
    wait_mails(victim, 1)
    stranger = Browser(svc)
    stranger.submit("/forgot", "/forgot", [("email", victim)])
    settle()
    if any(links(m, "/reset") for m in mails(victim)):
        return False, "an invited address that never signed up got a reset link"
    owner = signed_up(svc, "Taller de la Víctima", victim)
    overview = owner.get("/").html
    if "Taller de la Víctima" not in overview or "Atacante SL" in overview:
        return False, "the victim's sign-up did not give them their own account"
    return True, ""


def parallel_sign_ins(svc):
    victim = unique("target")
    signed_up(svc, "Objetivo", victim)
    browser = Browser(svc)
    token = browser.get("/sign-in").csrf()
    statuses = []

    def guess():
        statuses.append(Browser(svc).request(
            "POST", "/sign-in",
            body=f"_csrf={token}&email={victim}&password=no+es+esta&next=%2F",
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": svc.base,
                     "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())},
        ).status)

    threads = [threading.Thread(target=guess) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    checked = statuses.count(422)
    others = set(statuses) - {422, 429}
    return checked <= 5 and not others, f"{checked} checked, statuses {sorted(set(statuses))}"


def lockout_by_stranger(svc):
    owner_address = unique("owner")
    owner = signed_up(svc, "Dueña", owner_address, headers=forwarded(1))
    owner.submit("/", "/sign-out", [], headers=forwarded(1))
    for n in range(8):
        Browser(svc, forwarded(100 + n)).sign_in(owner_address, "no es esta")
    stranger = Browser(svc, forwarded(200)).sign_in(owner_address)
    if stranger.status != 429:
        return False, f"a new client with the right password after the guesses got {stranger.status}"
    again = owner.sign_in(owner_address, headers=forwarded(1))
    return again.status == 303, f"the owner's own browser got {again.status}"


def same_answer(one, other):
    strip = lambda page: page.html.replace(page.csrf() or "", "")
    return one.status == other.status and strip(one) == strip(other)


def enumeration_by_message(svc):
    known = unique("known")
    owner = signed_up(svc, "Taller", known)
    elsewhere = unique("elsewhere")
    signed_up(svc, "Otra", elsewhere)
    nobody = unique("nobody")
    invite_known = owner.submit("/members", "/members", [("email", elsewhere)])
    invite_unknown = owner.submit("/members", "/members", [("email", nobody)])
    if (invite_known.status, invite_known.html.count("Invitación enviada")) != (
            invite_unknown.status, invite_unknown.html.count("Invitación enviada")):
        return False, f"invite: {invite_known.status} vs {invite_unknown.status}"
    forgot_known = Browser(svc).submit("/forgot", "/forgot", [("email", known)])
    forgot_unknown = Browser(svc).submit("/forgot", "/forgot", [("email", unique("nobody"))])
    if not same_answer(forgot_known, forgot_unknown):
        return False, "forgot answers differ"
    up_known = Browser(svc).sign_up("X", known)
    up_unknown = Browser(svc).sign_up("X", unique("nobody"))
    if not same_answer(up_known, up_unknown):
        return False, "sign-up answers differ"
    return True, ""


def timed(action):
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def medians_close(name, known, unknown):
    a, b = statistics.median(known), statistics.median(unknown)
    close = abs(a - b) <= 0.2 * max(a, b)
    return close, f"{name}: median {a * 1000:.1f} ms known, {b * 1000:.1f} ms unknown"


def enumeration_by_timing(svc):
    """Each request from its own forwarded client (as many people would
    send them), so the per-client limits do not interfere."""
    known = unique("timed")
    signed_up(svc, "Taller", known, headers=forwarded(0))
    forms = {
        "forgot": ("/forgot", lambda address: [("email", address)]),
        "sign-up": ("/sign-up", lambda address: [("business", "X"), ("email", address),
                                                 ("password", "una frase bastante larga")]),
    }
    results = []
    for n, (name, (action, fields)) in enumerate(forms.items()):
        template = Browser(svc)
        token = template.get(action).csrf()

        def send(client, address):
            browser = Browser(svc, forwarded(client))
            browser.cookies = dict(template.cookies)
            return lambda: browser.post(action, [("_csrf", token)] + fields(address))

        known_times, unknown_times = [], []
        for i in range(20):
            client = 1000 + 100 * n + 2 * i
            known_times.append(timed(send(client, known)))
            unknown_times.append(timed(send(client + 1, unique("nobody"))))
        results.append(medians_close(name, known_times, unknown_times))
        print("  " + results[-1][1], flush=True)
    return all(held for held, _ in results), "; ".join(why for _, why in results)


def mail_floods(svc):
    reset_target = unique("flood")
    signed_up(svc, "Taller", reset_target, headers=forwarded(7))
    for n in range(15):
        Browser(svc, forwarded(300 + n)).submit("/forgot", "/forgot", [("email", reset_target)])
    signup_target = unique("again")
    signed_up(svc, "Taller", signup_target, headers=forwarded(8))
    for n in range(10):
        Browser(svc, forwarded(400 + n)).sign_up("Otro", signup_target)
    owner = signed_up(svc, "Inviter", unique("inviter"), headers=forwarded(9))
    invited = [unique("spam") for _ in range(15)]
    answers = [owner.submit("/members", "/members", [("email", a)], headers=forwarded(9)).status
               for a in invited]
    settle()
    resets, notices = len(mails(reset_target)), len(mails(signup_target))
    sent = sum(len(mails(a)) for a in invited)
    held = resets <= 5 and notices <= 5 and sent <= 10 and answers.count(429) == 5
    return held, (f"{resets} letters to the reset target, {notices} to the sign-up target "
                  f"(confirmation included), {sent} invitations sent, answers {answers}")


def crlf_in_names(svc):
    refused = Browser(svc).sign_up("Taller\r\nBcc: victim@example.com", unique("crlf"))
    if refused.status != 422:
        return False, f"a name with CR/LF answered {refused.status}"
    owner = signed_up(svc, '<a href="https://evil.example">Premio</a> Taller', unique("html"))
    target = unique("html-target")
    owner.submit("/members", "/members", [("email", target)])
    message = wait_mails(target, 1)[-1]
    parts = [part.get_content_type() for part in message.walk()]
    subject = message["Subject"]
    body = text_of(message)
    if "text/html" in parts or "\n" in subject or message["Bcc"]:
        return False, f"parts {parts}, subject {subject!r}"
    first = body.splitlines()[0]
    return "«<a href" in first, f"the name is not quoted on one line: {first!r}"


def sessions_after_reset(svc):
    address = unique("reset")
    browser = signed_up(svc, "Taller", address)
    first = browser.cookies.get("svc_session")
    token = browser.get("/").csrf()
    again = browser.post("/sign-in", [("_csrf", token), ("email", address),
                                      ("password", "una frase bastante larga"), ("next", "/")])
    if again.status != 303 or browser.cookies.get("svc_session") == first:
        return False, "signing in again kept the session id"
    replay = Browser(svc)
    replay.cookies["svc_session"] = first
    if replay.get("/developers/keys").status != 303:
        return False, "the earlier session still works after signing in again"
    before = len(mails(address))
    for _ in range(2):
        Browser(svc).submit("/forgot", "/forgot", [("email", address)])
    sent = wait_mails(address, before + 2)[before:]
    older, newer = links(sent[0], "/reset")[0], links(sent[1], "/reset")[0]
    stranger = Browser(svc)
    token = stranger.open_link(newer).csrf()
    set_page = stranger.post("/reset", [("_csrf", token), ("token", newer.rsplit("=", 1)[1]),
                                        ("password", "otra frase muy larga")])
    if set_page.status != 200:
        return False, f"the reset answered {set_page.status}"
    if browser.get("/developers/keys").status != 303:
        return False, "a session outlived the reset"
    old = Browser(svc).open_link(older)
    return old.status == 404, f"an earlier reset link answered {old.status}"


def main():
    binary = sys.argv[1]
    tally = Tally()
    for name, attack, env in [
        ("invitation-squat", invitation_squat, None),
        ("parallel-sign-ins", parallel_sign_ins, None),
        ("lockout-by-stranger", lockout_by_stranger, PROXY),
        ("enumeration-by-message", enumeration_by_message, None),
        ("enumeration-by-timing", enumeration_by_timing, PROXY),
        ("mail-floods", mail_floods, PROXY),
        ("crlf-in-names", crlf_in_names, None),
        ("sessions-after-reset", sessions_after_reset, None),
    ]:
        with Svc(binary, env) as svc:
            tally.run(name, lambda: attack(svc))
    tally.finish()


if __name__ == "__main__":
    main()
