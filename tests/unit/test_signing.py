import hashlib
import hmac
import time

import pytest

from agenthost import signing

SECRET = "whs_" + "ab" * 32
BODY = '{"taskId":"t1","prompt":"Fill the form: name \\"Ann\\"","ü":"ß"}'.encode()


def test_sign_matches_reference_hmac():
    expected = "sha256=" + hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
    assert signing.sign(SECRET, BODY) == expected


def test_verify_accepts_valid_with_and_without_prefix_and_upper_hex():
    sig = signing.sign(SECRET, BODY)
    assert signing.verify(SECRET, BODY, sig)
    assert signing.verify(SECRET, BODY, sig.removeprefix("sha256="))
    assert signing.verify(SECRET, BODY, "sha256=" + sig[7:].upper())


@pytest.mark.parametrize("body,secret,sig", [
    (BODY + b" ", SECRET, None),            # tampered body
    (BODY, "whs_" + "cd" * 32, None),       # wrong secret
    (BODY, SECRET, "sha256=deadbeef"),      # garbage
    (BODY, SECRET, ""),                      # empty
    (BODY, "", None),                        # no secret configured
])
def test_verify_rejects(body, secret, sig):
    good = signing.sign(SECRET, BODY)
    assert not signing.verify(secret, body, good if sig is None else sig)


def test_reserialized_json_does_not_verify():
    # Same JSON, different bytes: verification must be over raw bytes.
    sig = signing.sign(SECRET, b'{"a": 1}')
    assert not signing.verify(SECRET, b'{"a":1}', sig)


def test_replay_window_seconds_and_milliseconds():
    now = time.time()
    signing.check_fresh(now - 299, now=now)
    signing.check_fresh(int((now - 10) * 1000), now=now)
    signing.check_fresh(str(int(now)), now=now)
    with pytest.raises(signing.SignatureError, match="replay window"):
        signing.check_fresh(now - 301, now=now)
    with pytest.raises(signing.SignatureError, match="replay window"):
        signing.check_fresh((now + 3600) * 1000, now=now)
    for bad in (None, "", "abc", -5, True):
        with pytest.raises(signing.SignatureError, match="timestamp"):
            signing.check_fresh(bad, now=now)


def test_verify_request_reasons_never_contain_secret():
    with pytest.raises(signing.SignatureError) as exc:
        signing.verify_request(SECRET, BODY, "sha256=00", time.time())
    assert exc.value.reason == "invalid signature"
    assert SECRET not in str(exc.value)
    with pytest.raises(signing.SignatureError, match="missing signature"):
        signing.verify_request(SECRET, BODY, None)
    signing.verify_request(SECRET, BODY, signing.sign(SECRET, BODY), time.time())
