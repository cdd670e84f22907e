"""The checks of tests/flow.py, by area; flow.py runs them in order against a gateway.

Not tests that pytest collects: no module here is named test_*.py.

    listener           the webhook receiver (Delivery, Deliveries, listen)
    harness            the check runner and what every area shares (FlowBase, expect, eventually)
    payments           the token, collections, status, transfers, refunds, idempotency, typed errors
    links_batches      payment links, payout batches
    customers_reports  recipient checks, customers, transactions, balance, statement, settlement
    webhooks           the signing secret's rotation, deliveries verified, events, redelivery
"""
