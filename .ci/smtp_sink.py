"""A local SMTP receiver for the email tests (aiosmtpd).

Every message it accepts is written once per recipient, as
OUTDIR/<recipient>/<n>.eml (the raw message as received). A recipient whose
address starts with `refused-` is answered 550, as a server answers an
address it will never deliver to.

Usage: python smtp_sink.py HOST PORT OUTDIR
"""

import itertools
import pathlib
import signal
import sys

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, out):
        self.out = out
        self.count = itertools.count(1)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower().startswith("refused-"):
            return "550 5.1.1 <%s>: recipient address rejected: mailbox unavailable" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        n = next(self.count)
        for rcpt in envelope.rcpt_tos:
            box = self.out / rcpt.lower()
            box.mkdir(parents=True, exist_ok=True)
            tmp = box / (".%06d.tmp" % n)
            tmp.write_bytes(envelope.original_content or envelope.content)
            tmp.rename(box / ("%06d.eml" % n))
        return "250 OK"


if __name__ == "__main__":
    host, port, out = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    Controller(Sink(out), hostname=host, port=port).start()
    print("smtp sink on %s:%d writing to %s" % (host, port, out), flush=True)
    signal.sigwait({signal.SIGINT, signal.SIGTERM})
