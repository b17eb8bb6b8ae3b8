"""Discovery splits names as pathlib does, without building a path per entry."""

from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from eve_build.source.walk import _split_suffix

NAMES = st.text(alphabet=st.sampled_from("ab._-x1"), min_size=1, max_size=12).filter(
    lambda name: name not in (".", ".."))


@given(NAMES)
def test_stem_and_suffix_match_pathlib(name: str) -> None:
    path = PurePosixPath(name)
    assert _split_suffix(name) == (path.stem, path.suffix)
