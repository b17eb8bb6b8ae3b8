"""A weekly report, written by the agent every Monday at 09:00: `reports/weekly`."""

from __future__ import annotations

from eve_build.sdk import define_schedule

schedule = define_schedule(
    cron="0 9 * * 1",
    markdown=(
        "Write the weekly CRM report: new contacts, open tickets by priority and "
        "the three accounts that need attention this week."
    ),
)
