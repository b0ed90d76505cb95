"""The secret resolver: literal, SSM, Secrets Manager; rotation through the cache's max_age; a silent
parameter store costs seconds."""

import pytest

from agenthost import secrets


def test_secret_literal_then_ssm_then_secretsmanager(aws, monkeypatch):
    from agenthost.aws import client

    monkeypatch.setenv("AGENTHOST_X_SECRET", "literal")
    assert secrets.secret("AGENTHOST_X_SECRET") == "literal"
    monkeypatch.delenv("AGENTHOST_X_SECRET")
    assert secrets.secret("AGENTHOST_X_SECRET") == ""
    with pytest.raises(secrets.SecretNotConfigured, match="AGENTHOST_X_SECRET_PARAM"):
        secrets.secret("AGENTHOST_X_SECRET", required=True)

    client("ssm").put_parameter(Name="/agenthost/x", Value="from-ssm", Type="SecureString")
    monkeypatch.setenv("AGENTHOST_X_SECRET_PARAM", "/agenthost/x")
    assert secrets.secret("AGENTHOST_X_SECRET") == "from-ssm"

    client("secretsmanager").create_secret(Name="agenthost/y", SecretString="from-sm")
    monkeypatch.setenv("AGENTHOST_Y_PARAM", "secretsmanager:agenthost/y")
    assert secrets.secret("AGENTHOST_Y") == "from-sm"


def test_cached_secrets_honour_max_age_so_rotation_reaches_warm_containers(aws, monkeypatch):
    from agenthost.aws import client

    clock = [1000.0]
    monkeypatch.setattr(secrets, "_now", lambda: clock[0])
    ssm = client("ssm")
    ssm.put_parameter(Name="/agenthost/rot", Value="v1", Type="SecureString")
    monkeypatch.setenv("AGENTHOST_ROT_PARAM", "/agenthost/rot")
    assert secrets.secret("AGENTHOST_ROT", max_age=300) == "v1"
    ssm.put_parameter(Name="/agenthost/rot", Value="v2", Type="SecureString", Overwrite=True)  # rotated
    clock[0] += 299
    assert secrets.secret("AGENTHOST_ROT", max_age=300) == "v1"  # still fresh: no call
    clock[0] += 2
    assert secrets.secret("AGENTHOST_ROT", max_age=300) == "v2"  # expired: fetched again
    # a failed refresh keeps serving the last value (and does not retry on every call)
    ssm.delete_parameter(Name="/agenthost/rot")
    clock[0] += 301
    assert secrets.secret("AGENTHOST_ROT", max_age=300) == "v2"
    ssm.put_parameter(Name="/agenthost/rot", Value="v3", Type="SecureString")
    clock[0] += 1
    assert secrets.secret("AGENTHOST_ROT", max_age=300) == "v2"  # the retry waits SECRET_RETRY_S
    clock[0] += secrets.SECRET_RETRY_S
    assert secrets.secret("AGENTHOST_ROT", max_age=300) == "v3"
    # nothing cached and the parameter is missing: the error is raised, without the value
    monkeypatch.setenv("AGENTHOST_GONE_PARAM", "/agenthost/gone")
    with pytest.raises(Exception) as err:
        secrets.secret("AGENTHOST_GONE")
    assert "v3" not in str(err.value)


def test_a_parameter_store_that_never_answers_fails_fast(monkeypatch):
    """A hung SSM endpoint costs seconds (1 s connect / 2 s read, 2 attempts), not botocore's 60 s x 3."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held = []
    stop = threading.Event()

    def accept():  # accepts connections and never answers
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSM", f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    monkeypatch.setenv("AGENTHOST_SLOW_PARAM", "/agenthost/slow")
    from agenthost import aws

    aws.reset()
    secrets.reset()
    outcome = {}

    def fetch():
        try:
            outcome["value"] = secrets.secret("AGENTHOST_SLOW")
        except Exception as exc:  # noqa: BLE001
            outcome["error"] = exc

    worker = threading.Thread(target=fetch, daemon=True)
    worker.start()
    worker.join(15)  # far below botocore's defaults (60 s read timeout, several attempts)
    stop.set()
    for conn in held:
        conn.close()
    listener.close()
    aws.reset()
    assert not worker.is_alive(), "the secret fetch is still waiting on the silent endpoint"
    assert "Read timeout" in str(outcome["error"]) and 1 <= len(held) <= 3
