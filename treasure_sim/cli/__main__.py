"""``python -m treasure_sim.cli``: the ``treasure-sim`` command (for a checkout that is not pip-installed)."""

from . import main

raise SystemExit(main())
