"""The core package's docstring lists each of its modules once, and nothing that is not one."""

import re
from pathlib import Path

import agenthost

PACKAGE = Path(agenthost.__file__).parent


def test_the_package_docstring_lists_every_module():
    on_disk = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    on_disk |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    listed = re.findall(r"^\* ``(\w+)``", agenthost.__doc__ or "", re.M)
    assert sorted(listed) == sorted(set(listed)), "a module is listed twice"
    assert set(listed) == on_disk
