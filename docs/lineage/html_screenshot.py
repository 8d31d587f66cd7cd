"""Regenerate docs/lineage/northwind-lineage-html.png, the analysts' page's picture of the HTML
lineage page: northwind in a throwaway Neo4j, user u-17 erased, the lineage of
fact-retry-bug (both directions) written with ``--format html`` and photographed by headless
Chromium.

    python docs/lineage/html_screenshot.py [SCENARIO_DIR]

SCENARIO_DIR defaults to the copy of northwind the package ships.

Needs the html extra (``pip install -e '.[html]'``) and Debian's ``chromium``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from graphmem.client import Memory
from graphmem.db.server import EphemeralServer
from graphmem.demo.scenario import packaged_northwind
from graphmem.lineage import export

HERE = Path(__file__).resolve().parent
PICTURE = HERE / "northwind-lineage-html.png"


def main(scenario: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="graphmem-shot-") as tmp:
        page = Path(tmp) / "lineage.html"
        server = EphemeralServer().start()
        try:
            with Memory.connect(server.settings, start_if_needed=False) as memory:
                memory.import_jsonl(scenario / "records.jsonl")
                plan = memory.plan_deletion(subject={"tenant": "acme", "user": "u-17"},
                                            requested_by="dpo", reason="GDPR art. 17")
                memory.apply_deletion(plan)
                graph = memory.lineage("fact-retry-bug", "both")
                page.write_text(str(export(graph, "html")), encoding="utf-8")
        finally:
            server.close()
        subprocess.run(
            [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
             "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp}/profile",
             "--window-size=1400,820", "--virtual-time-budget=5000",
             f"--screenshot={PICTURE}", page.as_uri()],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    print(f"wrote {PICTURE}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else packaged_northwind())
