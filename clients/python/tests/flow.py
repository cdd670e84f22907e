#!/usr/bin/env python3
"""A whole merchant flow against a running gateway, through momo_gateway_client's methods only.

    MOMO_BASE_URL=http://127.0.0.1:8080 MOMO_API_KEY=pk_sandbox_... MOMO_API_SECRET=sk_sandbox_... \\
    MOMO_WEBHOOK_PORT=18282 python clients/python/tests/flow.py

The merchant's Sandbox webhook URL must already be http://127.0.0.1:$MOMO_WEBHOOK_PORT/webhooks
(`momo-gateway merchant set-webhook`, with MOMO_WEBHOOK_ALLOW_PRIVATE=true on the gateway): this
script listens there. It prints one JSON line per check (`{"check": ..., "ok": true, ...}`),
stops at the first that fails (exit 1, saying what failed; the traceback goes to stderr), and
ends with `{"done": true, "checks": N}`. Numbers follow docs/sandbox.md: a number ending 01
succeeds at once, 02 is PENDING then SUCCESSFUL, 09 has no account. Every run uses fresh ids, so
it can run again on the same gateway.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

try:
    import momo_gateway_client  # noqa: F401 (importable, or found beside us)
except ImportError:  # run from a checkout without installing: the package's source beside us
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import momo_gateway_client  # noqa: F401 (importable, or found beside us)

from momo_gateway_client import (
    ConflictError,
    InvalidWebhookError,
    MomoClient,
    NotFoundError,
    UnprocessableEntityError,
    is_payout_batch,
    is_successful,
    verify_webhook,
)
from momo_gateway_client.schema import EmbeddedCustomer, OperatorIn, TransferV1, WebhookTransaction

WAIT_S = 20.0
T = TypeVar("T")

Details = dict[str, Any]


# --- the webhook receiver ----------------------------------------------------------------------


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


# --- checks ------------------------------------------------------------------------------------


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


class Flow:
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

    # --- the flow, in order ----------------------------------------------------------------

    def all(self) -> None:
        c = self.client
        self.check("token", self.token)
        self.check("webhook_secret_rotated", self.rotate)
        self.check("collection_v1", self.collection_v1)
        self.check("webhook_received_and_verified", self.webhook_received)
        self.check("collection_v2", self.collection_v2)
        self.check("status_v1_and_v2", self.status)
        self.check("status_pending_then_successful", self.status_settles)
        self.check("transfer_v1", self.transfer_v1)
        self.check("transfer_v2", self.transfer_v2)
        self.check("refund_v1", self.refund_v1)
        self.check("refund_v2", self.refund_v2)
        self.check("payment_link_v1", lambda: self.payment_link(c.v1, "v1"))
        self.check("payment_link_v2", lambda: self.payment_link(c.v2, "v2"))
        self.check("payout_batch_json", self.payout_batch_json)
        self.check("payout_batch_csv", self.payout_batch_csv)
        self.check("payout_batches_fetched_completed", self.payout_batches_completed)
        self.check("payout_batch_webhook_verified", self.payout_batch_webhook)
        self.check("recipient_check_v1", self.recipient_check_v1)
        self.check("recipient_check_v2", self.recipient_check_v2)
        self.check("recipient_checks_listed", self.recipient_checks_listed)
        self.check("customer_create", self.customer_create)
        self.check("customer_get", self.customer_get)
        self.check("customer_list", self.customer_list)
        self.check("transactions_list_paged", self.transactions_list)
        self.check("balance", self.balance)
        self.check("statement", self.statement)
        self.check("settlement_report", self.settlement_report)
        self.check("idempotent_replay", self.idempotency)
        self.check("idempotency_key_reused", self.idempotency_reused)
        self.check("typed_error_not_found", self.not_found)
        self.check("typed_error_duplicate", self.duplicate)
        self.check("webhook_events_listed", self.webhook_events_listed)
        self.check("webhook_event_fetched", self.webhook_event_fetched)
        self.check("webhook_event_redelivered", self.webhook_redelivered)
        self.check("webhook_range_redelivered", self.webhook_range_redelivered)

    def token(self) -> Details:
        token = self.client.authenticate()
        lifetime = token["exp"] - time.time()
        expect(token["token"].count(".") == 2, "the token is a JWT")
        expect(0 < lifetime <= 700, f"the token lasts about 600 s, not {lifetime:.0f}")
        expect(self.client.token() == token["token"], "the client keeps the token it took")
        return {"lifetime_s": round(lifetime), "environment": self.client.environment}

    def rotate(self) -> Details:
        key = str(uuid.uuid4())
        first = self.client.v1.rotate_webhook_secret(idempotency_key=key)
        again = self.client.v1.rotate_webhook_secret(idempotency_key=key)
        secret = first.data["webhookSecret"]
        expect(secret.startswith("whsec_"), "the new secret is whsec_...")
        expect(first.data["environment"] == "Sandbox", "the token's environment's secret rotated")
        expect(again.replayed and again.data["webhookSecret"] == secret, "a retry with the key gets the same secret")
        expect(first.headers.get("Cache-Control") == "no-store", "the secret is not cached")
        self.secret = secret
        return {"previous_valid_until": first.data["previousSecretValidUntil"], "retry_replayed": again.replayed}

    def collection_v1(self) -> Details:
        tx_id = self.id("c1")
        r = self.client.v1.collect(
            transaction_id=tx_id,
            operator="ALPHA_MONEY_CI",
            payer="0701020301",
            amount=1500,
            customer=self.customer("0701020301"),
            otp_code="1234",
        )
        tx = r.data
        expect(
            r.status_code == 200 and tx["status"] == "SUCCESSFUL",
            f"01 succeeds at once: {r.status_code} {tx['status']}",
        )
        expect(
            (tx["fees"], tx["amountReceive"]) == ("30", "1470"),
            f"2 % fees come out: {tx['fees']} {tx['amountReceive']}",
        )
        expect(tx["transactionId"] == tx_id and tx["typeTransaction"] == "collecte", "the collection is ours")
        self.state["c1"] = tx
        return {"ref": tx["ref"], "status": tx["status"], "fees": tx["fees"], "request_id": r.request_id}

    def webhook_received(self) -> Details:
        tx_id = self.state["c1"]["transactionId"]
        found: dict[str, Any] = {}

        def ours(d: Delivery) -> bool:
            try:
                event = verify_webhook(self.secret, d.headers, d.body)
            except InvalidWebhookError:
                return False  # an older delivery (another run's secret): not this one
            if event.get("transactionId") != tx_id:
                return False
            found["event"] = event
            return True

        delivery = self.deliveries.wait_for(ours)
        expect(
            delivery is not None,
            f"the collection's webhook arrives, signed with the new secret, within {WAIT_S:.0f} s "
            f"({self.deliveries.count()} deliveries came to the listener, none of them this one, verified)",
        )
        assert delivery is not None
        event: WebhookTransaction = found["event"]
        expect(
            event["status"] == "SUCCESSFUL" and event["ref"] == self.state["c1"]["ref"], "the event is the collection"
        )
        signatures = delivery.headers["webhook-signature"].split()
        for wrong, body in (
            ("whsec_" + "A" * 44, delivery.body),
            (self.secret, delivery.body.replace(b"1500", b"9500")),
        ):
            try:
                verify_webhook(wrong, delivery.headers, body)
            except InvalidWebhookError:
                continue
            raise CheckFailed("a wrong secret or a changed body must not verify")
        self.state["delivery"] = delivery
        return {"webhook_id": delivery.headers["webhook-id"], "signatures": len(signatures), "status": event["status"]}

    def collection_v2(self) -> Details:
        r = self.client.v2.collect(
            transaction_id=self.id("c2"),
            operator="GAMMA_MONEY_CI",
            customer_id="0501020301",
            amount=2000,
            name_user="Koffi Yao",
            email_user="koffi@example.ci",
        )
        tx = r.data
        expect(r.status_code == 200 and is_successful(tx), f"01 succeeds at once: {r.status_code} {tx['status']}")
        expect(r.message in ("PAYMENT_IS_SUCCESSFULL", "PAYMENT_IS_SUCCESSFUL"), f"v2 message: {r.message}")
        expect(tx["type_transaction"] == "collecte" and tx["fees"] == "40", "a v2 collection with its fees")
        self.state["c2"] = tx
        return {"ref": tx["ref"], "status": tx["status"], "message": r.message}

    def status(self) -> Details:
        c1 = self.state["c1"]
        by_id = self.client.v2.status(c1["transactionId"]).data
        by_ref = self.client.v1.status(c1["ref"]).data
        expect(by_id["ref"] == c1["ref"] and by_id["status"] == "SUCCESSFUL", "v2 finds it by id")
        expect(by_ref["transaction_id"] == c1["transactionId"], "v1 finds it by ref, in the v2 shape")
        return {"status": by_id["status"], "type_payment": by_id["type_payment"]}

    def status_settles(self) -> Details:
        tx_id = self.id("c3")
        r = self.client.v1.collect(
            transaction_id=tx_id,
            operator="GAMMA_MONEY_CI",
            payer="0701020302",
            amount=1000,
            customer=self.customer("0701020302"),
        )
        expect(r.status_code == 202 and r.data["status"] == "PENDING", f"02 is PENDING first: {r.status_code}")
        started = time.monotonic()

        def settled() -> str | None:
            status = self.client.v2.status(tx_id).data["status"]
            return None if status == "PENDING" else status

        final = eventually(settled, "the PENDING collection settles")
        expect(final == "SUCCESSFUL", f"02 ends SUCCESSFUL, not {final}")
        return {"first": "PENDING", "final": final, "after_s": round(time.monotonic() - started, 1)}

    def transfer_v1(self) -> Details:
        r = self.client.v1.transfer(
            transaction_id=self.id("t1"),
            operator="GAMMA_MONEY_CI",
            recipient="0701020301",
            amount=1000,
            customer=self.customer("0701020301"),
            check_recipient=True,
        )
        tx = r.data
        expect(tx["status"] == "SUCCESSFUL" and tx["typeTransaction"] == "transfer", f"a transfer: {tx['status']}")
        expect((tx["fees"], tx["amountTotal"]) == ("10", "1010"), "1 % fees on top")
        return {"ref": tx["ref"], "status": tx["status"], "amountTotal": tx["amountTotal"]}

    def transfer_v2(self) -> Details:
        r = self.client.v2.transfer(
            transaction_id=self.id("t2"),
            operator="DELTA_MONEY_CI",
            customer_id="0501020301",
            amount=1000,
            name="Aya Traoré",
        )
        tx = r.data
        expect(is_successful(tx) and tx["type_transaction"] == "transfert", f"a v2 transfer: {tx['status']}")
        return {"ref": tx["ref"], "status": tx["status"], "message": r.message}

    def refund_v1(self) -> Details:
        c1 = self.state["c1"]
        r = self.client.v1.refund(
            transaction_id=self.id("r1"), collection=c1["transactionId"], amount=500, reason="one item returned"
        )
        tx = r.data
        expect(tx["typeTransaction"] == "refund" and tx["status"] == "SUCCESSFUL", f"a refund: {tx['status']}")
        expect(tx.get("refundOf") == c1["ref"] and tx.get("reason") == "one item returned", "tied to its collection")
        refunded = self.client.v2.status(c1["ref"]).data.get("amount_refunded")
        expect(refunded == "500", f"the collection shows what is refunded: {refunded}")
        return {
            "ref": tx["ref"],
            "refundOf": tx.get("refundOf"),
            "amount": tx["amount"],
            "collection_refunded": refunded,
        }

    def refund_v2(self) -> Details:
        c2 = self.state["c2"]
        r = self.client.v2.refund(transaction_id=self.id("r2"), collection_id=c2["ref"])
        tx = r.data
        expect(tx["type_transaction"] == "refund" and is_successful(tx), f"a v2 refund: {tx['status']}")
        expect(tx["amount"] == c2["amount"] and tx.get("refund_of") == c2["ref"], "all of the collection, by default")
        return {"ref": tx["ref"], "refund_of": tx.get("refund_of"), "amount": tx["amount"]}

    def payment_link(self, api: Any, generation: str) -> Details:
        if generation == "v1":
            made = api.create_payment_link(description=f"Order {self.run}", amount=2500, operators=["ALPHA_MONEY_CI"])
        else:
            made = api.create_payment_link(
                description=f"Donation {self.run}", min_amount=500, max_amount=5000, reusable=True, max_payments=3
            )
        link = made.data
        expect(link["id"].startswith("lnk_") and link["active"] is True, "an active link")
        expect(link["url"].endswith("/pay/" + link["id"]), f"its payer's page: {link['url']}")
        fetched = api.get_payment_link(link["id"]).data
        expect(fetched["id"] == link["id"] and fetched["description"] == link["description"], "fetched by id")
        listed = [x["id"] for x in api.list_payment_links(limit=20)]
        expect(link["id"] in listed, "listed, newest first")
        gone = api.deactivate_payment_link(link["id"]).data
        expect(gone["active"] is False, "deactivated")
        expect(api.get_payment_link(link["id"]).data["active"] is False, "stays deactivated")
        return {"id": link["id"], "listed": len(listed), "active_after": gone["active"]}

    def payout_items(self) -> list[TransferV1]:
        """Three transfers, each the body of a v1 transfer (typed by the generated schema)."""
        payees: list[tuple[OperatorIn, str, int]] = [
            ("GAMMA_MONEY_CI", "0701020301", 1500),
            ("ALPHA_MONEY_CI", "0501020301", 2500),
            ("DELTA_MONEY_CI", "0101020301", 3500),
        ]
        return [
            {
                "transactionId": self.id(f"b{i}"),
                "customer": self.customer(phone),
                "recipient": phone,
                "currency": "XOF",
                "amount": str(amount),
                "operator": operator,
            }
            for i, (operator, phone, amount) in enumerate(payees)
        ]

    def payout_batch_json(self) -> Details:
        r = self.client.v1.create_payout_batch(self.payout_items(), label=f"Salaries {self.run}")
        batch, items = r.data["batch"], r.data["items"]
        expect(r.status_code == 202 and batch["id"].startswith("pbt_"), "a batch, recorded (202)")
        expect(batch["submitted"] == 3 and batch["accepted"]["count"] == 3, f"3 accepted: {batch['accepted']}")
        expect([i["outcome"] for i in items] == ["accepted"] * 3, "each item accepted, in order")
        self.state["batch_json"] = batch["id"]
        return {"id": batch["id"], "accepted": batch["accepted"], "status": batch["status"]}

    def payout_batch_csv(self) -> Details:
        csv = (
            "\ufefftransaction_id,operator,phone,amount,last_name,first_name,email,check_recipient\r\n"
            f"{self.id('v0')},GAMMA_MONEY_CI,0701020301,1200,Koné,Awa,awa@example.ci,true\r\n"
            f"{self.id('v1')},ALPHA_MONEY_CI,0501020311,800.00,Yao,Koffi,,\r\n"
            f"{self.id('v2')},BETA_CI,0701020399,15.5,Traoré,Aya,,\r\n"
        )
        r = self.client.v2.create_payout_batch_csv(csv, label=f"Commissions {self.run}")
        batch, items = r.data["batch"], r.data["items"]
        outcomes = [(i["outcome"], i.get("code")) for i in items]
        expect(outcomes == [("accepted", None), ("accepted", None), ("refused", "invalid")], f"outcomes: {outcomes}")
        expect(batch["accepted"] == {"count": 2, "amount": "2000"}, f"accepted: {batch['accepted']}")
        self.state["batch_csv"] = batch["id"]
        return {
            "id": batch["id"],
            "accepted": batch["accepted"],
            "refused": batch["refused"],
            "why": items[2].get("reason"),
        }

    def payout_batches_completed(self) -> Details:
        def completed_v1() -> Any:
            b = self.client.v1.get_payout_batch(self.state["batch_json"]).data
            return b if b["status"] == "completed" else None

        def completed_v2() -> Any:
            b = self.client.v2.get_payout_batch(self.state["batch_csv"]).data
            return b if b["status"] == "completed" else None

        b1 = eventually(completed_v1, "the JSON batch completes")
        b2 = eventually(completed_v2, "the CSV batch completes")
        expect(b1["successful"]["count"] == 3 and b1["completedAt"] is not None, f"3 paid: {b1['successful']}")
        expect(b2["successful"] == {"count": 2, "amount": "2000"} and b2["completed_at"], f"2 paid: {b2['successful']}")
        transfers = self.client.v1.list_transactions(payout_batch_id=self.state["batch_json"]).data
        expect(len(transfers) == 3 and all(t.get("payoutBatchId") == b1["id"] for t in transfers), "its transfers")
        return {"json": b1["successful"], "csv": b2["successful"], "listed_transfers": len(transfers)}

    def payout_batch_webhook(self) -> Details:
        batch_id = self.state["batch_json"]
        found: dict[str, Any] = {}

        def ours(d: Delivery) -> bool:
            try:
                event = verify_webhook(self.secret, d.headers, d.body)
            except InvalidWebhookError:
                return False
            if is_payout_batch(event) and event["payoutBatchId"] == batch_id:
                found["event"] = event
                return True
            return False

        expect(
            self.deliveries.wait_for(ours) is not None,
            f"the batch's completion webhook arrives ({self.deliveries.count()} deliveries came, not this one)",
        )
        event = found["event"]
        expect(
            event["status"] == "completed" and event["successful"]["count"] == 3, f"its counts: {event['successful']}"
        )
        return {"payoutBatchId": batch_id, "successful": event["successful"]}

    def recipient_check_v1(self) -> Details:
        v1 = self.client.v1
        found = v1.check_recipient("GAMMA_MONEY_CI", "0701020301").data
        expect(found["status"] == "active" and found["name"] == "K. Ya***", f"01 is Koffi Yao, masked: {found}")
        named = v1.check_recipient("GAMMA_MONEY_CI", "0701020301", name="yao koffi").data
        expect(named.get("nameMatch") is True and named["name"] is None, f"the name confirmed, not shown: {named}")
        return {"status": found["status"], "name": found["name"], "nameMatch": named.get("nameMatch")}

    def recipient_check_v2(self) -> Details:
        found = self.client.v2.check_recipient("GAMMA_MONEY", "0701020309").data
        expect(found["status"] == "inactive", f"09 has no account: {found}")
        return {"status": found["status"], "operator": found["operator"]}

    def recipient_checks_listed(self) -> Details:
        v1 = self.client.v1.list_recipient_checks(limit=3).data
        v2 = self.client.v2.list_recipient_checks(limit=1).data
        expect(len(v1) == 3 and v1[0]["status"] == "inactive", f"newest first: {[c['status'] for c in v1]}")
        expect(v2[0]["id"] == v1[0]["id"] and len(v2[0]["phone_hash"]) > 16, "the number kept only as a hash")
        return {"latest": v1[0]["status"], "listed": len(v1)}

    def customer_create(self) -> Details:
        r = self.client.v1.create_customer(
            first_name="Aya",
            last_name=f"Traoré {self.run}",
            email="aya@example.ci",
            phone_number="0701020302",
            address={"countryCode": "CI", "city": "Bouaké", "streetAddress": "Rue 12"},
        )
        customer = r.data
        expect(customer["lastName"] == f"Traoré {self.run}" and customer["address"]["city"] == "Bouaké", "created")
        self.state["customer"] = customer
        return {"id": customer["id"], "phoneNumber": customer["phoneNumber"]}

    def customer_get(self) -> Details:
        customer = self.state["customer"]
        fetched = self.client.v1.get_customer(customer["id"]).data
        expect(fetched == customer, "fetched as created")
        return {"id": fetched["id"]}

    def customer_list(self) -> Details:
        page = self.client.v1.list_customers(limit=5)
        ids = [c["id"] for c in page]
        expect(self.state["customer"]["id"] in ids, "listed among the newest")
        return {"listed": len(ids), "has_more": page.has_more}

    def transactions_list(self) -> Details:
        first = self.client.v1.list_transactions(limit=2, type_="collecte", status="SUCCESSFUL")
        expect(len(first) == 2 and first.has_more, "a first page of 2, with a cursor")
        second = first.next_page()
        expect(second is not None and len(second) >= 1, "a second page")
        assert second is not None
        refs = [t["ref"] for t in first] + [t["ref"] for t in second]
        expect(len(set(refs)) == len(refs), "pages do not overlap")
        expect(all(t["typeTransaction"] == "collecte" for t in [*first, *second]), "filtered")
        mine = [
            t
            for t in self.client.v1.list_transactions(
                from_=dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=10), limit=200
            )
            if t["transactionId"].startswith(f"py{self.run}")
        ]
        expect(len(mine) >= 10, f"this run's transactions are listed: {len(mine)}")
        return {"first_page": len(first), "next_cursor": first.next_cursor, "this_run": len(mine)}

    def balance(self) -> Details:
        b = self.client.v1.balance().data
        expect(b["currency"] == "XOF" and b["available"].isdigit() and b["reserved"].isdigit(), f"a balance: {b}")
        return {"available": b["available"], "reserved": b["reserved"]}

    def statement(self) -> Details:
        page = self.client.v1.statement(limit=20)
        lines = page.data
        expect(bool(lines) and lines[0]["movement"] == "credit", "oldest first: the Sandbox opening credit")
        movements = {line["movement"] for line in lines}
        csv = self.client.v1.statement_csv(limit=5)
        expect(csv.data.startswith("createdAt,id,entryId,account,movement,amount"), f"CSV: {csv.data[:60]!r}")
        return {"lines": len(lines), "movements": sorted(movements), "has_more": page.has_more}

    def settlement_report(self) -> Details:
        today = self.state["c1"]["createdAt"][:10]  # its UTC day, even if midnight passed since
        report = self.client.v1.settlement_report(today).data
        rows = {(r["operator"], r["typeTransaction"], r["status"]) for r in report["rows"]}
        expect(("ALPHA_MONEY_CI", "collecte", "SUCCESSFUL") in rows, "today's ALPHA collections")
        expect(int(report["totals"]["collected"]) >= 1470 + 1960, f"collected, fees out: {report['totals']}")
        csv = self.client.v1.settlement_report_csv(today)
        expect(csv.data.startswith("date,operator,typeTransaction,status"), f"CSV: {csv.data[:40]!r}")
        return {
            "date": report["date"],
            "rows": len(report["rows"]),
            "totals": report["totals"],
            "complete": report["complete"],
        }

    def idempotency(self) -> Details:
        key = str(uuid.uuid4())
        self.state["key"] = key

        def collect(amount: int) -> Any:
            return self.client.v1.collect(
                transaction_id=self.id("idem"),
                operator="DELTA_MONEY_CI",
                payer="0101020301",
                amount=amount,
                customer=self.customer("0101020301"),
                idempotency_key=key,
            )

        self.state["collect_keyed"] = collect
        first, again = collect(1200), collect(1200)
        expect(not first.replayed and again.replayed, "the second answer is marked Idempotent-Replayed: true")
        expect(again.data == first.data and again.status_code == first.status_code, "the same answer")
        return {"ref": first.data["ref"], "first_replayed": first.replayed, "again_replayed": again.replayed}

    def idempotency_reused(self) -> Details:
        try:
            self.state["collect_keyed"](1300)
        except UnprocessableEntityError as e:
            expect(e.status_code == 422 and e.message == "IdempotencyKeyReusedError", f"422: {e.message}")
            return {"status": e.status_code, "message": e.message, "request_id": e.request_id}
        raise CheckFailed("the same key with another body must be 422")

    def not_found(self) -> Details:
        unknown = f"nope-{self.run}"
        try:
            self.client.v2.status(unknown)
        except NotFoundError as e:
            expect(e.status_code == 404 and e.generation == "v2" and e.message == "TRANSACTION_NOT_FOUND", str(e))
            expect(bool(e.request_id), "the error carries the answer's X-Request-Id")
            v2 = e
        else:
            raise CheckFailed("an unknown transaction id must raise NotFoundError")
        try:
            self.client.v1.status(unknown)
        except NotFoundError as e:
            expect(e.generation == "v1" and e.message == "NotFoundError" and bool(e.reason), str(e))
            return {"status": v2.status_code, "v2": v2.message, "v1": e.message, "request_id": v2.request_id}
        raise CheckFailed("an unknown transaction id must raise NotFoundError on v1 too")

    def duplicate(self) -> Details:
        c1 = self.state["c1"]
        try:
            self.client.v1.collect(
                transaction_id=c1["transactionId"],
                operator="ALPHA_MONEY_CI",
                payer="0701020301",
                amount=1500,
                customer=self.customer("0701020301"),
            )
        except ConflictError as e:
            expect(e.status_code == 409 and e.data["ref"] == c1["ref"], "409 with the existing transaction")
            return {"status": e.status_code, "message": e.message, "existing_ref": e.data["ref"]}
        raise CheckFailed("a used transaction id must raise ConflictError")

    def webhook_events_listed(self) -> Details:
        c1 = self.state["c1"]

        def delivered() -> Any:
            events = self.client.v1.list_webhook_events(transaction_id=c1["transactionId"]).data
            return events if events and events[0]["status"] == "delivered" else None

        events = eventually(delivered, "the event is listed as delivered")
        event = events[0]
        expect(len(events) == 1 and event["id"] == self.state["delivery"].headers["webhook-id"], "its webhook-id")
        expect(event["payload"]["ref"] == c1["ref"] and event["transactionStatus"] == "SUCCESSFUL", "its payload")
        listed = self.client.v1.list_webhook_events(status="delivered", limit=2)
        expect(len(listed) == 2 and all(e["status"] == "delivered" for e in listed), "filtered by status")
        self.state["event"] = event
        return {"id": event["id"], "status": event["status"], "attempts": event["attempts"]}

    def webhook_event_fetched(self) -> Details:
        event = self.client.v1.get_webhook_event(self.state["event"]["id"]).data
        attempts = event.get("deliveryAttempts", [])
        expect(bool(attempts) and attempts[0]["statusCode"] == 204, f"its attempts: {attempts}")
        return {"id": event["id"], "attempts": len(attempts), "first_status": attempts[0]["statusCode"]}

    def webhook_redelivered(self) -> Details:
        event_id = self.state["event"]["id"]
        before = len(self._deliveries_of(event_id))
        r = self.client.v1.redeliver_webhook_event(event_id, idempotency_key=str(uuid.uuid4()))
        expect(r.status_code == 202 and r.data["id"] == event_id, "scheduled (202)")

        def again() -> list[Delivery] | None:
            seen = self._deliveries_of(event_id)
            return seen if len(seen) > before else None

        seen = eventually(again, "the event arrives again, with the same webhook-id")
        event = verify_webhook(self.secret, seen[-1].headers, seen[-1].body)
        expect(event.get("ref") == self.state["c1"]["ref"], "the same event, verified")
        return {"id": event_id, "deliveries": len(seen)}

    def _deliveries_of(self, event_id: str) -> list[Delivery]:
        return self.deliveries.matching(lambda d: d.headers.get("webhook-id") == event_id)

    def webhook_range_redelivered(self) -> Details:
        now = dt.datetime.now(dt.timezone.utc)
        r = self.client.v1.redeliver_webhook_events(from_=now - dt.timedelta(hours=1), to=now)
        count = r.data["redelivered"]
        expect(r.status_code == 202 and isinstance(count, int) and count >= 0, f"how many: {count}")
        return {"redelivered": count}


def main() -> int:
    missing = [
        v for v in ("MOMO_BASE_URL", "MOMO_API_KEY", "MOMO_API_SECRET", "MOMO_WEBHOOK_PORT") if not os.environ.get(v)
    ]
    if missing:
        print(f"flow.py: set {', '.join(missing)}", file=sys.stderr)
        return 2
    deliveries = Deliveries()
    try:
        server = listen(int(os.environ["MOMO_WEBHOOK_PORT"]), deliveries)
    except (OSError, ValueError) as e:
        emit({"check": "webhook_listener", "ok": False, "error": f"127.0.0.1:{os.environ['MOMO_WEBHOOK_PORT']}: {e}"})
        return 1
    try:
        client = MomoClient(
            os.environ["MOMO_BASE_URL"],
            os.environ["MOMO_API_KEY"],
            os.environ["MOMO_API_SECRET"],
            environment="Production" if os.environ.get("MOMO_ENVIRONMENT") == "Production" else "Sandbox",
        )
        with client:
            flow = Flow(client, deliveries)
            flow.all()
            emit({"done": True, "checks": flow.checks})
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
