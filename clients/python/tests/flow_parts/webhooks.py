"""Webhooks: the signing secret's rotation, a delivery verified, the events' log, redelivery."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from momo_gateway_client import InvalidWebhookError, verify_webhook
from momo_gateway_client.schema import WebhookTransaction

from .harness import CheckFailed, Details, FlowBase, eventually, expect
from .listener import WAIT_S, Delivery


class Webhooks(FlowBase):
    """Sets self.secret (the rotated one), state["delivery"] and state["event"]."""

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
