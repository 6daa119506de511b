"""Verifies webhook deliveries with the official Python library (PyPI standardwebhooks), as a receiver would.

Reads a JSON list of checks from stdin, each {secret, body, headers, laterSeconds?}, and prints a
JSON list with, for each, true when the library accepts the delivery, else the library's error.
laterSeconds verifies as if that much time had passed since it arrived: a replayed request.
"""

import json
import sys
from datetime import datetime, timedelta

from standardwebhooks import webhooks


def verify(check):
    later = timedelta(seconds=check.get("laterSeconds", 0))

    class Clock(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.now(tz) + later

    # The library reads its clock from this name; the signature check itself is untouched.
    webhooks.datetime = Clock
    try:
        webhooks.Webhook(check["secret"]).verify(check["body"], check["headers"])
        return True
    except Exception as error:  # the library's verdict, whatever its kind
        return f"{type(error).__name__}: {error}"


print(json.dumps([verify(check) for check in json.load(sys.stdin)]))
