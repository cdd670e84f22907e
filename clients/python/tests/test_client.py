"""Unit tests of momo_gateway_client against a scripted gateway (httpx.MockTransport): tokens,
headers, errors, paging, the payout CSV and webhook verification. No server needed:

    python -m pytest clients/python/tests          # or: python -m unittest discover clients/python/tests
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import sys
import time
import unittest
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
from standardwebhooks import Webhook

try:
    import momo_gateway_client
except ImportError:  # from a checkout, not installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import momo_gateway_client

from momo_gateway_client import (
    AuthenticationError,
    GatewayTimeoutError,
    InvalidResponseError,
    InvalidWebhookError,
    MomoClient,
    MomoTransportError,
    NotFoundError,
    PayoutCsvError,
    RateLimitError,
    ServerError,
    is_payout_batch,
    is_transaction,
    payout_csv,
    verify_webhook,
)
from momo_gateway_client._base import moment

KEY, SECRET = "pk_sandbox_key", "sk_sandbox_secret"
Handler = Callable[[httpx.Request], httpx.Response]


def ok(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json={"statusCode": status, "message": "Successful", "data": data}, headers=headers)


class Gateway:
    """A scripted gateway: tokens at /v1/auth, and `routes` for the rest."""

    def __init__(self, routes: Handler, token_lifetime: int = 600) -> None:
        self.routes = routes
        self.token_lifetime = token_lifetime
        self.tokens = 0
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/v1/auth":
            expected = "Basic " + base64.b64encode(f"{KEY}:{SECRET}".encode()).decode()
            assert request.headers["Authorization"] == expected
            assert request.headers["X-Environment"] == "Sandbox"
            self.tokens += 1
            exp = int(time.time()) + self.token_lifetime
            return ok({"token": f"tok{self.tokens}", "exp": exp})
        return self.routes(request)

    def client(self, **kwargs: Any) -> MomoClient:
        http = httpx.Client(transport=httpx.MockTransport(self))
        return MomoClient("http://gw.test/", KEY, SECRET, http_client=http, **kwargs)


class Tokens(unittest.TestCase):
    def test_a_token_is_taken_once_and_sent_as_bearer(self) -> None:
        gw = Gateway(lambda r: ok({"currency": "XOF", "amount": "5", "available": "5", "reserved": "0"}))
        client = gw.client()
        client.v1.balance()
        client.v1.balance()
        self.assertEqual(gw.tokens, 1)
        calls = [r for r in gw.requests if r.url.path == "/v1/balance"]
        self.assertEqual([r.headers["Authorization"] for r in calls], ["Bearer tok1", "Bearer tok1"])
        self.assertEqual(calls[0].headers["X-Environment"], "Sandbox")

    def test_the_token_is_refreshed_before_it_expires(self) -> None:
        gw = Gateway(lambda r: ok([]))
        client = gw.client(refresh_margin=60)
        clock = [1000.0]
        with mock.patch("momo_gateway_client.session.time.monotonic", lambda: clock[0]):
            client.v1.list_customers()
            clock[0] += 600 - 61  # 61 s left: kept
            client.v1.list_customers()
            self.assertEqual(gw.tokens, 1)
            clock[0] += 2  # 59 s left: within the margin
            client.v1.list_customers()
        self.assertEqual(gw.tokens, 2)

    def test_a_401_takes_a_new_token_and_retries_once(self) -> None:
        def routes(r: httpx.Request) -> httpx.Response:
            if r.headers["Authorization"] == "Bearer tok1":
                return httpx.Response(
                    401, json={"statusCode": 401, "message": "UnauthorizedError", "reason": "revoked"}
                )
            return ok([])

        gw = Gateway(routes)
        page = gw.client().v1.list_customers()
        self.assertEqual((gw.tokens, page.data), (2, []))

    def test_a_second_401_is_raised(self) -> None:
        v2_401 = {"code_status": 401, "status": "ERROR", "message": "TOKEN_EXPIRED", "reason": "no"}
        gw = Gateway(lambda r: httpx.Response(401, json=v2_401, headers={"X-Request-Id": "rid"}))
        with self.assertRaises(AuthenticationError) as caught:
            gw.client().v2.status("x")
        self.assertEqual(
            (caught.exception.message, caught.exception.request_id, gw.tokens), ("TOKEN_EXPIRED", "rid", 2)
        )

    def test_wrong_credentials_are_an_authentication_error(self) -> None:
        def handler(r: httpx.Request) -> httpx.Response:
            return httpx.Response(401, json={"statusCode": 401, "message": "UnauthorizedError", "reason": "wrong"})

        http = httpx.Client(transport=httpx.MockTransport(handler))
        with self.assertRaises(AuthenticationError):
            MomoClient("http://gw.test", KEY, SECRET, http_client=http).token()

    def test_the_environment_comes_from_the_key(self) -> None:
        self.assertEqual(MomoClient("http://x", "pk_live_abc", "s").environment, "Production")
        self.assertEqual(MomoClient("http://x", "pk_sandbox_abc", "s").environment, "Sandbox")
        self.assertEqual(MomoClient("http://x", "key", "s", environment="Production").environment, "Production")
        with self.assertRaises(ValueError):
            MomoClient("http://x", "key", "s")


class Requests(unittest.TestCase):
    def test_a_write_sends_its_idempotency_key_and_compact_json(self) -> None:
        tx = {"ref": "ABCDEFGHIJ", "status": "SUCCESSFUL"}
        gw = Gateway(lambda r: ok(tx, headers={"Idempotent-Replayed": "true", "X-Request-Id": "r1"}))
        result = gw.client().v1.collect(
            transaction_id="o-1",
            operator="ALPHA_MONEY_CI",
            payer="0701020301",
            amount=1500,
            customer={"firstName": "A", "lastName": "K", "phone": "0701020301", "address": {"countryCode": "CI"}},
            idempotency_key="k-1",
        )
        sent = gw.requests[-1]
        self.assertEqual(sent.headers["Idempotency-Key"], "k-1")
        self.assertEqual(sent.headers["Content-Type"], "application/json")
        body = json.loads(sent.content)
        self.assertEqual(body["amount"], "1500")
        self.assertNotIn("otpCode", body)
        self.assertNotIn(b" ", sent.content)
        self.assertTrue(result.replayed)
        self.assertEqual((result.data, result.request_id, result.message), (tx, "r1", "Successful"))

    def test_v2_bodies_are_snake_case(self) -> None:
        gw = Gateway(lambda r: ok({}))
        gw.client().v2.collect(transaction_id="o-2", operator="GAMMA_MONEY_CI", customer_id="0501020301", amount=2000)
        self.assertEqual(
            json.loads(gw.requests[-1].content),
            {
                "code_country": "CI",
                "operator": "GAMMA_MONEY_CI",
                "currency": "XOF",
                "customer_id": "0501020301",
                "amount": 2000,
                "transaction_id": "o-2",
            },
        )

    def test_ids_stay_one_path_segment_and_queries_drop_what_is_left_out(self) -> None:
        gw = Gateway(lambda r: ok([]))
        client = gw.client()
        client.v1.list_transactions(status="SUCCESSFUL", from_=dt.datetime(2026, 11, 20, tzinfo=dt.timezone.utc))
        self.assertEqual(str(gw.requests[-1].url.query, "ascii"), "status=SUCCESSFUL&from=2026-11-20T00%3A00%3A00.000Z")
        gw.routes = lambda r: ok({})
        client.v1.get_customer("a/b?c")
        self.assertEqual(gw.requests[-1].url.raw_path, b"/v1/customer/a%2Fb%3Fc")

    def test_moments_are_rfc3339_utc(self) -> None:
        self.assertEqual(moment(dt.datetime(2026, 1, 2, 3, 4, 5)), "2026-01-02T03:04:05.000Z")
        plus_one = dt.timezone(dt.timedelta(hours=1))
        self.assertEqual(moment(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=plus_one)), "2026-01-02T02:04:05.000Z")


class Errors(unittest.TestCase):
    def raised(self, response: httpx.Response, call: Callable[[MomoClient], object]) -> Any:
        gw = Gateway(lambda r: response)
        with self.assertRaises(momo_gateway_client.MomoApiError) as caught:
            call(gw.client())
        return caught.exception

    def test_a_v1_404_is_not_found_with_its_envelope(self) -> None:
        envelope = {"statusCode": 404, "message": "NotFoundError", "reason": "no transaction has this id or ref"}
        e = self.raised(httpx.Response(404, json=envelope, headers={"X-Request-Id": "abc"}), lambda c: c.v1.status("x"))
        self.assertIsInstance(e, NotFoundError)
        self.assertEqual((e.status_code, e.generation, e.message, e.request_id), (404, "v1", "NotFoundError", "abc"))
        self.assertEqual(e.envelope, envelope)

    def test_a_504_carries_the_failed_transaction(self) -> None:
        envelope = {
            "code_status": 504,
            "status": "ERROR",
            "message": "PAYMENT_FAILED_TRY_AGAINST",
            "reason": "refused",
            "data": {"ref": "R", "status": "FAILED"},
        }
        e = self.raised(
            httpx.Response(504, json=envelope),
            lambda c: c.v2.transfer(
                transaction_id="t", operator="GAMMA_MONEY_CI", customer_id="0701020304", amount=100, name="N"
            ),
        )
        self.assertIsInstance(e, GatewayTimeoutError)
        self.assertIsInstance(e, ServerError)
        self.assertEqual((e.generation, e.data["status"]), ("v2", "FAILED"))

    def test_a_429_says_how_long_to_wait(self) -> None:
        envelope = {"statusCode": 429, "message": "TooManyRequestsError", "reason": "slow down"}
        e = self.raised(httpx.Response(429, json=envelope, headers={"Retry-After": "3"}), lambda c: c.v1.balance())
        self.assertIsInstance(e, RateLimitError)
        self.assertEqual(e.retry_after, 3)

    def test_an_answer_without_json_raises(self) -> None:
        e = self.raised(httpx.Response(502, text="<html>Bad gateway</html>"), lambda c: c.v1.balance())
        self.assertIsInstance(e, InvalidResponseError)
        self.assertEqual((e.status_code, e.envelope), (502, None))
        e = self.raised(httpx.Response(200, text="not json"), lambda c: c.v1.balance())
        self.assertIsInstance(e, InvalidResponseError)
        e = self.raised(httpx.Response(200, json=[1, 2]), lambda c: c.v1.balance())
        self.assertIsInstance(e, InvalidResponseError)

    def test_no_answer_is_a_transport_error_with_the_request_id_sent(self) -> None:
        def down(r: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("refused", request=r)

        http = httpx.Client(transport=httpx.MockTransport(down))
        with self.assertRaises(MomoTransportError) as caught:
            MomoClient("http://gw.test", KEY, SECRET, http_client=http).token()
        self.assertEqual(len(caught.exception.request_id or ""), 32)


class Paging(unittest.TestCase):
    def test_pages_follow_the_next_cursor(self) -> None:
        pages = {"": (["a", "b"], "c1"), "c1": (["c"], None)}

        def routes(r: httpx.Request) -> httpx.Response:
            items, nxt = pages[r.url.params.get("cursor", "")]
            return ok(items, headers={"X-Next-Cursor": nxt} if nxt else None)

        first = Gateway(routes).client().v1.list_payout_batches(limit=2)
        self.assertEqual((list(first), first.next_cursor, first.has_more), (["a", "b"], "c1", True))
        self.assertEqual(list(first.auto_paging_iter()), ["a", "b", "c"])
        second = first.next_page()
        assert second is not None
        self.assertEqual((second.data, second.has_more, second.next_page()), (["c"], False, None))


class PayoutCsv(unittest.TestCase):
    CSV = (
        "\ufeffTransaction_ID,operator,phone,amount,last_name,first_name,email,check_recipient\n"
        "p-1,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,awa@example.ci,TRUE\n"
        '"p-2",ALPHA_MONEY_CI, 0501020311 ,800.00,"Yao, Jr",Koffi,,\n'
        "\n"
    )

    def test_lines_become_v1_items(self) -> None:
        first, second = payout_csv.items_v1(self.CSV)
        self.assertEqual(first["checkRecipient"], True)
        self.assertEqual(first["customer"].get("email"), "awa@example.ci")
        self.assertEqual(
            (second["recipient"], second["amount"], second["customer"]["lastName"]), ("0501020311", "800.00", "Yao, Jr")
        )
        self.assertNotIn("checkRecipient", second)

    def test_lines_become_v2_items(self) -> None:
        first, second = payout_csv.items_v2(self.CSV.encode())
        self.assertEqual(
            (first["customer_id"], first["name"], first.get("check_recipient")), ("0701020301", "Awa Koné", True)
        )
        self.assertEqual(second["name"], "Koffi Yao, Jr")

    def test_a_file_that_is_no_batch_is_refused_before_sending(self) -> None:
        for bad in (
            "",
            "transaction_id,operator\n",
            "transaction_id,operator,phone,amount,last_name,first_name,x\n1,2,3,4,5,6,7\n",
            "transaction_id,operator,phone,amount,last_name,first_name\n",
        ):
            with self.subTest(bad=bad), self.assertRaises(PayoutCsvError):
                payout_csv.items_v1(bad)


class Webhooks(unittest.TestCase):
    OLD = "whsec_" + base64.b64encode(b"o" * 32).decode()
    NEW = "whsec_" + base64.b64encode(b"n" * 32).decode()
    BODY = b'{"ref":"ABCDEFGHIJ","transactionId":"o-1","status":"SUCCESSFUL"}'

    def headers(self, *secrets: str, at: dt.datetime | None = None, body: bytes = BODY) -> dict[str, str]:
        at = at or dt.datetime.now(dt.timezone.utc)
        signatures = [Webhook(s).sign("msg_1", at, body.decode()) for s in secrets]
        return {
            "Webhook-Id": "msg_1",
            "Webhook-Timestamp": str(int(at.timestamp())),
            "Webhook-Signature": " ".join(signatures),
        }

    def test_either_secret_verifies_a_delivery_signed_by_both(self) -> None:
        headers = self.headers(self.NEW, self.OLD)
        for secret in (self.NEW, self.OLD):
            event = verify_webhook(secret, headers, self.BODY)
            assert is_transaction(event)
            self.assertEqual(event["transactionId"], "o-1")

    def test_a_forgery_does_not_verify(self) -> None:
        cases = {
            "another secret": (self.headers(self.OLD), self.BODY, self.NEW),
            "a changed body": (self.headers(self.NEW), self.BODY.replace(b"o-1", b"o-2"), self.NEW),
            "an old timestamp": (
                self.headers(self.NEW, at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=6)),
                self.BODY,
                self.NEW,
            ),
            "a malformed signature": ({**self.headers(self.NEW), "Webhook-Signature": "garbage"}, self.BODY, self.NEW),
            "no headers": ({}, self.BODY, self.NEW),
        }
        for name, (headers, body, secret) in cases.items():
            with self.subTest(name), self.assertRaises(InvalidWebhookError):
                verify_webhook(secret, headers, body)

    def test_a_secret_that_is_none_is_a_configuration_error(self) -> None:
        with self.assertRaises(ValueError) as caught:
            verify_webhook("whsec_***", self.headers(self.NEW), self.BODY)
        self.assertNotIsInstance(caught.exception, InvalidWebhookError)

    def test_a_batch_event_is_told_apart(self) -> None:
        body = b'{"object":"payout_batch","payoutBatchId":"pbt_x","status":"completed"}'
        event = verify_webhook(self.NEW, self.headers(self.NEW, body=body), body)
        self.assertTrue(is_payout_batch(event))


if __name__ == "__main__":
    unittest.main()
