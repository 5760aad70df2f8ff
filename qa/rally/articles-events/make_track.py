"""Regenerates the articles-events Rally track: two small document files and track.json.

Usage: python3 make_track.py [SEED]   (standard library only; run it in this folder)

Two indexes with mappings of their own (articles: text, keyword, date, integer and a dense
vector; events: keyword, text, date, long, boolean), documents without ids, and thirteen searches
in one parallel step: nine plain ones, two faceted searches (terms, range, date_histogram and
metric aggregations, sorted by a field) and two paginated searches (Rally's paginated-search:
sorted, paged with search_after until the last page). Each search whose hit count depends neither
on analysis nor on a vector graph asserts that count (esrally --enable-assertions), computed here
from the documents; a paginated search also asserts its page count. Rally cannot assert on
aggregations, so the faceted searches' exact buckets, metrics and sort values go to
expected-aggregations.json, which RallyTrackTest compares with the server's answers after each
race. Rally checks document-count and uncompressed-bytes against the files, so they are written
together.
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


def epoch_ms(text):
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()) * 1000


def terms(docs, field, size=10):
    """Elasticsearch's terms buckets: by count descending, ties by key ascending."""
    counts = {}
    for d in docs:
        counts[d[field]] = counts.get(d[field], 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:size]
    return [{"key": k, "doc_count": c} for k, c in ordered]


def ranges(docs, field, bounds):
    """Range buckets over [from, to) in the order given, keyed as Elasticsearch keys them."""
    out = []
    for lo, hi in bounds:
        key = ("*" if lo is None else f"{float(lo)}") + "-" + ("*" if hi is None else f"{float(hi)}")
        n = sum(1 for d in docs if (lo is None or d[field] >= lo) and (hi is None or d[field] < hi))
        out.append({"key": key, "doc_count": n})
    return out


def histogram(keys):
    """Date histogram buckets, gaps between the first and last filled (min_doc_count 0)."""
    counts = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return counts


def month_start(text):
    t = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    return datetime(t.year, t.month, 1, tzinfo=timezone.utc)


def months(docs, field):
    counts = histogram(month_start(d[field]) for d in docs)
    out = []
    t, last = min(counts), max(counts)
    while t <= last:
        out.append({"key": int(t.timestamp()) * 1000, "doc_count": counts.get(t, 0)})
        t = datetime(t.year + t.month // 12, t.month % 12 + 1, 1, tzinfo=timezone.utc)
    return out


def days(docs, field):
    day = 86_400_000
    counts = histogram(epoch_ms(d[field]) // day * day for d in docs)
    return [{"key": k, "doc_count": counts.get(k, 0)} for k in range(min(counts), max(counts) + 1, day)]


def stats(docs, field):
    values = [d[field] for d in docs]
    return {"count": len(values), "min": min(values), "max": max(values), "sum": sum(values)}


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

    def search(name, index, body, hits=None, per_page=None):
        op = {
            "name": name,
            "operation-type": "search" if per_page is None else "paginated-search",
            "index": index,
            "detailed-results": True,
            "body": body,
        }
        if hits is not None:
            op["assertions"] = [{"property": "hits", "condition": "==", "value": hits}]
        if per_page is not None:
            op["results-per-page"] = per_page
            op["pages"] = "all"
            pages = max(1, -(-hits // per_page))
            op["assertions"].append({"property": "pages", "condition": "==", "value": pages})
        return {"name": name, "operation": op, "clients": 1, "warmup-iterations": 2, "iterations": 10}

    # The faceted searches: a query whose matches are exact (a term, a date range), the buckets
    # and metrics over all its matches, and the top hits by a field.
    faceted_articles = [d for d in articles if d["section"] == probe["section"]]
    views_bounds = [(None, 2500), (2500, 5000), (5000, 7500), (7500, None)]
    week_events = [d for d in events if week[0] <= d["@timestamp"] < week[1]]
    duration_bounds = [(None, 1000), (1000, 3000), (3000, None)]
    errors = [d for d in events if d["level"] == "error"]
    expected = {
        "articles-facets": {
            "hits": len(faceted_articles),
            "sort": [[v] for v in sorted((d["views"] for d in faceted_articles), reverse=True)[:5]],
            "buckets": {
                "authors": terms(faceted_articles, "author"),
                "views": ranges(faceted_articles, "views", views_bounds),
                "months": months(faceted_articles, "published"),
            },
            "stats": {"views_stats": stats(faceted_articles, "views")},
        },
        "events-facets": {
            "hits": len(week_events),
            "sort": [
                [epoch_ms(d["@timestamp"]), d["duration_ms"]]
                for d in sorted(week_events, key=lambda d: (d["@timestamp"], -d["duration_ms"]), reverse=True)[:5]
            ],
            "buckets": {
                "hosts": terms(week_events, "host"),
                "levels": terms(week_events, "level"),
                "days": days(week_events, "@timestamp"),
                "durations": ranges(week_events, "duration_ms", duration_bounds),
            },
            "stats": {"duration_stats": stats(week_events, "duration_ms")},
        },
    }

    def range_agg(field, bounds):
        out = []
        for lo, hi in bounds:
            r = {}
            if lo is not None:
                r["from"] = lo
            if hi is not None:
                r["to"] = hi
            out.append(r)
        return {"range": {"field": field, "ranges": out}}

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
        search(
            "articles-facets",
            "articles",
            {
                "track_total_hits": True,
                "size": 5,
                "_source": False,
                "query": {"term": {"section": probe["section"]}},
                "sort": [{"views": "desc"}],
                "aggs": {
                    "authors": {
                        "terms": {"field": "author", "size": 10},
                        "aggs": {"top_views": {"max": {"field": "views"}}},
                    },
                    "views": range_agg("views", views_bounds),
                    "months": {"date_histogram": {"field": "published", "calendar_interval": "month"}},
                    "views_stats": {"stats": {"field": "views"}},
                },
            },
            expected["articles-facets"]["hits"],
        ),
        search(
            "events-facets",
            "events",
            {
                "track_total_hits": True,
                "size": 5,
                "_source": False,
                "query": {"range": {"@timestamp": {"gte": week[0], "lt": week[1]}}},
                "sort": [{"@timestamp": "desc"}, {"duration_ms": "asc"}],
                "aggs": {
                    "hosts": {
                        "terms": {"field": "host", "size": 10},
                        "aggs": {"avg_duration": {"avg": {"field": "duration_ms"}}},
                    },
                    "levels": {"terms": {"field": "level", "size": 10}},
                    "days": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1d"}},
                    "durations": range_agg("duration_ms", duration_bounds),
                    "duration_stats": {"stats": {"field": "duration_ms"}},
                },
            },
            expected["events-facets"]["hits"],
        ),
        search(
            "articles-paginated",
            "articles",
            {
                "track_total_hits": True,
                "_source": False,
                "query": {"match_all": {}},
                "sort": [{"published": "asc"}, "_doc"],
            },
            ARTICLES,
            per_page=50,
        ),
        search(
            "events-paginated",
            "events",
            {
                "track_total_hits": True,
                "_source": False,
                "query": {"term": {"level": "error"}},
                "sort": [{"duration_ms": "desc"}, "_doc"],
            },
            len(errors),
            per_page=25,
        ),
    ]

    track = {
        "version": 2,
        "description": "Two indexes with mappings of their own (generated by make_track.py,"
        f" seed {seed}): bulk without ids, refresh, force-merge, thirteen searches (two faceted, two"
        " paginated with search_after)",
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
    with open("expected-aggregations.json", "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
