#!/usr/bin/env python3
"""A merchant's client of momo-gateway, written the way existing integrations of the live
service are: Basic credentials for a token, the v1 paths, brand operator codes
(`ORANGE_MONEY_CI` with a one-time code, `WAVE_CI` with `urlSuccess` and `urlError`,
`MTN_MONEY_CI`), and nothing but the standard library.

    python3 momo_client.py flow --base http://127.0.0.1:8080 --key KEY --secret SECRET

runs a whole flow (token, a collection per operator, a transfer, status lookups, the balance,
all transactions) and prints what each step answered as one JSON document. The gateway must
map the brand codes (`MOMO_OPERATOR_ALIASES`, see docs/clients.md). As a library, `MomoClient`
is the part to copy.
"""

import argparse
import base64
import json
import sys
import urllib.error
import urllib.request
import uuid


class MomoError(Exception):
    """An answer that is not JSON: a client of the live service would not know what to do."""


class MomoClient:
    def __init__(self, base, api_key, api_secret, environment="Sandbox", timeout=30):
        self.base = base.rstrip("/")
        self.api_key = api_key
        self.api_secret = api_secret
        self.environment = environment
        self.timeout = timeout
        self.token = None

    def _call(self, method, path, body=None, basic=False):
        """(HTTP status, JSON body) of one call; 4xx and 5xx answers are returned, not raised."""
        headers = {"Accept": "application/json", "X-Environment": self.environment}
        if basic:
            pair = f"{self.api_key}:{self.api_secret}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        elif self.token:
            headers["Authorization"] = "Bearer " + self.token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw)
        except ValueError as error:
            raise MomoError(f"{method} {path} answered {status} with no JSON: {raw[:200]!r}") from error

    def authenticate(self):
        status, body = self._call("POST", "/v1/auth", basic=True)
        if status != 200:
            raise MomoError(f"authentication refused ({status}): {body}")
        self.token = body["data"]["token"]
        return self.token

    def collect(self, operator, phone, amount, transaction_id=None, otp_code=None, url_success=None, url_error=None):
        body = {
            "transactionId": transaction_id or uuid.uuid4().hex[:20],
            "customer": {
                "firstName": "Awa",
                "lastName": "Koné",
                "phone": phone,
                "email": "awa@example.ci",
                "address": {"countryCode": "CI", "city": "Abidjan"},
            },
            "payer": phone,
            "currency": "XOF",
            "amount": str(amount),
            "operator": operator,
        }
        if otp_code:
            body["otpCode"] = otp_code
        if url_success:
            body["urlSuccess"] = url_success
        if url_error:
            body["urlError"] = url_error
        return self._call("POST", "/v1/collecte/mobile-money", body)

    def transfer(self, operator, phone, amount, transaction_id=None):
        body = {
            "transactionId": transaction_id or uuid.uuid4().hex[:20],
            "customer": {"firstName": "Koffi", "lastName": "Yao", "phone": phone, "address": {"countryCode": "CI"}},
            "recipient": phone,
            "currency": "XOF",
            "amount": str(amount),
            "operator": operator,
        }
        return self._call("POST", "/v1/transfer/mobile-money", body)

    def status(self, transaction_id):
        return self._call("GET", f"/v2/get-status-payment/{transaction_id}")

    def balance(self):
        return self._call("GET", "/v1/balance")

    def transactions(self):
        return self._call("GET", "/v1/get-all-transactions")


def flow(client):
    """Every step of an integration's day, each answer reduced to what a merchant reads."""
    client.authenticate()
    report = {"authenticated": True, "collections": {}, "lookups": {}}
    collections = [
        ("ORANGE_MONEY_CI", "0701020301", {"otp_code": "1234"}),
        ("WAVE_CI", "0701020301", {"url_success": "https://shop.example/ok", "url_error": "https://shop.example/ko"}),
        ("MTN_MONEY_CI", "0701020301", {}),
    ]
    for operator, phone, extra in collections:
        transaction_id = f"py-{operator.lower()}"
        status, body = client.collect(operator, phone, 1000, transaction_id=transaction_id, **extra)
        data = body.get("data") or {}
        report["collections"][operator] = {
            "http": status,
            "status": data.get("status"),
            "operator": data.get("operator"),
            "fees": data.get("fees"),
            "launch_url": data.get("betaLaunchUrl"),
        }
    status, body = client.transfer("MTN_MONEY_CI", "0701020301", 500, transaction_id="py-transfer")
    data = body.get("data") or {}
    report["transfer"] = {"http": status, "status": data.get("status"), "operator": data.get("operator")}
    for transaction_id in ["py-orange_money_ci", "py-wave_ci", "py-mtn_money_ci", "py-transfer", "py-unknown"]:
        status, body = client.status(transaction_id)
        data = body.get("data") or {}
        report["lookups"][transaction_id] = {
            "http": status,
            "status": data.get("status"),
            "type_payment": data.get("type_payment"),
        }
    status, body = client.balance()
    report["balance"] = {"http": status, **(body.get("data") or {})}
    status, body = client.transactions()
    report["transactions"] = {
        "http": status,
        "items": [
            {"transactionId": t.get("transactionId"), "operator": t.get("operator"), "status": t.get("status")}
            for t in body.get("data") or []
        ],
    }
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description="A merchant's client of momo-gateway (v1 paths, brand codes).")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("flow", help="run a whole flow and print each step's answer as JSON")
    run.add_argument("--base", required=True, help="the gateway's URL, e.g. http://127.0.0.1:8080")
    run.add_argument("--key", required=True, help="API key of the environment")
    run.add_argument("--secret", required=True, help="API secret of the environment")
    run.add_argument("--environment", default="Sandbox", choices=["Sandbox", "Production"])
    args = parser.parse_args(argv)
    client = MomoClient(args.base, args.key, args.secret, args.environment)
    try:
        print(json.dumps(flow(client), ensure_ascii=False, indent=2))
    except (MomoError, urllib.error.URLError) as error:
        print(f"momo_client: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
