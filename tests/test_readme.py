"""The snippets of the README and of ``docs/`` run as written; their links and images resolve.

Every ```python block of ``README.md``, then of each ``docs/*.md`` in the order the README
first links it, runs in one fresh directory: the blocks of one section (``## ...``) of one
file in one process, each section in a process of its own, so a section sees only what the
sections before it left on disk, as a reader copying them one after the other would (the
SDK's page writes the run that the reading page reads). Tracebacks name the file's own
lines. That test needs torch, paddle and an S3 API server and takes minutes: it is in the
e2e tier. The checks of the directives, the shell commands, the links and the images are in
the inner one.

An HTML comment right before a block, invisible on the rendered page, may say:

- ``<!-- snippet: setup (what it stands for)`` then code, then ``-->``: code run before the
  block that stands for the reader's own objects (a training step, data, a model). It must
  not touch visualdl: it cannot write the logs a snippet reads.
- ``<!-- snippet: skip (why) -->``: the block is not run, for the reason given (a notebook
  kernel, a GPU, a bucket of a real cloud); the reason is required.

The environment is a machine with the test extra installed, an S3 API server on loopback
(moto's) as its ``AWS_ENDPOINT_URL`` with a bucket named ``bucket``, and no display.
```bash blocks are not run; the programs and the checkout's files they name must exist.
Every page of ``docs/`` is linked from the README; every relative link and image of the
README, ``CONTRIBUTING.md`` and ``docs/`` names a file of the checkout (and one of its
headings, after ``#``), so that the README renders with its screenshots on a fresh clone.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from kit.paths import ROOT
from kit.requirements import require
from kit.s3 import CREDENTIALS, serve_s3

README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")
CONTRIBUTING = os.path.join(ROOT, "CONTRIBUTING.md")
#: The screenshots the README shows (``tests/e2e/browser/screenshots.py`` takes them).
SCREENSHOTS = ("docs/images/scalars.png", "docs/images/jobs.png", "docs/images/runs.png")

#: Runs one section: ``[[path, first line, code], ...]`` on stdin, each compiled at its line
#: of its file, all in one namespace.
DRIVER = """
import json, sys
namespace = {"__name__": "__main__"}
for path, line, code in json.load(sys.stdin):
    exec(compile("\\n" * (line - 1) + code, path, "exec"), namespace)
"""

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")
DIRECTIVE = re.compile(r"^<!-- snippet: (?P<kind>\w+)(?: \((?P<why>[^()]*)\))?(?P<end> -->)?$")
#: A Markdown link or image: ``[text](target)``, ``![alt](target)``.
LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)\)")


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced block: its language, its section, its first code line (1-based) and code."""

    lang: str
    section: str
    line: int
    code: str
    setup: tuple[int, str] | None = None  # (first line, code)
    skip: str | None = None


def parse(text: str, name: str = "README.md") -> list[Block]:
    """The fenced blocks of a Markdown text with their directives; a malformed directive, a
    skip without a reason or a directive that no ```python block follows is a ``ValueError``
    naming the file (``name``) and the line."""
    lines = text.splitlines()
    blocks: list[Block] = []
    section = ""
    pending: Block | None = None  # a directive's fields, waiting for its block
    at = expected = 0  # the pending directive's line (1-based) and the index its block must be at
    i = 0
    while i < len(lines):
        line = lines[i]
        if pending is not None and i == expected and not line.startswith("```"):
            raise ValueError(f"{name}:{at}: a snippet directive not right before a ```python block")
        if line.startswith("<!-- snippet:"):
            match = DIRECTIVE.match(line)
            if match is None or match["kind"] not in ("setup", "skip"):
                raise ValueError(f"{name}:{i + 1}: {line!r} is not <!-- snippet: setup|skip (why) -->")
            why = (match["why"] or "").strip()
            if not why:
                raise ValueError(f"{name}:{i + 1}: {line!r} does not say why in parentheses")
            at = i + 1
            if match["kind"] == "skip":
                if not match["end"]:
                    raise ValueError(f"{name}:{at}: a skip is one line, ending in -->")
                pending, expected = Block("python", section, 0, "", skip=why), i + 1
            else:
                end = next((j for j in range(i + 1, len(lines)) if lines[j] == "-->"), None)
                if match["end"] or end is None:
                    raise ValueError(f"{name}:{at}: a setup is its code, then a line '-->'")
                setup = (i + 2, "\n".join(lines[i + 1 : end]) + "\n")
                pending, expected = Block("python", section, 0, "", setup=setup), end + 1
            i = expected
            continue
        if line.startswith("## "):
            section = line[3:].strip()
        fence = FENCE.match(line)
        if fence is None:
            i += 1
            continue
        indent = len(fence["indent"])
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        code = "\n".join(text_line[indent:] for text_line in lines[i + 1 : end]) + "\n"
        block = Block(fence["lang"], section, i + 2, code)
        if pending is not None:
            if block.lang != "python":
                raise ValueError(f"{name}:{at}: a snippet directive before a ```{block.lang} block")
            block = dataclasses.replace(block, setup=pending.setup, skip=pending.skip)
            pending = None
        blocks.append(block)
        i = end + 1
    if pending is not None:
        raise ValueError(f"{name}:{at}: a snippet directive that no ```python block follows")
    return blocks


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _name(path: str) -> str:
    return os.path.relpath(path, ROOT)


