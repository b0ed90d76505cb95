"""``make seed``: load all seed data into the table named by the environment.

Locally (``make dev`` running) it targets the embedded DynamoDB at ``AWS_ENDPOINT_URL_DYNAMODB``
(default ``http://127.0.0.1:3003``, table ``agenthost``); against AWS, unset the endpoint with
``AGENTHOST_SEED_AWS=1`` and set ``AGENTHOST_TABLE`` to the deployed table's name.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    if os.environ.get("AGENTHOST_SEED_AWS", "").strip().lower() not in ("1", "true", "yes"):
        port = os.environ.get("AGENTHOST_DYNAMODB_PORT", "3003")
        os.environ.setdefault("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{port}")
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    from agenthost.store import Store
    from infra.seed import run_all

    store = Store()
    print(f"seeding table {store.table_name}")
    run_all(store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
