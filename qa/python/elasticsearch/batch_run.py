"""The official Python client's batch and by-query calls against a searchlab server.

Usage: batch_run.py URL INDEX STORE DOCS_JSON

DOCS_JSON holds [{"_id": ..., "_source": {...}}, ...]. The script creates INDEX on the STORE kind,
feeds the documents with elasticsearch.helpers.bulk, then calls mget, count, msearch (one item on
a missing index), update_by_query and delete_by_query, and prints one JSON object with what the
client returned. It asserts nothing: EsPythonClientTest checks the answers against the documents.
Any exception the client raises ends the script with a non-zero status and the traceback.
"""

import json
import sys

from elasticsearch import Elasticsearch, helpers


def main():
    url, index, store, docs_path = sys.argv[1:5]
    with open(docs_path, encoding="utf-8") as f:
        docs = json.load(f)
    es = Elasticsearch(url, request_timeout=60)
    out = {}
    es.indices.create(
        index=index,
        settings={"index": {"number_of_replicas": 0, "store": store}},
        mappings={
            "properties": {
                "n": {"type": "integer"},
                "group": {"type": "keyword"},
                "title": {"type": "text"},
                "flag": {"type": "keyword"},
                "meta": {"properties": {"n": {"type": "integer"}, "tag": {"type": "keyword"}}},
            }
        },
    )
    ok, errors = helpers.bulk(
        es,
        ({"_index": index, "_id": d["_id"], "_source": d["_source"]} for d in docs),
        chunk_size=40,
        refresh=True,
    )
    out["bulk"] = {"ok": ok, "errors": errors}

    r = es.mget(index=index, ids=["d3", "d4", "nope"])
    out["mget_ids"] = [
        {"id": d["_id"], "found": d.get("found"), "source": d.get("_source")} for d in r["docs"]
    ]
    r = es.mget(
        docs=[
            {"_index": index, "_id": "d7", "_source": ["meta.n"]},
            {"_index": "no-such-index", "_id": "d7"},
        ]
    )
    out["mget_docs"] = [
        {
            "found": d.get("found"),
            "source": d.get("_source"),
            "error": d.get("error", {}).get("type"),
        }
        for d in r["docs"]
    ]

    out["count_g1"] = es.count(index=index, query={"term": {"group": "g1"}})["count"]

    r = es.msearch(
        searches=[
            {"index": index},
            {"query": {"term": {"group": "g1"}}, "size": 1000, "_source": False},
            {"index": "no-such-index"},
            {"query": {"match_all": {}}},
            {},
            {"size": 0, "aggs": {"groups": {"terms": {"field": "group"}}}},
        ],
        index=index,
    )
    items = r["responses"]
    out["msearch"] = {
        "g1_ids": sorted(h["_id"] for h in items[0]["hits"]["hits"]),
        "g1_status": items[0].get("status"),
        "missing_status": items[1].get("status"),
        "missing_type": items[1]["error"]["type"],
        "groups": {b["key"]: b["doc_count"] for b in items[2]["aggregations"]["groups"]["buckets"]},
    }

    r = es.update_by_query(
        index=index,
        query={"term": {"group": "g2"}},
        script={"source": "ctx._source.flag = params.v", "params": {"v": "done"}},
        refresh=True,
    )
    out["ubq"] = {"updated": r["updated"], "total": r["total"], "conflicts": r["version_conflicts"]}
    out["count_flag"] = es.count(index=index, query={"term": {"flag": "done"}})["count"]

    r = es.delete_by_query(
        index=index, query={"range": {"n": {"lt": 40}}}, refresh=True, scroll_size=9
    )
    out["dbq"] = {
        "deleted": r["deleted"],
        "total": r["total"],
        "batches": r["batches"],
        "failures": r["failures"],
    }
    out["count_after"] = es.count(index=index)["count"]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
