"""Every ```python block of docs/*.md runs, in order, one namespace per page
(a page whose blocks import an optional library that is not installed,
such as docs/ecosystem.md's, is skipped)."""
import pathlib
import re

import pytest

DOCS = sorted((pathlib.Path(__file__).resolve().parents[2] / "docs").glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page", DOCS, ids=[p.name for p in DOCS])
def test_doc_code_blocks_run(page, capsys):
    blocks = BLOCK.findall(page.read_text())
    assert blocks, f"{page.name} has no python code blocks"
    namespace = {"__name__": f"doc_{page.stem}"}
    for i, code in enumerate(blocks, 1):
        try:
            exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
        except ModuleNotFoundError as e:
            pytest.skip(f"{page.name} needs {e.name}, which is not installed")
        except Exception as e:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{page.name}, code block {i} failed: {type(e).__name__}: {e}\n{code}")
