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

The checks live in the package flow_parts beside this file, by area (its __init__ lists them);
this file runs them in order.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

try:
    import momo_gateway_client  # noqa: F401 (importable, or found beside us)
except ImportError:  # run from a checkout without installing: the package's source beside us
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import momo_gateway_client  # noqa: F401 (importable, or found beside us)

# flow_parts sits beside this file. Python puts a script's folder first on sys.path, but not
# under -P or PYTHONSAFEPATH, nor when this file is imported: make sure it is there.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from flow_parts.customers_reports import CustomersReports
from flow_parts.harness import emit
from flow_parts.links_batches import LinksBatches
from flow_parts.listener import Deliveries, listen
from flow_parts.payments import Payments
from flow_parts.webhooks import Webhooks

from momo_gateway_client import MomoClient


class Flow(Payments, LinksBatches, CustomersReports, Webhooks):
    """Every check; all() runs them in order."""

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
