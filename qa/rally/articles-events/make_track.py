"""Regenerates the articles-events Rally track: two small document files and track.json.

Usage: python3 make_track.py [SEED]   (standard library only; run it in this folder)

Two indexes with mappings of their own (articles: text, keyword, date, integer and a dense
vector; events: keyword, text, date, long, boolean), documents without ids, and nine searches in
one parallel step. Each search whose hit count depends neither on analysis nor on a vector graph
asserts that count (esrally --enable-assertions), computed here from the documents. Rally
checks document-count and uncompressed-bytes against the files, so they are written together.
"""

import json
import math
import random
import sys
from datetime import datetime, timedelta, timezone

ARTICLES = 240
EVENTS = 360
DIMS = 8
AUTHORS = ["ada", "bo", "chen", "dana", "eli", "fay"]
SECTIONS = ["science", "sports", "culture", "business"]
WORDS = (
    "quantum river market festival engine garden signal winter harbor orbit melody "
    "ledger canyon beacon summit forest circuit voyage lantern meadow"
).split()
HOSTS = ["web-1", "web-2", "db-1", "cache-1"]
LEVELS = ["info", "warn", "error"]
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def words(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def unit(rng):
    v = [rng.gauss(0, 1) for _ in range(DIMS)]
    n = math.sqrt(sum(x * x for x in v))
    return [round(x / n, 4) for x in v]


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 66
    rng = random.Random(seed)
    articles = []
    for i in range(ARTICLES):
        articles.append(
            {
                "title": words(rng, 2, 5),
                "body": words(rng, 8, 20),
                "author": rng.choice(AUTHORS),
                "section": rng.choice(SECTIONS),
                "published": iso(START + timedelta(hours=rng.randint(0, 24 * 300))),
                "views": rng.randint(0, 10_000),
                "summary_vector": unit(rng),
            }
        )
    events = []
    for i in range(EVENTS):
        events.append(
            {
                "@timestamp": iso(START + timedelta(minutes=rng.randint(0, 60 * 24 * 30))),
                "host": rng.choice(HOSTS),
                "level": rng.choice(LEVELS),
                "message": words(rng, 3, 8),
                "duration_ms": rng.randint(1, 5_000),
                "ok": rng.random() < 0.8,
            }
        )

    files = {}
    for name, docs in (("articles", articles), ("events", events)):
        text = "".join(json.dumps(d, separators=(",", ":")) + "\n" for d in docs)
        path = f"{name}-documents.json"
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        files[name] = (path, len(docs), len(text.encode("utf-8")))

    def count(docs, pred):
        return sum(1 for d in docs if pred(d))

    probe = articles[7]
    may = (iso(START + timedelta(days=120)), iso(START + timedelta(days=180)))
    week = (iso(START + timedelta(days=7)), iso(START + timedelta(days=14)))

    def search(name, index, body, hits=None):
        op = {
            "name": name,
            "operation-type": "search",
            "index": index,
            "detailed-results": True,
            "body": body,
        }
        if hits is not None:
            op["assertions"] = [{"property": "hits", "condition": "==", "value": hits}]
        return {"name": name, "operation": op, "clients": 1, "warmup-iterations": 2, "iterations": 10}

    searches = [
        search(
            "articles-match",
            "articles",
            {"query": {"match": {"body": probe["body"].split()[0]}}},
        ),
        search(
            "articles-bool",
            "articles",
            {
                "query": {
                    "bool": {
                        "must": [{"match": {"title": probe["title"].split()[0]}}],
                        "filter": [{"term": {"section": probe["section"]}}],
                    }
                }
            },
        ),
        search(
            "articles-term",
            "articles",
            {"track_total_hits": True, "query": {"term": {"author": "chen"}}},
            count(articles, lambda d: d["author"] == "chen"),
        ),
        search(
            "articles-range",
            "articles",
            {
                "track_total_hits": True,
                "query": {"range": {"published": {"gte": may[0], "lt": may[1]}}},
            },
            count(articles, lambda d: may[0] <= d["published"] < may[1]),
        ),
        search(
            "articles-knn",
            "articles",
            {
                "knn": {
                    "field": "summary_vector",
                    "query_vector": probe["summary_vector"],
                    "k": 10,
                    "num_candidates": 50,
                },
                "size": 10,
            },
            10,
        ),
        search(
            "events-match-all",
            "events",
            {"track_total_hits": True, "query": {"match_all": {}}},
            EVENTS,
        ),
        search(
            "events-range",
            "events",
            {
                "track_total_hits": True,
                "query": {"range": {"@timestamp": {"gte": week[0], "lt": week[1]}}},
            },
            count(events, lambda d: week[0] <= d["@timestamp"] < week[1]),
        ),
        search(
            "events-bool",
            "events",
            {
                "track_total_hits": True,
                "query": {
                    "bool": {
                        "filter": [
                            {"term": {"host": "db-1"}},
                            {"term": {"ok": False}},
                            {"range": {"duration_ms": {"gte": 1000}}},
                        ]
                    }
                },
            },
            count(
                events,
                lambda d: d["host"] == "db-1" and not d["ok"] and d["duration_ms"] >= 1000,
            ),
        ),
        search(
            "events-match",
            "events",
            {"query": {"match": {"message": events[3]["message"].split()[0]}}},
        ),
    ]

    track = {
        "version": 2,
        "description": "Two indexes with mappings of their own (generated by make_track.py,"
        f" seed {seed}): bulk without ids, refresh, force-merge, nine searches",
        "indices": [
            {"name": "articles", "body": "articles-index.json"},
            {"name": "events", "body": "events-index.json"},
        ],
        "corpora": [
            {
                "name": "articles-events",
                "documents": [
                    {
                        "source-file": files[n][0],
                        "document-count": files[n][1],
                        "uncompressed-bytes": files[n][2],
                        "target-index": n,
                    }
                    for n in ("articles", "events")
                ],
            }
        ],
        "schedule": [
            {"operation": {"name": "delete-indices", "operation-type": "delete-index"}},
            {"operation": {"name": "create-indices", "operation-type": "create-index"}},
            {
                "operation": {
                    "name": "indices-green",
                    "operation-type": "cluster-health",
                    "index": "articles,events",
                    "request-params": {"wait_for_status": "green"},
                    "retry-until-success": True,
                }
            },
            {
                "operation": {"name": "bulk", "operation-type": "bulk", "bulk-size": 100},
                "clients": 2,
            },
            {"operation": {"name": "refresh", "operation-type": "refresh"}},
            {
                "operation": {
                    "name": "force-merge",
                    "operation-type": "force-merge",
                    "max-num-segments": 1,
                }
            },
            {"parallel": {"tasks": searches}},
        ],
    }
    with open("track.json", "w", encoding="utf-8") as f:
        json.dump(track, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
