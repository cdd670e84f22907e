"""The `/v1` paths: camelCase bodies, answers in the v1 envelope (`statusCode`, `message`,
`data`), errors as `{statusCode, message: "NotFoundError", reason}`. Reached as `client.v1`.

Keyword arguments are the wire's field names in snake_case (`transaction_id` is sent as
`transactionId`); `extra` adds fields this library does not name. Every write takes an
`idempotency_key`, sent as `Idempotency-Key`: a retry with the same key and the same arguments
gets the first answer again (`result.replayed`), and runs nothing (docs/idempotency.md).
Resources that only v1 has (customers, the transaction list, the balance, the reports and the
webhooks) are here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from . import payout_csv
from ._base import Api, Day, Moment, amount_text, compact, day, moment, segment, with_extra
from .results import Page, Result
from .schema import (
    AccountHolderLookupsV1DataItem,
    AccountHolderV1Data,
    AddressIn,
    BatchV1,
    Customer,
    EmbeddedCustomer,
    LinkV1,
    StatementLine,
    TransactionV1,
    TransactionV2,
    TransferV1,
    V1BalanceData,
    V1BatchCreatedData,
    V1RedeliveredData,
    V1SettlementData,
    V1WebhookSecretRotatedData,
    WebhookEvent,
)

TransactionStatus = Literal["PENDING", "SUCCESSFUL", "FAILED"]
TransactionType = Literal["collecte", "transfer", "transfert", "refund"]
DeliveryStatus = Literal["pending", "delivered", "failed"]


class V1(Api):
    # --- payments --------------------------------------------------------------------------

    def collect(
        self,
        *,
        transaction_id: str,
        operator: str,
        payer: str,
        amount: int | str,
        customer: EmbeddedCustomer,
        otp_code: str | None = None,
        url_success: str | None = None,
        url_error: str | None = None,
        currency: str = "XOF",
        idempotency_key: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Result[TransactionV1]:
        """Debit `payer` (`POST /v1/collecte/mobile-money`): 200 SUCCESSFUL or 202 PENDING (a BETA
        collection's page is `data["betaLaunchUrl"]`); a payment the operator refused at once is
        `GatewayTimeoutError` with the FAILED transaction in `data`."""
        body = compact(
            {
                "transactionId": transaction_id,
                "customer": customer,
                "payer": payer,
                "currency": currency,
                "amount": amount_text(amount),
                "operator": operator,
                "otpCode": otp_code,
                "urlSuccess": url_success,
                "errorUrl": url_error,
            }
        )
        return self._call(
            "POST", "/v1/collecte/mobile-money", body=with_extra(body, extra), idempotency_key=idempotency_key
        )

    def transfer(
        self,
        *,
        transaction_id: str,
        operator: str,
        recipient: str,
        amount: int | str,
        customer: EmbeddedCustomer,
        check_recipient: bool | None = None,
        currency: str = "XOF",
        idempotency_key: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Result[TransactionV1]:
        """Pay `recipient` (`POST /v1/transfer/mobile-money`) from the available balance
        (`PreconditionFailedError` when short). `check_recipient=True` asks the operator first
        and refuses an inactive account (`UnprocessableEntityError`), nothing recorded."""
        body = compact(
            {
                "transactionId": transaction_id,
                "customer": customer,
                "recipient": recipient,
                "currency": currency,
                "amount": amount_text(amount),
                "operator": operator,
                "checkRecipient": check_recipient,
            }
        )
        return self._call(
            "POST", "/v1/transfer/mobile-money", body=with_extra(body, extra), idempotency_key=idempotency_key
        )

    def refund(
        self,
        *,
        transaction_id: str,
        collection: str,
        amount: int | str | None = None,
        reason: str | None = None,
        idempotency_key: str | None = None,
    ) -> Result[TransactionV1]:
        """Give back part (`amount`) or all of a SUCCESSFUL collection, named by its transaction
        id or ref (`POST /v1/refunds`); `transaction_id` is the refund's own id."""
        body = compact(
            {
                "transactionId": transaction_id,
                "collection": collection,
                "amount": None if amount is None else amount_text(amount),
                "reason": reason,
            }
        )
        return self._call("POST", "/v1/refunds", body=body, idempotency_key=idempotency_key)

    def status(self, transaction_id: str) -> Result[TransactionV2]:
        """A transaction by its id or ref (`GET /v1/get-status-payment/{id}`). The success is in
        the v2 shape whatever the path (as the reference); a 404 is v1's `NotFoundError`."""
        return self._call("GET", f"/v1/get-status-payment/{segment(transaction_id)}")

    def list_transactions(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        status: TransactionStatus | None = None,
        type_: TransactionType | None = None,
        operator: str | None = None,
        phone: str | None = None,
        refund_of: str | None = None,
        link_payment_id: str | None = None,
        payout_batch_id: str | None = None,
        from_: Moment | None = None,
        to: Moment | None = None,
    ) -> Page[TransactionV1]:
        """Transactions, newest first, filtered (`GET /v1/transactions`): created in
        [`from_`, `to`), of a `type_` (`refund`...), a collection's refunds (`refund_of` its
        ref), a link's payments, a batch's transfers."""
        params = {
            "limit": limit,
            "cursor": cursor,
            "status": status,
            "type": type_,
            "operator": operator,
            "phone": phone,
            "refundOf": refund_of,
            "linkPaymentId": link_payment_id,
            "payoutBatchId": payout_batch_id,
            "from": moment(from_),
            "to": moment(to),
        }
        return self._page("/v1/transactions", params)

    def balance(self) -> Result[V1BalanceData]:
        """`available` and `reserved` (transfers and refunds still pending), `GET /v1/balance`."""
        return self._call("GET", "/v1/balance")

    # --- customers (v1 only) -----------------------------------------------------------------

    def create_customer(
        self,
        *,
        first_name: str,
        last_name: str,
        email: str,
        phone_number: str,
        address: AddressIn | None = None,
        idempotency_key: str | None = None,
    ) -> Result[Customer]:
        """`POST /v1/customer`; the address defaults to `{"countryCode": "CI"}`."""
        body = {
            "firstName": first_name,
            "lastName": last_name,
            "email": email,
            "phoneNumber": phone_number,
            "address": address if address is not None else {"countryCode": "CI"},
        }
        return self._call("POST", "/v1/customer", body=body, idempotency_key=idempotency_key)

    def get_customer(self, customer_id: str) -> Result[Customer]:
        return self._call("GET", f"/v1/customer/{segment(customer_id)}")

    def list_customers(self, *, limit: int | None = None, cursor: str | None = None) -> Page[Customer]:
        """Customers, newest first (`GET /v1/customers`)."""
        return self._page("/v1/customers", {"limit": limit, "cursor": cursor})

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
    ) -> Result[LinkV1]:
        """A page where payers pay (`POST /v1/payment-links`): a fixed `amount` or bounds, paid
        once unless `reusable`; its `url` is what the merchant shares."""
        body = compact(
            {
                "amount": None if amount is None else amount_text(amount),
                "minAmount": None if min_amount is None else amount_text(min_amount),
                "maxAmount": None if max_amount is None else amount_text(max_amount),
                "description": description,
                "reusable": reusable,
                "maxPayments": max_payments,
                "expiresAt": moment(expires_at),
                "operators": None if operators is None else list(operators),
                "successUrl": success_url,
                "errorUrl": error_url,
            }
        )
        return self._call("POST", "/v1/payment-links", body=body, idempotency_key=idempotency_key)

    def get_payment_link(self, link_id: str) -> Result[LinkV1]:
        return self._call("GET", f"/v1/payment-links/{segment(link_id)}")

    def list_payment_links(self, *, limit: int | None = None, cursor: str | None = None) -> Page[LinkV1]:
        return self._page("/v1/payment-links", {"limit": limit, "cursor": cursor})

    def deactivate_payment_link(self, link_id: str, *, idempotency_key: str | None = None) -> Result[LinkV1]:
        """Stop the link taking payments, at once; payments already started go on."""
        return self._call("POST", f"/v1/payment-links/{segment(link_id)}/deactivate", idempotency_key=idempotency_key)

    # --- payouts -----------------------------------------------------------------------------

    def create_payout_batch(
        self,
        items: Sequence[TransferV1],
        *,
        label: str | None = None,
        all_or_nothing: bool | None = None,
        idempotency_key: str | None = None,
    ) -> Result[V1BatchCreatedData]:
        """Up to 5,000 transfers, each the body of `POST /v1/transfer/mobile-money`
        (`POST /v1/payout-batches`, 202): `data["batch"]` and each item's outcome in
        `data["items"]`, in the request's order."""
        body = compact({"items": list(items), "label": label, "allOrNothing": all_or_nothing})
        return self._call("POST", "/v1/payout-batches", body=body, idempotency_key=idempotency_key)

    def create_payout_batch_csv(
        self,
        csv: str | bytes,
        *,
        label: str | None = None,
        all_or_nothing: bool | None = None,
        idempotency_key: str | None = None,
    ) -> Result[V1BatchCreatedData]:
        """A batch from the payroll CSV of docs/payouts.md, read here and sent as JSON items
        (the API takes no CSV); a bad header raises `PayoutCsvError` before anything is sent."""
        return self.create_payout_batch(
            payout_csv.items_v1(csv), label=label, all_or_nothing=all_or_nothing, idempotency_key=idempotency_key
        )

    def get_payout_batch(self, batch_id: str) -> Result[BatchV1]:
        """A batch with its counts and amounts by state; `status` is `completed` once every
        accepted transfer is final. Its transfers: `list_transactions(payout_batch_id=...)`."""
        return self._call("GET", f"/v1/payout-batches/{segment(batch_id)}")

    def list_payout_batches(self, *, limit: int | None = None, cursor: str | None = None) -> Page[BatchV1]:
        return self._page("/v1/payout-batches", {"limit": limit, "cursor": cursor})

    def check_recipient(self, operator: str, phone: str, *, name: str | None = None) -> Result[AccountHolderV1Data]:
        """Whether `phone` holds an active account with `operator`, and its holder's name
        masked; with `name`, only whether it is the holder's (`nameMatch`). Sends nothing."""
        path = f"/v1/account-holders/{segment(operator)}/{segment(phone)}"
        return self._call("GET", path, params={"name": name})

    def list_recipient_checks(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> Page[AccountHolderLookupsV1DataItem]:
        """The checks made, newest first, each number as a keyed hash."""
        return self._page("/v1/account-holders/lookups", {"limit": limit, "cursor": cursor})

    # --- reports (v1 only) -------------------------------------------------------------------

    def statement(
        self,
        *,
        from_: Moment | None = None,
        to: Moment | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[StatementLine]:
        """The postings of the balance with running balances, oldest first
        (`GET /v1/ledger/entries`). Lines of the last 60 s may still be joined by earlier ones, so
        following cursors may read them again (their `id` tells them apart): a reconciliation
        uses a `to` at least 60 s in the past."""
        return self._page(
            "/v1/ledger/entries", {"from": moment(from_), "to": moment(to), "limit": limit, "cursor": cursor}
        )

    def statement_csv(
        self,
        *,
        from_: Moment | None = None,
        to: Moment | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Result[str]:
        """The same as `statement`, as CSV text; the next page's cursor is `next_cursor`."""
        return self._csv(
            "/v1/ledger/entries", {"from": moment(from_), "to": moment(to), "limit": limit, "cursor": cursor}
        )

    def settlement_report(self, date: Day) -> Result[V1SettlementData]:
        """One UTC day's counts and sums per operator, direction and status
        (`GET /v1/reports/settlement`); final once `complete`."""
        return self._call("GET", "/v1/reports/settlement", params={"date": day(date)})

    def settlement_report_csv(self, date: Day) -> Result[str]:
        return self._csv("/v1/reports/settlement", {"date": day(date)})

    # --- webhooks (v1 only) ------------------------------------------------------------------

    def list_webhook_events(
        self,
        *,
        status: DeliveryStatus | None = None,
        transaction_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[WebhookEvent]:
        """Events, newest first (`GET /v1/webhooks/events`)."""
        params = {"status": status, "transactionId": transaction_id, "limit": limit, "cursor": cursor}
        return self._page("/v1/webhooks/events", params)

    def get_webhook_event(self, event_id: str) -> Result[WebhookEvent]:
        """One event with its payload and every delivery attempt (`deliveryAttempts`)."""
        return self._call("GET", f"/v1/webhooks/events/{segment(event_id)}")

    def redeliver_webhook_event(self, event_id: str, *, idempotency_key: str | None = None) -> Result[WebhookEvent]:
        """Send an event again now, same `webhook-id`, fresh schedule (202)."""
        path = f"/v1/webhooks/events/{segment(event_id)}/redeliver"
        return self._call("POST", path, idempotency_key=idempotency_key)

    def redeliver_webhook_events(
        self, *, from_: Moment, to: Moment, idempotency_key: str | None = None
    ) -> Result[V1RedeliveredData]:
        """Send again every failed event created in [`from_`, `to`); `data["redelivered"]` says
        how many."""
        params = {"from": moment(from_), "to": moment(to)}
        return self._call("POST", "/v1/webhooks/redeliver", params=params, idempotency_key=idempotency_key)

    def rotate_webhook_secret(self, *, idempotency_key: str | None = None) -> Result[V1WebhookSecretRotatedData]:
        """A new signing secret for this environment, shown only in this answer
        (`data["webhookSecret"]`): store it. Until `previousSecretValidUntil` deliveries carry
        both secrets' signatures. Send a key: a retry after a lost answer gets the same secret."""
        return self._call("POST", "/v1/webhooks/secret/rotate", idempotency_key=idempotency_key)
