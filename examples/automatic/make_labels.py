"""Writes llm-judge.jsonl: a deliberately biased automatic assessor of the example qrels (run once; the file is
committed). It over-grades: a pair the people graded 0 or 1 gets one grade more 45% of the time; a 2 becomes 3
30% of the time; 3s stay. 4% of pairs it cannot judge. Seeded, so the file is reproducible:
``python examples/automatic/make_labels.py``."""

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(20261201)
lines = []
for row in (HERE.parent / "qrels.txt").read_text().split("\n"):
    if not row.strip():
        continue
    qid, _, docid, grade = row.split()
    human = int(grade)
    if rng.random() < 0.04:
        lines.append({"qid": qid, "docid": docid, "cannot_judge": "the page text is too short to decide",
                      "confidence": 0.2})
        continue
    bump = {0: 0.45, 1: 0.45, 2: 0.30}.get(human, 0.0)
    given = min(3, human + (rng.random() < bump))
    lines.append({"qid": qid, "docid": docid, "grade": given, "confidence": round(rng.uniform(0.55, 0.99), 2),
                  "rationale": "mentions the task" if given >= 2 else "off the task"})
(HERE / "llm-judge.jsonl").write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
