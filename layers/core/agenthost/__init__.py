"""agenthost: the shared library of every agenthost Lambda function (the core layer).

Only what two or more functions use lives here. Each module holds one concept:
``config`` (settings), ``store`` (the single DynamoDB table), ``signing`` (webhook HMAC),
``http`` (FastAPI app factory + Mangum handler), ``netguard`` (outbound URL safety).
"""

__version__ = "0.1.0"
