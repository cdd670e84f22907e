"""Payments: the token, collections and their status, transfers, refunds, idempotency, typed errors."""

from __future__ import annotations

import time
import uuid
from typing import Any

from momo_gateway_client import ConflictError, NotFoundError, UnprocessableEntityError, is_successful

from .harness import CheckFailed, Details, FlowBase, eventually, expect


class Payments(FlowBase):
    """Sets state["c1"] and state["c2"], the v1 and the v2 collection that later checks use."""

    def token(self) -> Details:
        token = self.client.authenticate()
        lifetime = token["exp"] - time.time()
        expect(token["token"].count(".") == 2, "the token is a JWT")
        expect(0 < lifetime <= 700, f"the token lasts about 600 s, not {lifetime:.0f}")
        expect(self.client.token() == token["token"], "the client keeps the token it took")
        return {"lifetime_s": round(lifetime), "environment": self.client.environment}

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
