#!/usr/bin/env python3
"""Mutation evidence for index-mutable's lock-free classes (issue 12, item 5). Not run by the suite.

Each mutation breaks one class's memory ordering or bookkeeping on purpose by replacing one exact
piece of source, runs the unit test meant to catch it, records whether the test failed, and puts
the source back (from a copy taken before, so a crash cannot leave a mutant behind; `git diff`
must be empty afterwards). Run from the repository root:

    python3 index-mutable/src/test/mutations/mutate.py            # every mutation
    python3 index-mutable/src/test/mutations/mutate.py G1 L2      # some
    STRESS=1 python3 index-mutable/src/test/mutations/mutate.py P4  # with C2 scheduling stress

A mutation marked `x86` only weakens a release/acquire access or a fence. x86-64 is TSO: stores
are not reordered with stores nor loads with loads, so such a mutant is expected to survive on
this machine unless the JIT itself reorders; STRESS=1 adds HotSpot's StressLCM/StressGCM, which
randomise C2's instruction scheduling within what the memory model allows, to give it that chance.
"""

import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[4]
SRC = "index-mutable/src/main/java/org/searchlab/mutable/"
FLAGS = "--add-modules jdk.incubator.vector -ea -Djava.awt.headless=true"
STRESS = " -XX:+UnlockDiagnosticVMOptions -XX:+StressLCM -XX:+StressGCM -XX:+StressIGVN"

# id, kind, file, old text, new text, test that must fail, what the mutation breaks
MUTATIONS = [
    ("G1", "bookkeeping", "memory/GenerationHandler.java",
     "      counter.decrementAndGet();", "      // counter.decrementAndGet();",
     "GenerationHandlerTest", "a closed guard is still counted (hold count not decremented)"),
    ("G2", "bookkeeping", "memory/GenerationHandler.java",
     "long g = generation.getAndIncrement();", "long g = generation.get();",
     "GenerationHandlerTest", "a wait does not bump the generation"),
    ("G3", "bookkeeping", "memory/GenerationHandler.java",
     "AtomicLong c = active[(int) (g & 1)];\n    int spins", "AtomicLong c = active[(int) ((g + 1) & 1)];\n    int spins",
     "GenerationHandlerTest", "a wait drains the new readers' counter instead of the old one"),
    ("G4", "race", "memory/GenerationHandler.java",
     "if (generation.get() == g) {", "if (true) {",
     "GenerationHandlerTest", "enter does not re-check the generation after counting itself"),
    ("P1", "bookkeeping", "memory/PagedInts.java",
     "Arrays.copyOf(p, Math.max(pi + 1,", "Arrays.copyOf(p, Math.max(pi,",
     "PagedColumnsTest", "off-by-one in the page count when growing"),
    ("P2", "ordering", "memory/PagedLongs.java",
     "p.length + (p.length >> 1) + 1));\n", "p.length + (p.length >> 1) + 1));\n      pages = grown;\n",
     "PagedColumnsTest", "the grown page table is published before its new pages exist"),
    ("P3", "bookkeeping", "memory/PagedBytes.java",
     "          Arrays.fill(grown[k], fill);", "          if (k == p.length) Arrays.fill(grown[k], fill);",
     "PagedColumnsTest", "only the first new page gets the fill value"),
    ("P4", "x86", "memory/PagedInts.java",
     "ARRAY.setRelease(page(i), i & PAGE_MASK, v);", "page(i)[i & PAGE_MASK] = v;",
     "PagedColumnsTest", "setRelease is a plain store"),
    ("P5", "bookkeeping", "memory/PagedBits.java",
     "words.setRelease(w, old | (1L << i));", "words.setRelease(w, 1L << i);",
     "PagedBitsTest", "setting a bit loses the other bits of its word"),
    ("P6", "bookkeeping", "memory/PagedBits.java",
     "      count--;", "",
     "PagedBitsTest", "clearing a bit does not decrement the count"),
    ("P7", "x86", "memory/PagedBits.java",
     "return (words.getAcquire(w) & (1L << i)) != 0;", "return (words.get(w) & (1L << i)) != 0;",
     "PagedBitsTest", "get reads the word without acquire"),
    ("L1", "ordering", "LocalIds.java",
     "    born.set(local, serial);\n    died.setRelease(local, Long.MAX_VALUE);",
     "    died.setRelease(local, Long.MAX_VALUE);\n    born.set(local, serial);",
     "LocalIdsTest", "a recycled id is made live before its birth serial is written"),
    ("L2", "bookkeeping", "LocalIds.java",
     "local = free[--freeCount];", "local = free[freeCount - 1];",
     "LocalIdsTest", "reuse does not pop the free list (one id handed out twice)"),
    ("L3", "bookkeeping", "LocalIds.java",
     "    died.set(local, serial);\n    alive.clear(local);", "    alive.clear(local);",
     "LocalIdsTest", "retire does not record the death serial"),
    ("L4", "bookkeeping", "LocalIds.java",
     "    died.setRelease(local, 0);\n    born.set(local, 0);", "    born.set(local, 0);",
     "LocalIdsTest", "free leaves a freed id's death serial in place"),
    ("L5", "x86", "LocalIds.java",
     "return died.getAcquire(local) > s && born.get(local) <= s;",
     "return born.get(local) <= s && died.get(local) > s;",
     "LocalIdsTest", "visible reads born before died, both plain"),
    ("A1", "race", "attributes/AttributeStore.java",
     "if ((v1 & 1) == 0 && v1 == v2) {", "if (true) {",
     "AttributeStoreTest", "a two-column filter does not retry a torn read"),
    ("A2", "race", "attributes/AttributeStore.java",
     "    seq.setVolatile(doc, v + 1);\n", "",
     "AttributeStoreTest", "an update does not make the seqlock counter odd first"),
    ("A3", "bookkeeping", "attributes/AttributeStore.java",
     "    if (old >= 0) {\n      bitsByOrdinal[old].clear(doc);\n    }\n    category.set(doc, NO_CATEGORY);",
     "    category.set(doc, NO_CATEGORY);",
     "AttributeStoreTest", "clear keeps the freed id's category bit"),
    ("A4", "x86", "attributes/AttributeStore.java",
     "      VarHandle.loadLoadFence();\n", "",
     "AttributeStoreTest", "the seqlock reader has no load-load fence"),
    ("C1", "bookkeeping", "Compactor.java",
     "    parts.generations.awaitOlderReaders();\n    for (int from = 0;", "    for (int from = 0;",
     "CompactorTest", "graph nodes are removed without waiting for older searches"),
    ("C2", "bookkeeping", "Compactor.java",
     "    parts.generations.awaitOlderReaders();\n    writer.lock.lock();", "    writer.lock.lock();",
     "CompactorTest", "ids are freed without waiting for searches that saw the old postings"),
    ("C3", "bookkeeping", "Compactor.java",
     "        parts.ids.free(local);\n", "",
     "CompactorTest", "compacted ids never reach the free list"),
    ("C4", "bookkeeping", "Compactor.java",
     "        parts.attributes.clear(local);\n", "",
     "CompactorTest", "freed ids keep their attributes"),
    ("Q1", "bookkeeping", "postings/LexicalQuery.java",
     "              cur[i].advance(upTo);", "              cur[i].advance(upTo + 1);",
     "LexicalQueryTest", "a skipped block range also skips the first document after it"),
    ("Q2", "bookkeeping", "postings/LexicalQuery.java",
     "for (int i = firstEssential - 1; i >= 0; i--) {", "for (int i = firstEssential - 1; i > 0; i--) {",
     "LexicalQueryTest", "the cheapest non-essential term is never added to a score"),
    ("Q3", "bookkeeping", "postings/LexicalQuery.java",
     "      matches++;\n", "",
     "LexicalQueryTest", "matches are not counted"),
    ("Q4", "bookkeeping", "postings/LexicalQuery.java",
     "private static final float SLACK = 1 + 1e-5f;", "private static final float SLACK = 1;",
     "LexicalQueryTest", "no slack for float rounding in the bounds"),
]


