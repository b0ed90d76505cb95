"""The local stack: API Gateway (HTTP + WebSocket), Lambda and DynamoDB emulated in one process,
built from ``template.yaml`` so local behaviour and infrastructure cannot drift. Run it with
``make dev`` (``python -m infra.local``)."""
