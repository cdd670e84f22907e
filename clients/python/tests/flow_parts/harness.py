"""The check runner and what every area of the flow shares."""

from __future__ import annotations

import json
import sys
import time
import traceback
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from momo_gateway_client import MomoClient
from momo_gateway_client.schema import EmbeddedCustomer

from .listener import WAIT_S, Deliveries

T = TypeVar("T")

Details = dict[str, Any]


class CheckFailed(AssertionError):
    pass


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(what)


def eventually(probe: Callable[[], T | None], what: str, timeout: float = WAIT_S) -> T:
    """`probe()`'s first value that is not None, asking every 0.25 s for up to `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.25)


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line, ensure_ascii=False), flush=True)


class FlowBase:
    """The flow's state; each area's checks are a subclass, and flow.py's Flow is all of them."""

    def __init__(self, client: MomoClient, deliveries: Deliveries) -> None:
        self.client = client
        self.deliveries = deliveries
        self.checks = 0
        self.run = uuid.uuid4().hex[:6]
        self.secret = ""
        self.state: dict[str, Any] = {}

    def id(self, what: str) -> str:
        """A transaction id of this run, at most 20 characters (v2's limit)."""
        return f"py{self.run}-{what}"[:20]

    def check(self, name: str, body: Callable[[], Details]) -> None:
        try:
            details = body()
        except Exception as e:  # every failure of a check, an assertion or an API error, stops the flow
            emit({"check": name, "ok": False, "error": f"{type(e).__name__}: {e}"})
            traceback.print_exc()
            sys.exit(1)
        self.checks += 1
        emit({"check": name, "ok": True, **details})

    def customer(self, phone: str) -> EmbeddedCustomer:
        return {
            "firstName": "Awa",
            "lastName": "Koné",
            "phone": phone,
            "email": "awa@example.ci",
            "address": {"countryCode": "CI", "city": "Abidjan"},
        }
