"""``python -m agenthost.agents_client``: see :mod:`agenthost.agents_client.cli`."""

import sys

from agenthost.agents_client.cli import main

sys.exit(main())
