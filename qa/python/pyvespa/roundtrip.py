"""pyvespa against a searchlab server's Vespa dialect: feed, update, get, query.

Run by PyvespaCompatibilityTest (server tests), or by hand against `bin/searchlab serve`:

    python roundtrip.py http://127.0.0.1:8080 plan.json

plan.json names what to do:

    {"schema": "product",
     "docs": [{"id": "doc-0", "fields": {...}}, ...],   # the first through feed_data_point,
                                                         # the rest through feed_iterable
     "updates": [{"id": "doc-1", "fields": {"price": 7}}],  # feed_iterable(operation_type="update")
     "refresh": "/_admin/refresh",   # optional: POSTed after the writes (a segmented store's
                                     # searches see writes after a refresh; Vespa needs none)
     "get": ["doc-1", "no-such-doc"],
     "queries": {"name": {...query body...}, ...}}

and the script prints one JSON object with what pyvespa returned for each step. query() is
called as users call it, with pyvespa's default Accept: application/cbor. Exit code 0 unless
pyvespa raised outside a query (a failing query is recorded with its error and the run goes on).
"""

import json
import sys
import urllib.request
from urllib.parse import urlsplit

from vespa.application import Vespa


def main():
    endpoint, plan_path = sys.argv[1], sys.argv[2]
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    parts = urlsplit(endpoint)
    app = Vespa(url=f"{parts.scheme}://{parts.hostname}", port=parts.port)
    schema = plan["schema"]
    docs = plan["docs"]
    out = {"pyvespa": _version()}

    first = app.feed_data_point(schema=schema, data_id=docs[0]["id"], fields=docs[0]["fields"])
    out["feed_data_point"] = {"status": first.status_code, "json": first.json}

    fed = {}

    def record(response, doc_id):
        fed[doc_id] = {"status": response.status_code, "json": response.json}

    app.feed_iterable(docs[1:], schema=schema, callback=record, max_workers=4)
    out["feed_iterable"] = fed

    updated = {}

    def record_update(response, doc_id):
        updated[doc_id] = {"status": response.status_code, "json": response.json}

    app.feed_iterable(
        plan.get("updates", []), schema=schema, operation_type="update", callback=record_update
    )
    out["update"] = updated

    if plan.get("refresh"):
        request = urllib.request.Request(endpoint + plan["refresh"], method="POST")
        with urllib.request.urlopen(request, timeout=60) as r:
            out["refresh_status"] = r.status

    out["get"] = {}
    for doc_id in plan.get("get", []):
        r = app.get_data(schema=schema, data_id=doc_id, raise_on_not_found=False)
        out["get"][doc_id] = {"status": r.status_code, "json": r.json}

    out["queries"] = {}
    for name, body in plan.get("queries", {}).items():
        try:
            r = app.query(body=body)
            out["queries"][name] = {
                "status": r.status_code,
                "json": r.json,
                "hits": [{"id": h["id"], "relevance": h["relevance"], "fields": h.get("fields", {})}
                         for h in r.hits],
                "number_documents_retrieved": r.number_documents_retrieved,
            }
        except Exception as e:  # VespaError or HTTPError: the test reads the message
            out["queries"][name] = {"error": f"{type(e).__name__}: {e}"}

    json.dump(out, sys.stdout, sort_keys=True)
    print()


def _version():
    from importlib.metadata import version

    return version("pyvespa")


if __name__ == "__main__":
    main()
