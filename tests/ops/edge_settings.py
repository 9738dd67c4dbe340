"""The production settings with one more address, ``/edge-boom/``, that raises: the stack's
error-report test needs a fault to report (tests/ops/test_stack_edge.py)."""

from ludo_site.settings import *  # noqa: F403

ROOT_URLCONF = "tests.ops.edge_urls"
