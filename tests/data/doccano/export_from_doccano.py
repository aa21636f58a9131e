"""How ``separate.zip`` and ``collaborative.zip`` were made: a sequence-labelling project in a
running doccano 1.8.4, built through its REST API, holding the demo corpus's first four documents
annotated by users ann1, ann2 and ann3 (each with the demo annotator's spans), then exported as JSONL.

Run against a fresh doccano (``pip install doccano``; ``doccano init``; ``doccano createuser
--username admin --password adminpass``; the three users likewise, with the passwords below;
``doccano webserver --port 8765`` and ``doccano task`` running)::

    python export_from_doccano.py separate.zip
    python export_from_doccano.py collaborative.zip --collaborative

Not run by the tests (it needs a running doccano and ``requests``).
"""

import argparse
import json
import time
from pathlib import Path

import requests

BASE = "http://127.0.0.1:8765/v1"
PASSWORDS = {"admin": "adminpass", **{user: f"pass{user}-Xy9" for user in ("ann1", "ann2", "ann3")}}
DEMO = Path(__file__).resolve().parents[3] / "corpora" / "demo" / "jsonl"


def login(user: str) -> requests.Session:
    session = requests.Session()
    answer = session.post(f"{BASE}/auth/login/", json={"username": user, "password": PASSWORDS[user]})
    answer.raise_for_status()
    session.cookies.clear()  # token authentication only (a session cookie would ask for CSRF tokens)
    session.headers["Authorization"] = "Token " + answer.json()["key"]
    return session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--collaborative", action="store_true")
    args = parser.parse_args()
    admin = login("admin")
    project = admin.post(f"{BASE}/projects", json={
        "name": f"demo-{args.out.stem}", "description": "spanagree demo", "project_type": "SequenceLabeling",
        "resourcetype": "SequenceLabelingProject", "collaborative_annotation": args.collaborative,
        "guideline": "", "allow_overlapping": True, "grapheme_mode": False, "use_relation": False,
        "random_order": False})
    project.raise_for_status()
    pid = project.json()["id"]
    labels = {}
    for name in ("DISEASE", "DRUG", "LOC", "ORG", "PER"):
        answer = admin.post(f"{BASE}/projects/{pid}/span-types",
                            json={"text": name, "background_color": "#209cee", "text_color": "#ffffff"})
        answer.raise_for_status()
        labels[name] = answer.json()["id"]
    roles = {role["name"]: role["id"] for role in admin.get(f"{BASE}/roles").json()}
    users = {user["username"]: user["id"] for user in admin.get(f"{BASE}/users").json()}
    for user in ("ann1", "ann2", "ann3"):
        admin.post(f"{BASE}/projects/{pid}/members", json={"user": users[user], "role": roles["annotator"]})
    sides = {user: [json.loads(line) for line in (DEMO / f"{user}.jsonl").read_text().splitlines()][:4]
             for user in ("ann1", "ann2", "ann3")}
    examples = []
    for document in sides["ann1"]:
        answer = admin.post(f"{BASE}/projects/{pid}/examples",
                            json={"text": document["text"], "meta": {"doc": document["id"]}})
        answer.raise_for_status()
        examples.append(answer.json()["id"])
    for user in ("ann1", "ann2", "ann3"):
        session = login(user)
        for example, document in zip(examples, sides[user]):
            for span in document["spans"]:
                session.post(f"{BASE}/projects/{pid}/examples/{example}/spans", json={
                    "label": labels[span["label"]], "start_offset": span["start"], "end_offset": span["end"]
                }).raise_for_status()
    task = admin.post(f"{BASE}/projects/{pid}/download", json={"format": "JSONL", "exportApproved": False})
    task.raise_for_status()
    task_id = task.json()["task_id"]
    for _ in range(60):
        if admin.get(f"{BASE}/tasks/status/{task_id}").json().get("ready"):
            break
        time.sleep(1)
    export = admin.get(f"{BASE}/projects/{pid}/download", params={"taskId": task_id})
    export.raise_for_status()
    args.out.write_bytes(export.content)


if __name__ == "__main__":
    main()
