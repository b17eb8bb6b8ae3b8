"""Hypothesis profiles for the hostile-input suite (docs/reliability.md).

`eve-default` (what `pytest` runs) keeps the suite within its time budget;
`EVE_HYPOTHESIS_PROFILE=eve-thorough` tries many more examples of each input kind.
No example database is written into the checkout.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
              HealthCheck.data_too_large]
settings.register_profile("eve-default", max_examples=30, deadline=None, database=None,
                          suppress_health_check=SUPPRESSED, derandomize=True)
settings.register_profile("eve-thorough", max_examples=1500, deadline=None, database=None,
                          suppress_health_check=SUPPRESSED)
settings.load_profile(os.environ.get("EVE_HYPOTHESIS_PROFILE", "eve-default"))
