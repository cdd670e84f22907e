"""Payment links and payout batches (JSON and CSV, both generations, the completion webhook)."""

from __future__ import annotations

from typing import Any

from momo_gateway_client import InvalidWebhookError, is_payout_batch, verify_webhook
from momo_gateway_client.schema import OperatorIn, TransferV1

from .harness import Details, FlowBase, eventually, expect
from .listener import Delivery


class LinksBatches(FlowBase):
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
