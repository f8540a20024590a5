"""Reports of measured figures: a test's Markdown sections, printed and
appended to the CI's report ($VERBSGATE_REPORT), and the make targets'
reports under build/."""
import json
import os
import time

from harness.testbed import BUILD_DIR


def append_report(text: str, source: str = ""):
    """Appends a section of measured figures to $VERBSGATE_REPORT if set
    (the CI's report), after a comment naming @source and the time."""
    path = os.environ.get("VERBSGATE_REPORT")
    if not path:
        return
    with open(path, "a") as f:
        if source:
            when = time.strftime("%Y-%m-%d %H:%M:%S")
            f.write(f"\n<!-- {source}, {when} -->")
        f.write(text)


def report(title: str, rows: list[str]):
    """Prints a Markdown section of measured figures, and appends it to
    the CI's report."""
    text = f"\n### {title}\n\n" + "\n".join(rows) + "\n"
    print(text)
    append_report(text)


def keep_report(request, tmp_path, text: str):
    """Prints a measuring test's table and keeps it: report.md in
    tmp_path, the test's user properties, and the CI's report."""
    print("\n" + text)
    (tmp_path / "report.md").write_text(text)
    request.node.user_properties.append(("report", text))
    append_report("\n" + text, request.node.nodeid)


def build_report(name: str, text: str, data=None):
    """Prints a make target's Markdown report and writes it to
    build/@name; @data, if given, (the figures behind it, for machines)
    to the same name ending in .json."""
    print("\n" + text)
    BUILD_DIR.mkdir(exist_ok=True)
    (BUILD_DIR / name).write_text(text + "\n")
    if data is not None:
        path = (BUILD_DIR / name).with_suffix(".json")
        path.write_text(json.dumps(data, indent=1) + "\n")