def run_test(test):
    flags = FLAGS + (STRESS if os.environ.get("STRESS") else "")
    cmd = ["/work/tools/cpu", "build", "./mvnw", "-q", "-B", "-o", "-pl", "index-mutable", "-am",
           "test", "-Dtest=" + test, "-Dsurefire.failIfNoSpecifiedTests=false",
           "-Dspotless.check.skip=true", "-Dsearchlab.jvm.flags=" + flags]
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
        failed = p.returncode != 0
        out = p.stdout + p.stderr
        reason = next((l.strip() for l in out.splitlines()
                       if "Tests run:" in l and ("Failures: 0, Errors: 0" not in l)), "")
        if failed and "COMPILATION ERROR" in out:
            reason = "COMPILATION ERROR (mutant does not compile: fix the mutation)"
    except subprocess.TimeoutExpired:
        failed, reason = True, "hung (killed after 900 s)"
    return failed, reason, time.time() - start


def main(selected):
    rows = []
    for mid, kind, file, old, new, test, what in MUTATIONS:
        if selected and mid not in selected:
            continue
        path = ROOT / SRC / file
        original = path.read_text()
        if original.count(old) != 1:
            rows.append((mid, kind, what, test, "MUTATION DOES NOT APPLY", ""))
            continue
        try:
            path.write_text(original.replace(old, new))
            failed, reason, secs = run_test(test)
        finally:
            path.write_text(original)
        verdict = "caught" if failed else "SURVIVED"
        rows.append((mid, kind, what, test, verdict, "%s (%.0f s)" % (reason[:110], secs)))
        print("%s %-8s %s -> %s: %s" % (mid, verdict, what, test, reason[:110]), flush=True)
    print("\n| id | kind | mutation | test | result |\n| --- | --- | --- | --- | --- |")
    for mid, kind, what, test, verdict, detail in rows:
        print("| %s | %s | %s | %s | %s |" % (mid, kind, what, test, verdict))


if __name__ == "__main__":
    main(set(sys.argv[1:]))
