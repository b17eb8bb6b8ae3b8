"""`python -m eve_build` runs the `eve` command line."""

from eve_build.cli import main

main()
