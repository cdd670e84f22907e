"""Verifies one captured webhook delivery with the official Standard Webhooks library, once per
secret given. Reads {"secrets": [...], "headers": {...}, "body": "..."} as JSON on stdin; prints
one line per secret: `verified`, or `rejected: <the library's reason>`."""
import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

case = json.load(sys.stdin)
for secret in case["secrets"]:
    try:
        Webhook(secret).verify(case["body"].encode(), case["headers"])
        print("verified")
    except WebhookVerificationError as e:
        print(f"rejected: {e}")