def documents() -> list[str]:
    """``README.md``, then each page of ``docs/`` in the order the README first links it."""
    pages: list[str] = []
    for match in LINK.finditer(_read(README)):
        target = match["target"].split("#", 1)[0]
        if re.fullmatch(r"docs/[\w-]+\.md", target) and os.path.join(ROOT, target) not in pages:
            pages.append(os.path.join(ROOT, target))
    return [README, *pages]


def _blocks(path: str) -> list[Block]:
    return parse(_read(path), _name(path))


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown text's headings outside its code blocks (a repeat gets ``-1``, ...)."""
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#{1,6} (.+)", line)):
            slug = anchor(heading[1])
            out.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
            seen[slug] = seen.get(slug, 0) + 1
    return out


@pytest.mark.e2e  # torch, paddle, an S3 API server and a process per section: minutes
def test_readme_python_snippets_run_in_order(tmp_path, child_env):
    for module in ("torch", "paddle", "paddle2onnx", "onnx", "matplotlib", "s3fs", "moto"):
        require(importlib.util.find_spec(module) is not None, module, "pip install -e '.[test,e2e]'")
    blocks = [(path, b) for path in documents() for b in _blocks(path) if b.lang == "python"]
    assert len(blocks) >= 12, "the ```python blocks of the README and docs/ were not found"
    sections: dict[str, list[list[object]]] = {}  # "file ## section" -> its setups and blocks
    for path, block in blocks:
        if block.skip is None:
            pieces = sections.setdefault(f"{_name(path)} ## {block.section}", [])
            if block.setup is not None:
                pieces.append([path, *block.setup])
            pieces.append([path, block.line, block.code])
    workdir = tmp_path / "readme"
    workdir.mkdir()
    failures = []
    with serve_s3() as endpoint:
        env = {k: v for k, v in child_env.items() if not k.startswith("AWS_")}
        env.update(CREDENTIALS, AWS_ENDPOINT_URL=endpoint, MPLBACKEND="Agg")
        made = subprocess.run(
            [sys.executable, "-c", "import s3fs; s3fs.S3FileSystem().mkdir('bucket')"],
            env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        for section, pieces in sections.items():
            done = subprocess.run(
                [sys.executable, "-c", DRIVER], input=json.dumps(pieces), cwd=workdir,
                env=env, capture_output=True, text=True, timeout=180,
            )  # fmt: skip
            # A background writer's error at exit is logged, not raised: it fails the snippet too.
            if done.returncode != 0 or "Traceback" in done.stderr or "WriterError" in done.stderr:
                failures.append(f"{section} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    assert failures == [], "\n\n".join(failures)


def test_readme_snippet_directives_are_well_formed():
    """Every skip says why; every setup stands for the reader's objects, not for visualdl's."""
    for path in documents():
        for block in _blocks(path):
            if block.skip is not None:
                assert block.skip, f"{_name(path)}:{block.line}: a skip without a reason"
            if block.setup is not None:
                line, code = block.setup
                assert not re.search(r"visualdl|LogWriter|LogReader|SummaryWriter", code), (
                    f"{_name(path)}:{line}: a setup uses visualdl; show that in the snippet itself"
                )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- snippet: skip -->\n```python\nx\n```\n", "does not say why"),
        ("<!-- snippet: skip () -->\n```python\nx\n```\n", "does not say why"),
        ("<!-- snippet: skipped (gpu) -->\n```python\nx\n```\n", "is not <!-- snippet"),
        ("<!-- snippet: skip (gpu) -->\n\ntext\n```python\nx\n```\n", "not right before"),
        ("<!-- snippet: skip (gpu) -->\n```bash\nls\n```\n", "before a ```bash block"),
        ("<!-- snippet: setup (data)\nx = 1\n```python\nx\n```\n", "then a line '-->'"),
        ("```python\nx\n```\n<!-- snippet: skip (gpu) -->\n", "no ```python block follows"),
    ],
)
def test_readme_parse_refuses_a_bad_directive(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse(text)


def test_readme_parse_names_the_file_of_a_bad_directive():
    with pytest.raises(ValueError, match=re.escape("docs/sdk.md:1: ")):
        parse("<!-- snippet: skip -->\n```python\nx\n```\n", "docs/sdk.md")


def test_readme_parse_reads_sections_setups_and_skips():
    text = (
        "# T\n## One\n<!-- snippet: setup (data)\nx = 1\n-->\n```python\nprint(x)\n```\n"
        "## Two\n<!-- snippet: skip (needs a GPU) -->\n```python\ncuda()\n```\n  ```bash\n  ls\n  ```\n"
    )
    one, two, three = parse(text)
    assert (one.section, one.line, one.code, one.setup, one.skip) == ("One", 7, "print(x)\n", (4, "x = 1\n"), None)
    assert (two.section, two.line, two.skip, two.setup) == ("Two", 12, "needs a GPU", None)
    assert (three.lang, three.code) == ("bash", "ls\n")


def test_docs_pages_are_all_linked_from_the_readme():
    """Every page of docs/ is reached from the README's links, and so its snippets run."""
    pages = sorted(os.path.join(DOCS, name) for name in os.listdir(DOCS) if name.endswith(".md"))
    assert len(pages) >= 10, pages
    assert [_name(page) for page in pages if page not in documents()] == []


def test_docs_anchors_are_githubs():
    assert anchor("Options, values, errors and guarantees") == "options-values-errors-and-guarantees"
    assert anchor("Switching from `torch.utils.tensorboard`") == "switching-from-torchutilstensorboard"
    text = "# A\n## Two tiers\n```\n# not a heading\n```\n## Two tiers\n"
    assert anchors(text) == {"a", "two-tiers", "two-tiers-1"}


def test_docs_links_and_images_resolve():
    """Each relative link and image of the README, CONTRIBUTING.md and docs/ names a file of the
    checkout, and one of its headings after ``#``; the README shows the three screenshots."""
    broken = []
    for path in [*documents(), CONTRIBUTING]:
        for match in LINK.finditer(_read(path)):
            target = match["target"]
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file, _, fragment = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if match[0].startswith("!"):
                if not (os.path.isfile(full) and os.path.getsize(full) > 0):
                    broken.append(f"{_name(path)}: image {target!r} is not a file of the checkout")
            elif not os.path.exists(full):
                broken.append(f"{_name(path)}: link {target!r} names no file of the checkout")
            elif fragment and full.endswith(".md") and fragment not in anchors(_read(full)):
                broken.append(f"{_name(path)}: link {target!r}: {_name(full)} has no heading #{fragment}")
    assert broken == []
    shown = {m["target"] for m in LINK.finditer(_read(README)) if m[0].startswith("!")}
    assert sorted(set(SCREENSHOTS) - shown) == [], "the README shows the Scalars, Jobs and Runs views"


def test_readme_shell_commands_exist():
    """The programs the ```bash blocks of the README and docs/ run are installed beside this
    Python, or on PATH, and the files of the checkout they name exist."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    commands = [(_name(doc), b) for doc in documents() for b in _blocks(doc) if b.lang == "bash"]
    assert [b for doc, b in commands if doc == "README.md"], "the README's ```bash blocks were not found"
    missing = []
    builtins = {".", "source", "cd", "export"}  # the shell's own
    for doc, block in commands:
        made: set[str] = set()  # directories an earlier command of the block creates (a venv)
        for line in block.code.splitlines():
            line = line.split(" #", 1)[0]
            for command in re.split(r"&&|\|\||[|;]", line):
                words = shlex.split(command)
                if not words:
                    continue
                if words[1:3] == ["-m", "venv"]:
                    made.add(words[-1].rstrip("/"))
                if words[0] not in builtins and shutil.which(words[0], path=path) is None:
                    missing.append(f"{doc}:{block.line}: program {words[0]!r}")
                for word in words[1:]:
                    if word.split("/", 1)[0] in made:
                        continue
                    if re.fullmatch(r"\.?[\w-]+(/[\w.-]+)+", word) and not os.path.exists(os.path.join(ROOT, word)):
                        missing.append(f"{doc}:{block.line}: file {word!r}")
    assert missing == []
