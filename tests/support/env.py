"""Environment every test process starts with: fake AWS credentials, no tracing/metrics output."""

import os

BASE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AGENTHOST_TABLE": "agenthost-test",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "POWERTOOLS_SERVICE_NAME": "agenthost",
}


def apply() -> None:
    for key, value in BASE_ENV.items():
        os.environ[key] = value
    for key in list(os.environ):
        if key.startswith("AWS_ENDPOINT_URL") or key in ("AWS_PROFILE",):
            del os.environ[key]
