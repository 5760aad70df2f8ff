#!/usr/bin/env python3
"""Feeds a running searchlab server with _bulk puts until its disk is full, then checks.

Phase "fill": bulks of --bulk new documents (16-dim embeddings, some text) until the first bulk
that is not a 200 with every item 200/201; then a few more bulks and a single put, to see what
clients get after the failure; GET /health before and after. Every acknowledged id is journaled
to --journal. Phase "check": GETs every journaled id and reports how many are missing.

Usage:
  fill.py fill  --url http://127.0.0.1:9200 --journal acked.txt [--bulk 200] [--dims 16]
  fill.py check --url http://127.0.0.1:9200 --journal acked.txt
Standard library only; single-threaded; prints one line per event.
"""
import argparse
import json
import random
import sys
import urllib.error
import urllib.request

WORDS = ("disk full write ahead log snapshot segment graph posting lucene vespa search index "
         "replay restart durable fsync commit merge vector bulk refuse health").split()


def call(url, method="GET", body=None, ctype="application/json"):
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return None, f"connection failed: {e}"


def doc(i, dims, rnd):
    v = [rnd.gauss(0, 1) for _ in range(dims)]
    n = sum(x * x for x in v) ** 0.5
    return {
        "id": f"d{i}",
        "title": " ".join(rnd.choice(WORDS) for _ in range(6)),
        "description": " ".join(rnd.choice(WORDS) for _ in range(60)),
        "category": rnd.choice(["a", "b", "c"]),
        "price": rnd.randrange(1, 10000),
        "average_rating": round(rnd.uniform(1, 5), 2),
        "embedding": [x / n for x in v],
    }


def bulk(url, index, docs):
    lines = []
    for d in docs:
        lines.append(json.dumps({"index": {"_index": index, "_id": d["id"]}}))
        lines.append(json.dumps(d))
    return call(url + "/_bulk", "POST", ("\n".join(lines) + "\n").encode(), "application/x-ndjson")


def fill(a):
    rnd = random.Random(a.seed)
    print("health before:", *call(a.url + "/health"))
    acked = 0
    i = 0
    failed_at = None
    after = 0
    with open(a.journal, "w") as journal:
        while True:
            docs = [doc(i + k, a.dims, rnd) for k in range(a.bulk)]
            i += a.bulk
            status, body = bulk(a.url, a.index, docs)
            ok_ids = []
            first_error = None
            if status == 200:
                items = json.loads(body)["items"]
                for d, item in zip(docs, items):
                    r = next(iter(item.values()))
                    if r.get("status") in (200, 201):
                        ok_ids.append(d["id"])
                    elif first_error is None:
                        first_error = r
            for x in ok_ids:
                journal.write(x + "\n")
            journal.flush()
            acked += len(ok_ids)
            if status != 200 or first_error is not None:
                what = first_error if first_error is not None else body[:400]
                print(f"bulk at doc {i - a.bulk}: HTTP {status}, {len(ok_ids)}/{a.bulk} acked;"
                      f" first error: {json.dumps(what)[:600]}")
                if failed_at is None:
                    failed_at = i - a.bulk
                    print("health right after the first failure:", *call(a.url + "/health"))
                after += 1
                if after >= 3:
                    break
            elif failed_at is not None:
                print(f"bulk at doc {i - a.bulk}: HTTP 200, all {a.bulk} acked AFTER a failure")
            if i % 20000 == 0:
                print(f"  {i} docs sent, {acked} acknowledged")
    d = doc(10**9, a.dims, rnd)
    print("single put after:", *call(f"{a.url}/{a.index}/_doc/{d['id']}", "PUT",
                                     json.dumps(d).encode()))
    print("health after:", *call(a.url + "/health"))
    print(f"acknowledged {acked} documents; journal {a.journal}")


def check(a):
    ids = [x.strip() for x in open(a.journal) if x.strip()]
    missing = 0
    for x in ids:
        status, _ = call(f"{a.url}/{a.index}/_doc/{x}")
        if status != 200:
            missing += 1
            if missing <= 5:
                print("missing:", x, status)
    print("health:", *call(a.url + "/health"))
    print(f"checked {len(ids)} acknowledged documents: {missing} missing")
    return 1 if missing else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("phase", choices=["fill", "check"])
    p.add_argument("--url", default="http://127.0.0.1:9200")
    p.add_argument("--index", default="product")
    p.add_argument("--journal", required=True)
    p.add_argument("--bulk", type=int, default=200)
    p.add_argument("--dims", type=int, default=16)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    sys.exit(fill(a) if a.phase == "fill" else check(a))


if __name__ == "__main__":
    main()
