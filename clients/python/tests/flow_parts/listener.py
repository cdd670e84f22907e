"""The webhook receiver: what the gateway POSTs to http://127.0.0.1:$MOMO_WEBHOOK_PORT/webhooks."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

WAIT_S = 20.0


@dataclass(frozen=True)
class Delivery:
    headers: dict[str, str]
    body: bytes


class Deliveries:
    """What the gateway POSTed to /webhooks, in order of arrival."""

    def __init__(self) -> None:
        self._seen: list[Delivery] = []
        self._changed = threading.Condition()

    def add(self, delivery: Delivery) -> None:
        with self._changed:
            self._seen.append(delivery)
            self._changed.notify_all()

    def count(self) -> int:
        with self._changed:
            return len(self._seen)

    def matching(self, wanted: Callable[[Delivery], bool]) -> list[Delivery]:
        with self._changed:
            return [d for d in self._seen if wanted(d)]

    def wait_for(self, wanted: Callable[[Delivery], bool], timeout: float = WAIT_S) -> Delivery | None:
        """The first delivery `wanted` accepts, waiting for it up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        checked = 0
        with self._changed:
            while True:
                for delivery in self._seen[checked:]:
                    if wanted(delivery):
                        return delivery
                checked = len(self._seen)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)


def listen(port: int, deliveries: Deliveries) -> ThreadingHTTPServer:
    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            if self.path != "/webhooks":
                self.send_response(404)
                self.end_headers()
                return
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            deliveries.add(Delivery({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Receiver)
    threading.Thread(target=server.serve_forever, name="webhooks", daemon=True).start()
    return server
