import sys

from infra.local.stack import main

sys.exit(main())
