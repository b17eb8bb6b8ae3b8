"""A nested mount whose config is derived at module level from the parent mount's config
(`mount = acme_search(api_key=extension.config.search_api_key)`): when the package is
mounted twice, each parent mount gives its own value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eve_build.runtime import Agent
from tests.runtime.apps import compile_app, make_app, mount_file

MODULE_LEVEL = '''"""Mount hook-rewrite with a suffix from the parent config, at import."""

from __future__ import annotations

from hook_rewrite import hook_rewrite

from ....extension import extension

mount = hook_rewrite(field="text", suffix=f"-{extension.config.flavour}")
'''


def test_each_parent_mount_gives_its_own_value_to_a_module_level_nested_mount(
    tmp_path: Path, load: Callable[..., Agent]
) -> None:
    root = make_app(tmp_path / "app", ["mount-nested", "hook-rewrite"], {
        "extensions/hot.py": mount_file("mount_nested", 'flavour="spicy"'),
        "extensions/mild.py": mount_file("mount_nested"),
    })
    spice = root / "extensions/mount-nested/extension/subagents/helper/extensions/spice.py"
    spice.write_text(MODULE_LEVEL)
    compile_app(root)
    agent = load(root)

    hot = agent.call_tool("say", {"text": "hi"}, subagent="hot__helper")
    mild = agent.call_tool("say", {"text": "hi"}, subagent="mild__helper")

    assert hot.value["text"] == "hi-spicy"
    assert mild.value["text"] == "hi-plain"
