"""The hosted build (Read the Docs, ``.readthedocs.yaml``) makes the same checks as ``make html``:
the same configuration (so the same kernel, which compares every output with its ``.out`` under
the same rule and tolerances), the same pinned environment, and every warning fails it."""

from __future__ import annotations

import yaml

from jaxbook import ROOT


def test_the_hosted_build_is_the_strict_build_of_the_lock_with_a_supported_python():
    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text(encoding="utf-8"))
    assert config["sphinx"]["configuration"] == "conf.py"
    assert config["sphinx"]["builder"] == "html"
    assert config["sphinx"]["fail_on_warning"] is True  # sphinx-build -W --keep-going, as make html
    assert config["python"]["install"] == [{"requirements": "requirements.lock"}]
    major, minor = map(int, str(config["build"]["tools"]["python"]).split(".")[:2])
    assert (major, minor) >= (3, 12)
    local = (ROOT / ".python-version").read_text(encoding="utf-8").strip()
    assert local.startswith(f"{major}.{minor}"), "the hosted build and .python-version disagree"
