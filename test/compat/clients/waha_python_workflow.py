"""
A bot's day with the peer's own Python client (PyPI `waha`, devlikeapro/waha-python), against a
Switchboard gateway: pair a session, send, receive, read, react, and clean up. Each step parses
the answer into the client's own pydantic models, which is where a field shaped otherwise fails.

Run by waha-python.test.ts: python waha_python_workflow.py <base url> <api key> <session>.
Prints one line per step, `ok <step>`, `known <step>: <why>` (a listed mismatch between the client
and the peer's own document) or `FAILED <step>: <why>`, and exits 1 on the first failure.
"""

import sys
import time

from waha import WahaClient
from waha.types import QRFormat, SessionStatus

base_url, api_key, session = sys.argv[1], sys.argv[2], sys.argv[3]
chat_id = "11111111111@c.us"
client = WahaClient(base_url=base_url, api_key=api_key, timeout=30.0)


def step(name, action):
    try:
        result = action()
    except Exception as error:  # noqa: BLE001 - the step's name and the error are the report
        print(f"FAILED {name}: {type(error).__name__}: {error}", flush=True)
        client.close()
        sys.exit(1)
    print(f"ok {name}", flush=True)
    return result


def known(name, action, reason):
    """A step where the client itself disagrees with the peer's own document: it must fail, as said."""
    try:
        action()
    except Exception as error:  # noqa: BLE001
        print(f"known {name}: {reason} ({type(error).__name__})", flush=True)
        return
    print(f"FAILED {name}: passed, yet it is listed as a known mismatch of the client ({reason}): take it off the list", flush=True)
    client.close()
    sys.exit(1)


def wait_for(status):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        info = client.sessions.get(session)
        if info.status == status:
            return info
        time.sleep(0.05)
    raise AssertionError(f"session {session} did not reach {status.value} (last: {info.status.value})")


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def phone(body):
    """The other side of a SANDBOX session (not the peer's API): scan, or send us a message."""
    return client._http_client.post(f"/api/{session}/sandbox/simulate", data=body)


created = step("sessions.create", lambda: client.sessions.create(session, start=True))
expect(created.name == session, f"created {created.name}")
step("sessions.list", lambda: expect(any(s.name == session for s in client.sessions.list()), "listed"))
step("sessions.get -> SCAN_QR_CODE", lambda: wait_for(SessionStatus.SCAN_QR_CODE))
known(
    "auth.get_qr_code raw",
    lambda: client.auth.get_qr_code(session, format=QRFormat.RAW),
    "the client's QRCodeValue wants `qr`; the peer's document and the spec name it `value`, as this gateway answers",
)
raw = step("GET /api/{session}/auth/qr?format=raw", lambda: client._http_client.get(f"/api/{session}/auth/qr", params={"format": "raw"}))
step("qr value", lambda: expect(len(raw["value"]) > 0, f"no QR value: {raw}"))
known(
    "auth.get_qr_code image",
    lambda: client.auth.get_qr_code(session, format=QRFormat.IMAGE),
    "the client sends `Accept: application/json` on every request, so the image comes as the document's Base64File"
    " {mimetype, data}, as the peer answers it; the client reads only a binary body",
)
image = step(
    "GET /api/{session}/auth/qr?format=image, Accept: image/png",
    lambda: client._http_client.get(f"/api/{session}/auth/qr", params={"format": "image"}, headers={"Accept": "image/png"}),
)
png = image["content"]
step("qr image is a PNG", lambda: expect(png[:8] == b"\x89PNG\r\n\x1a\n", f"not a PNG: {png[:8]!r}"))
step("phone scans the QR", lambda: phone({"kind": "scan"}))
step("sessions.get -> WORKING", lambda: wait_for(SessionStatus.WORKING))
me = step("sessions.get_me", lambda: client.sessions.get_me(session))
step("me has an id", lambda: expect(me.id.endswith("@c.us"), f"me.id {me.id}"))
step("profile.get", lambda: client.profile.get(session))
exists = step("contacts.check_exists", lambda: client.contacts.check_exists("11111111111", session=session))
step("number exists", lambda: expect(exists.numberExists, f"{exists}"))
sent = step("messages.send_text", lambda: client.messages.send_text(chat_id=chat_id, text="Hi from the peer's Python client", session=session))
step("sent message parsed", lambda: expect(sent.fromMe and isinstance(sent.timestamp, int), f"{sent}"))
step("phone sends a message", lambda: phone({"kind": "message", "from": chat_id, "id": "PYTHONCLIENTINCOMING1", "body": "Hello bot"}))


def both_in_history():
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        messages = client.chats.get_messages(chat_id, session=session, limit=10)
        bodies = {m.body for m in messages}
        if {"Hi from the peer's Python client", "Hello bot"} <= bodies:
            return messages
        time.sleep(0.1)
    raise AssertionError(f"history lacks a message: {sorted(bodies)}")


history = step("chats.get_messages", both_in_history)
incoming = next(m for m in history if m.body == "Hello bot")
step("incoming message parsed", lambda: expect(not incoming.fromMe and isinstance(incoming.timestamp, int), f"{incoming}"))
step("messages.send_seen", lambda: client.messages.send_seen(chat_id=chat_id, session=session, message_id=incoming.id))
step("messages.start_typing", lambda: client.messages.start_typing(chat_id=chat_id, session=session))
step("messages.stop_typing", lambda: client.messages.stop_typing(chat_id=chat_id, session=session))
step("messages.react", lambda: client.messages.react(message_id=incoming.id, reaction="👍", session=session))
step("sessions.stop", lambda: client.sessions.stop(session))
step("sessions.delete", lambda: client.sessions.delete(session))
client.close()
print("workflow done", flush=True)
