"""Container tests: the built artifacts (``make build``) in real containers. They need Docker and the built
images; without them every test errors with the reason (never skipped, never passed silently).
``make test-containers`` installs and starts Docker where it can, builds, then runs them."""

from __future__ import annotations

import pytest

from tests.support import containers


@pytest.fixture(scope="session")
def docker_ready() -> None:
    problem = containers.docker_problem()
    if problem:
        pytest.fail(f"container tests could not run: {problem}. `make test-containers` installs and starts "
                    "Docker (as root) and builds the images first.", pytrace=False)


@pytest.fixture(scope="session")
def built(docker_ready) -> None:
    missing = [what for what, ok in (
        (f"image {containers.BROWSER_IMAGE}", containers.image_exists(containers.BROWSER_IMAGE)),
        (str(containers.BUILT_TEMPLATE.relative_to(containers.ROOT)), containers.BUILT_TEMPLATE.exists()),
    ) if not ok]
    if missing:
        pytest.fail(f"container tests could not run: {', '.join(missing)} missing; run `make build` with Docker "
                    "(`make test-containers` does)", pytrace=False)
