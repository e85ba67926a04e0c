"""moto's server with DynamoDB requests applied one at a time.

moto serves each request on its own thread and its DynamoDB backend has no
locks, so two concurrent conditional updates of one item can both pass their
condition: the table contract's concurrent-increment check then loses an
update now and then. DynamoDB applies each request atomically; one lock around
DynamoDB (and DynamoDB Streams) requests gives the emulator that property,
while SQS long polls and S3 transfers keep running in parallel.

Usage: python moto_server.py HOST PORT
"""

import sys
import threading

from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

_dynamodb = threading.Lock()


def _is_dynamodb(environ):
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    return target.startswith("DynamoDB_") or target.startswith("DynamoDBStreams_")


def serialised_dynamodb(app):
    def wrapped(environ, start_response):
        if not _is_dynamodb(environ):
            return app(environ, start_response)
        with _dynamodb:
            # The body is produced inside the lock, so the whole request is.
            return list(app(environ, start_response))

    return wrapped


if __name__ == "__main__":
    host, port = sys.argv[1], int(sys.argv[2])
    application = DomainDispatcherApplication(create_backend_app)
    run_simple(
        host,
        port,
        serialised_dynamodb(application),
        threaded=True,
        request_handler=MotoRequestHandler,
    )
