"""The `/v2` paths: snake_case bodies, answers in the v2 envelope (`code_status`, `status`,
`message`, `data`), errors as `{code_status, status: "ERROR", message: "TRANSACTION_NOT_FOUND",
reason}`. Reached as `client.v2`.

Keyword arguments are the wire's field names (shape A of the v2 collection: `customer_id` is the
payer's number). A successful v2 collection says `SUCCESSFULL`, as the reference spells it
(`is_successful` accepts both spellings). Customers, lists, the balance, reports and webhooks
exist in v1 only: `client.v1`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import payout_csv
from ._base import Api, Moment, compact, moment, segment, with_extra
from .results import Page, Result
from .schema import (
    AccountHolderLookupsV2DataItem,
    AccountHolderV2Data,
    BatchV2,
    LinkV2,
    TransactionV2,
    TransferV2,
    V2BatchCreatedData,
)


class V2(Api):
    # --- payments --------------------------------------------------------------------------

    def collect(
        self,
        *,
        transaction_id: str,
        operator: str,
        customer_id: str | int,
        amount: int | str,
        name_user: str | None = None,
        email_user: str | None = None,
        code_otp: str | None = None,
        url_success: str | None = None,
        url_error: str | None = None,
        code_country: str = "CI",
        currency: str = "XOF",
        idempotency_key: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Result[TransactionV2]:
        """Debit `customer_id`, the payer's number (`POST /v2/collecte/mobile-money`, shape A;
        `transaction_id` at most 20 characters): 200 `SUCCESSFULL` or 202 `PENDING` (a BETA
        collection's page is `data["redirectUrl"]`)."""
        body = compact(
            {
                "code_country": code_country,
                "operator": operator,
                "currency": currency,
                "customer_id": customer_id,
                "name_user": name_user,
                "amount": amount,
                "transaction_id": transaction_id,
                "email_user": email_user,
                "code_otp": code_otp,
                "url_success": url_success,
                "url_error": url_error,
            }
        )
        return self._call(
            "POST", "/v2/collecte/mobile-money", body=with_extra(body, extra), idempotency_key=idempotency_key
        )

    def transfer(
        self,
        *,
        transaction_id: str,
        operator: str,
        customer_id: str | int,
        amount: int | str,
        name: str,
        email: str | None = None,
        check_recipient: bool | None = None,
        code_country: str = "CI",
        currency: str = "XOF",
        idempotency_key: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Result[TransactionV2]:
        """Pay `customer_id`, the beneficiary's number, named `name` (`POST /v2/transfers/mobile-money`)."""
        body = compact(
            {
                "code_country": code_country,
                "currency": currency,
                "customer_id": customer_id,
                "name": name,
                "amount": amount,
                "operator": operator,
                "transaction_id": transaction_id,
                "email": email,
                "check_recipient": check_recipient,
            }
        )
        return self._call(
            "POST", "/v2/transfers/mobile-money", body=with_extra(body, extra), idempotency_key=idempotency_key
        )

    def refund(
        self,
        *,
        transaction_id: str,
        collection_id: str,
        amount: int | str | None = None,
        reason: str | None = None,
        idempotency_key: str | None = None,
    ) -> Result[TransactionV2]:
        """Give back part (`amount`) or all of a SUCCESSFUL collection, named by its
        transaction id or ref (`POST /v2/refunds`)."""
        body = compact(
            {"transaction_id": transaction_id, "collection_id": collection_id, "amount": amount, "reason": reason}
        )
        return self._call("POST", "/v2/refunds", body=body, idempotency_key=idempotency_key)

    def status(self, transaction_id: str) -> Result[TransactionV2]:
        """A transaction by its id or ref (`GET /v2/get-status-payment/{id}`); a 404 is
        `NotFoundError` with message `TRANSACTION_NOT_FOUND`."""
        return self._call("GET", f"/v2/get-status-payment/{segment(transaction_id)}")

    # --- payment links -----------------------------------------------------------------------

    def create_payment_link(
        self,
        *,
        description: str,
        amount: int | str | None = None,
        min_amount: int | str | None = None,
        max_amount: int | str | None = None,
        reusable: bool | None = None,
        max_payments: int | None = None,
        expires_at: Moment | None = None,
        operators: Sequence[str] | None = None,
        success_url: str | None = None,
        error_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Result[LinkV2]:
        """As `client.v1.create_payment_link`, in v2's shape (`POST /v2/payment-links`)."""
        body = compact(
            {
                "amount": amount,
                "min_amount": min_amount,
                "max_amount": max_amount,
                "description": description,
                "reusable": reusable,
                "max_payments": max_payments,
                "expires_at": moment(expires_at),
                "operators": None if operators is None else list(operators),
                "success_url": success_url,
                "error_url": error_url,
            }
        )
        return self._call("POST", "/v2/payment-links", body=body, idempotency_key=idempotency_key)

    def get_payment_link(self, link_id: str) -> Result[LinkV2]:
        return self._call("GET", f"/v2/payment-links/{segment(link_id)}")

    def list_payment_links(self, *, limit: int | None = None, cursor: str | None = None) -> Page[LinkV2]:
        return self._page("/v2/payment-links", {"limit": limit, "cursor": cursor})

    def deactivate_payment_link(self, link_id: str, *, idempotency_key: str | None = None) -> Result[LinkV2]:
        return self._call("POST", f"/v2/payment-links/{segment(link_id)}/deactivate", idempotency_key=idempotency_key)

    # --- payouts -----------------------------------------------------------------------------

    def create_payout_batch(
        self,
        items: Sequence[TransferV2],
        *,
        label: str | None = None,
        all_or_nothing: bool | None = None,
        idempotency_key: str | None = None,
    ) -> Result[V2BatchCreatedData]:
        """Up to 5,000 transfers, each the body of `POST /v2/transfers/mobile-money`
        (`POST /v2/payout-batches`, 202)."""
        body = compact({"items": list(items), "label": label, "all_or_nothing": all_or_nothing})
        return self._call("POST", "/v2/payout-batches", body=body, idempotency_key=idempotency_key)

    def create_payout_batch_csv(
        self,
        csv: str | bytes,
        *,
        label: str | None = None,
        all_or_nothing: bool | None = None,
        idempotency_key: str | None = None,
    ) -> Result[V2BatchCreatedData]:
        """A batch from the payroll CSV of docs/payouts.md, read here and sent as v2 JSON items."""
        return self.create_payout_batch(
            payout_csv.items_v2(csv), label=label, all_or_nothing=all_or_nothing, idempotency_key=idempotency_key
        )

    def get_payout_batch(self, batch_id: str) -> Result[BatchV2]:
        return self._call("GET", f"/v2/payout-batches/{segment(batch_id)}")

    def list_payout_batches(self, *, limit: int | None = None, cursor: str | None = None) -> Page[BatchV2]:
        return self._page("/v2/payout-batches", {"limit": limit, "cursor": cursor})

    def check_recipient(
        self, operator: str, phone: str, *, name_user: str | None = None
    ) -> Result[AccountHolderV2Data]:
        """As `client.v1.check_recipient`, in v2's shape (`name_user`, `name_match`)."""
        path = f"/v2/account-holders/{segment(operator)}/{segment(phone)}"
        return self._call("GET", path, params={"name_user": name_user})

    def list_recipient_checks(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> Page[AccountHolderLookupsV2DataItem]:
        return self._page("/v2/account-holders/lookups", {"limit": limit, "cursor": cursor})


def is_successful(transaction: TransactionV2) -> bool:
    """SUCCESSFUL, in either spelling (a v2 collection's answer says `SUCCESSFULL`)."""
    return transaction["status"] in ("SUCCESSFUL", "SUCCESSFULL")
