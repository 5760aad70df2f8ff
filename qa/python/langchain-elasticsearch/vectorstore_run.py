"""LangChain's ElasticsearchStore, unchanged, against a server: one index per retrieval strategy.

Usage: vectorstore_run.py URL SEED PREFIX

For each strategy the store creates its own index (PREFIX-<case>) with its own mapping and
settings, adds 40 texts with metadata, and searches with and without a
metadata.category.keyword filter; then it deletes three ids, searches again, force-merges the
index, and searches a third time. It prints one JSON object: per case the documents it wrote
(ids, texts, metadata and the vectors its embedding gave them), the queries (text, vector,
filter) and every hit (id, score, metadata) of every phase. LangChainCompatibilityTest checks the
answers against an exact oracle fed the same documents.

The embedding is a deterministic fake (like LangChain's FakeEmbeddings, but seeded by the text):
no model is needed and the Java side can read the vectors from this output.
"""

import hashlib
import json
import random
import sys

import numpy as np
from elasticsearch import Elasticsearch
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_elasticsearch import (
    BM25Strategy,
    DenseVectorScriptScoreStrategy,
    DenseVectorStrategy,
    ElasticsearchStore,
)
from langchain_elasticsearch.vectorstores import DistanceMetric

DIMS = 16
TEXTS = 40
K = 10
CATEGORIES = ["garden", "kitchen", "office", "sports"]
WORDS = (
    "red blue green small large steel wooden glass lamp chair table hose kettle pan racket "
    "ball desk pen shelf bottle rope bag light heavy quiet fast"
).split()


class SeededFakeEmbeddings(Embeddings):
    """A unit vector per text, from a generator seeded by the run's seed and the text."""

    def __init__(self, seed: int):
        self.seed = seed

    def _vector(self, text: str):
        digest = hashlib.sha256(f"{self.seed}:{text}".encode("utf-8")).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
        v = rng.normal(size=DIMS).astype(np.float32)
        v = v / np.linalg.norm(v)
        # Round to float32 and print as such: the server stores float32.
        return [float(x) for x in v.astype(np.float32)]

    def embed_documents(self, texts):
        return [self._vector(t) for t in texts]

    def embed_query(self, text):
        return self._vector(text)


def corpus(seed: int):
    rng = random.Random(seed)
    texts, metadatas, ids = [], [], []
    for i in range(TEXTS):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 9))]
        texts.append(" ".join(words))
        metadatas.append({"category": CATEGORIES[i % len(CATEGORIES)], "n": i})
        ids.append(f"doc-{i}")
    queries = [" ".join(rng.choice(WORDS) for _ in range(2)) for _ in range(3)]
    deleted = rng.sample(ids, 3)
    return texts, metadatas, ids, queries, deleted


def hit_builder(hit):
    """Keeps what the server answered: the id, the score and the metadata."""
    src = hit.get("_source", {})
    return Document(
        page_content=src.get("text", ""),
        metadata={"_id": hit["_id"], "_score": hit["_score"], "meta": src.get("metadata")},
    )


def cases():
    return {
        "cosine": dict(strategy=DenseVectorStrategy(), embeds=True),
        "dot": dict(
            strategy=DenseVectorStrategy(distance=DistanceMetric.DOT_PRODUCT), embeds=True
        ),
        "hybrid": dict(strategy=DenseVectorStrategy(hybrid=True, text_field="text"), embeds=True),
        "hybrid-rrf": dict(
            strategy=DenseVectorStrategy(
                hybrid=True, text_field="text", rrf={"rank_constant": 7, "rank_window_size": 15}
            ),
            embeds=True,
        ),
        "bm25": dict(strategy=BM25Strategy(k1=1.7, b=0.4), embeds=False),
        "exact-cosine": dict(strategy=DenseVectorScriptScoreStrategy(), embeds=True),
        "exact-dot": dict(
            strategy=DenseVectorScriptScoreStrategy(distance=DistanceMetric.DOT_PRODUCT),
            embeds=True,
        ),
        "exact-l2": dict(
            strategy=DenseVectorScriptScoreStrategy(distance=DistanceMetric.EUCLIDEAN_DISTANCE),
            embeds=True,
        ),
    }


def search_all(store, queries, category):
    out = []
    for q in queries:
        for flt in (None, [{"term": {"metadata.category.keyword": category}}]):
            docs = store.similarity_search(
                q, k=K, fetch_k=50, filter=flt, doc_builder=hit_builder
            )
            out.append(
                {
                    "hits": [
                        {
                            "id": d.metadata["_id"],
                            "score": d.metadata["_score"],
                            "metadata": d.metadata["meta"],
                        }
                        for d in docs
                    ]
                }
            )
    return out


def main():
    url, seed, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    embedding = SeededFakeEmbeddings(seed)
    texts, metadatas, ids, queries, deleted = corpus(seed)
    category = CATEGORIES[seed % len(CATEGORIES)]
    filters = [None, [{"term": {"metadata.category.keyword": category}}]]
    client = Elasticsearch(url, request_timeout=120)
    result = {
        "docs": [
            {"id": i, "text": t, "metadata": m, "vector": embedding.embed_query(t)}
            for i, t, m in zip(ids, texts, metadatas)
        ],
        "queries": [
            {"text": q, "vector": embedding.embed_query(q), "filter": f}
            for q in queries
            for f in filters
        ],
        "deleted": deleted,
        "cases": {},
    }
    for name, case in cases().items():
        index = f"{prefix}-{name}"
        store = ElasticsearchStore(
            index,
            client=client,
            embedding=embedding if case["embeds"] else None,
            strategy=case["strategy"],
        )
        added = store.add_texts(texts, metadatas=metadatas, ids=ids)
        phases = {"added": search_all(store, queries, category)}
        ok = store.delete(ids=deleted)
        phases["deleted"] = search_all(store, queries, category)
        client.indices.forcemerge(index=index, max_num_segments=1)
        phases["merged"] = search_all(store, queries, category)
        result["cases"][name] = {
            "index": index,
            "added": added,
            "delete_ok": bool(ok),
            "phases": phases,
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
