#!/usr/bin/env python3
"""Mutation evidence for index-mutable's lock-free classes (issue 12, item 5). Not run by the suite.

Each mutation breaks one class's memory ordering or bookkeeping on purpose by replacing one exact
piece of source, runs the unit test meant to catch it, and records whether the test failed. The
working tree is never touched: after one Maven build, each mutant is a copy of one file compiled
with javac into a directory put ahead of the module's classes, and the test class runs through
RunTests.java (JUnit's launcher). Run from the repository root with JAVA_HOME set:

    python3 index-mutable/src/test/mutations/mutate.py            # every mutation
    python3 index-mutable/src/test/mutations/mutate.py G1 L2      # some
    python3 index-mutable/src/test/mutations/mutate.py control    # the tests pass unmutated
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
# The agent flags are the ones index-mutable's surefire argLine adds for Lincheck's run-time attach.
# modelcheck.extended enables the model-checked scenarios the suite leaves out for time.
FLAGS = ("--add-modules jdk.incubator.vector -ea -Djava.awt.headless=true"
         " -XX:+EnableDynamicAgentLoading -Djdk.attach.allowAttachSelf=true"
         " -Dmodelcheck.extended=true")
STRESS = " -XX:+UnlockDiagnosticVMOptions -XX:+StressLCM -XX:+StressGCM -XX:+StressIGVN"

H1_OLD = ("    for (int j = 0; j < ids.length; j++) {\n"
          "      row[dimension + 1 + j] = Float.intBitsToFloat(ids[j]);\n"
          "    }\n"
          "    CELL.setRelease(row, dimension, Float.intBitsToFloat(ids.length));\n")
H1_NEW = ("    CELL.setRelease(row, dimension, Float.intBitsToFloat(ids.length));\n"
          "    for (int j = 0; j < ids.length; j++) {\n"
          "      row[dimension + 1 + j] = Float.intBitsToFloat(ids[j]);\n"
          "    }\n")
H2_OLD = "    float[] row = Arrays.copyOf(vector, dimension + links);\n"
H2_NEW = H2_OLD + "    SLOT.setRelease(t, id, row);\n"
H3_OLD = "      System.arraycopy(old, dimension, row, dimension, links);\n"

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
     "if ((v1 & 1) == 0 && v1 == v2) {\n        return c == categoryOrdinal",
     "if (true) {\n        return c == categoryOrdinal",
     "AttributeStoreTest", "a two-column filter does not retry a torn read"),
    ("A2", "race", "attributes/AttributeStore.java",
     "    seq.setVolatile(doc, v + 1);\n", "",
     "AttributeStoreTest", "an update does not make the seqlock counter odd first"),
    ("A3", "bookkeeping", "attributes/AttributeStore.java",
     "    if (old >= 0) {\n      bitsByOrdinal[old].clear(doc);\n    }\n    category.set(doc, NO_CATEGORY);",
     "    category.set(doc, NO_CATEGORY);",
     "AttributeStoreTest", "clear keeps the freed id's category bit"),
    ("A4", "x86", "attributes/AttributeStore.java",
     "int p = price.get(doc);\n      VarHandle.loadLoadFence();\n", "int p = price.get(doc);\n",
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
     "static final float SLACK = 1 + 1e-5f;", "static final float SLACK = 1;",
     "LexicalQueryTest", "no slack for float rounding in the bounds"),
    ("P4p", "x86", "memory/PagedInts.java",
     "ARRAY.setRelease(page(i), i & PAGE_MASK, v);", "page(i)[i & PAGE_MASK] = v;",
     "PublicationProtocolTest", "setRelease is a plain store (protocol pin)"),
    ("P7p", "x86", "memory/PagedBits.java",
     "return (words.getAcquire(w) & (1L << i)) != 0;", "return (words.get(w) & (1L << i)) != 0;",
     "PublicationProtocolTest", "get reads the word without acquire (protocol pin)"),
    ("L1p", "ordering", "LocalIds.java",
     "    born.set(local, serial);\n    died.setRelease(local, Long.MAX_VALUE);",
     "    died.setRelease(local, Long.MAX_VALUE);\n    born.set(local, serial);",
     "PublicationProtocolTest", "a recycled id is made live before its birth serial (protocol pin)"),
    ("L5p", "x86", "LocalIds.java",
     "return died.getAcquire(local) > s && born.get(local) <= s;",
     "return born.get(local) <= s && died.get(local) > s;",
     "PublicationProtocolTest", "visible reads born before died, both plain (protocol pin)"),
    ("A2p", "race", "attributes/AttributeStore.java",
     "    seq.setVolatile(doc, v + 1);\n", "",
     "PublicationProtocolTest", "an update does not make the counter odd first (protocol pin)"),
    ("A4p", "x86", "attributes/AttributeStore.java",
     "int p = price.get(doc);\n      VarHandle.loadLoadFence();\n", "int p = price.get(doc);\n",
     "PublicationProtocolTest", "the seqlock reader has no load-load fence (protocol pin)"),
    # The same mutants under the model checker (suffix m): each scenario must fail on the mutants
    # of the protocol it explores before it is trusted. Kind x86 ones are expected to survive: the
    # checker is sequentially consistent, so an access mode changes nothing it can see.
    ("G1m", "bookkeeping", "memory/GenerationHandler.java",
     "      counter.decrementAndGet();", "      // counter.decrementAndGet();",
     "GenerationHandlerScenario", "a closed guard is still counted (model-checked)"),
    ("G2m", "bookkeeping", "memory/GenerationHandler.java",
     "long g = generation.getAndIncrement();", "long g = generation.get();",
     "GenerationHandlerScenario", "a wait does not bump the generation (model-checked)"),
    ("G3m", "bookkeeping", "memory/GenerationHandler.java",
     "AtomicLong c = active[(int) (g & 1)];\n    int spins", "AtomicLong c = active[(int) ((g + 1) & 1)];\n    int spins",
     "GenerationHandlerScenario", "a wait drains the new readers' counter (model-checked)"),
    ("G4m", "race", "memory/GenerationHandler.java",
     "if (generation.get() == g) {", "if (true) {",
     "GenerationHandlerScenario", "enter does not re-check the generation, no stall hook (model-checked)"),
    ("P1m", "bookkeeping", "memory/PagedInts.java",
     "Arrays.copyOf(p, Math.max(pi + 1,", "Arrays.copyOf(p, Math.max(pi,",
     "PagedColumnsScenario", "off-by-one in the page count when growing (model-checked)"),
    ("P2m", "ordering", "memory/PagedLongs.java",
     "p.length + (p.length >> 1) + 1));\n", "p.length + (p.length >> 1) + 1));\n      pages = grown;\n",
     "PagedColumnsScenario", "the grown page table is published before its new pages exist (model-checked)"),
    ("P3m", "bookkeeping", "memory/PagedBytes.java",
     "          Arrays.fill(grown[k], fill);", "          if (k == p.length) Arrays.fill(grown[k], fill);",
     "PagedColumnsScenario", "only the first new page gets the fill value (model-checked)"),
    ("P4m", "x86", "memory/PagedInts.java",
     "ARRAY.setRelease(page(i), i & PAGE_MASK, v);", "page(i)[i & PAGE_MASK] = v;",
     "PagedColumnsScenario", "setRelease is a plain store (model-checked)"),
    ("P5m", "bookkeeping", "memory/PagedBits.java",
     "words.setRelease(w, old | (1L << i));", "words.setRelease(w, 1L << i);",
     "PagedColumnsScenario", "setting a bit loses the other bits of its word (model-checked)"),
    ("P7m", "x86", "memory/PagedBits.java",
     "return (words.getAcquire(w) & (1L << i)) != 0;", "return (words.get(w) & (1L << i)) != 0;",
     "PagedColumnsScenario", "get reads the word without acquire (model-checked)"),
    ("L1m", "ordering", "LocalIds.java",
     "    born.set(local, serial);\n    died.setRelease(local, Long.MAX_VALUE);",
     "    died.setRelease(local, Long.MAX_VALUE);\n    born.set(local, serial);",
     "LocalIdsScenario", "a recycled id is made live before its birth serial (model-checked)"),
    ("L2m", "bookkeeping", "LocalIds.java",
     "local = free[--freeCount];", "local = free[freeCount - 1];",
     "LocalIdsScenario", "reuse does not pop the free list (model-checked)"),
    ("L3m", "bookkeeping", "LocalIds.java",
     "    died.set(local, serial);\n    alive.clear(local);", "    alive.clear(local);",
     "LocalIdsScenario", "retire does not record the death serial (model-checked)"),
    ("L4m", "bookkeeping", "LocalIds.java",
     "    died.setRelease(local, 0);\n    born.set(local, 0);", "    born.set(local, 0);",
     "LocalIdsScenario", "free leaves a freed id's death serial in place (model-checked)"),
    ("L5m", "ordering", "LocalIds.java",
     "return died.getAcquire(local) > s && born.get(local) <= s;",
     "return born.get(local) <= s && died.get(local) > s;",
     "LocalIdsScenario", "visible reads born before died, both plain (model-checked)"),
    ("A1m", "race", "attributes/AttributeStore.java",
     "if ((v1 & 1) == 0 && v1 == v2) {\n        return c == categoryOrdinal",
     "if (true) {\n        return c == categoryOrdinal",
     "AttributeSeqlockScenario", "a two-column filter does not retry a torn read (model-checked)"),
    ("A2m", "race", "attributes/AttributeStore.java",
     "    seq.setVolatile(doc, v + 1);\n", "",
     "AttributeSeqlockScenario", "an update does not make the counter odd first (model-checked)"),
    ("A4m", "x86", "attributes/AttributeStore.java",
     "int p = price.get(doc);\n      VarHandle.loadLoadFence();\n", "int p = price.get(doc);\n",
     "AttributeSeqlockScenario", "the seqlock reader has no load-load fence (model-checked)"),
    # The graph's level-0 links mirrored into the vector rows (issue 70, step 13): RowFloatSlots
    # rewrites a list in place (ids, then the count) and replaces a row on a vector update.
    ("H1", "ordering", "hnsw/RowFloatSlots.java", H1_OLD, H1_NEW,
     "RowFloatSlotsTest", "the link count is released before the ids are written"),
    ("H1p", "ordering", "hnsw/RowFloatSlots.java", H1_OLD, H1_NEW,
     "PublicationProtocolTest", "the link count is released before the ids (protocol pin)"),
    ("H1m", "ordering", "hnsw/RowFloatSlots.java", H1_OLD, H1_NEW,
     "GraphLinksScenario", "the link count is released before the ids (model-checked)"),
    ("H2", "ordering", "hnsw/RowFloatSlots.java", H2_OLD, H2_NEW,
     "RowFloatSlotsTest", "an updated vector's row is published before the links are copied in"),
    ("H2m", "ordering", "hnsw/RowFloatSlots.java", H2_OLD, H2_NEW,
     "GraphLinksScenario", "an updated row is published before its links (model-checked)"),
    ("H3", "bookkeeping", "hnsw/RowFloatSlots.java", H3_OLD, "",
     "RowFloatSlotsTest", "an updated vector's row does not carry the links over"),
    ("H3m", "bookkeeping", "hnsw/RowFloatSlots.java", H3_OLD, "",
     "GraphLinksScenario", "an updated row does not carry the links over (model-checked)"),
    # The posting lists (issue 70, step 13): no racing test covers their publication, so only the
    # model-checked rows exist.
    ("Q5m", "ordering", "postings/PostingList.java",
     "    PostingBlock copy = new PostingBlock(size + 1);\n",
     "    PostingBlock copy = new PostingBlock(size + 1);\n    BLOCKS.setRelease(d.blocks, lo, copy);\n",
     "PostingListScenario", "an inserted block's copy is published before it is filled (model-checked)"),
    ("Q6m", "ordering", "postings/PostingList.java",
     "      BLOCKS.setRelease(d.blocks, n, b);\n      d.count = n + 1;\n",
     "      d.count = n + 1;\n      BLOCKS.setRelease(d.blocks, n, b);\n",
     "PostingListScenario", "the directory's count is raised before the new block is stored (model-checked)"),
    ("Q7m", "ordering", "postings/PostingBlock.java",
     "    int n = writerSize();\n    docs[n] = doc;\n",
     "    int n = writerSize();\n    SIZE.setRelease(this, n + 1);\n    docs[n] = doc;\n",
     "PostingListScenario", "an append publishes the block's size before the posting (model-checked)"),
    ("Q8m", "ordering", "postings/PostingList.java",
     "    PostingBlock[] blocks = new PostingBlock[Math.max(4, n + 1 + (n >> 2))];\n",
     "    PostingBlock[] blocks = new PostingBlock[Math.max(4, n + 1 + (n >> 2))];\n"
     "    dir = new Directory(blocks, n + 1);\n",
     "PostingListScenario", "a split's directory is published before its blocks are in it (model-checked)"),
]


PACKAGES = {
    "GenerationHandlerTest": "org.searchlab.mutable.memory.",
    "PagedColumnsTest": "org.searchlab.mutable.memory.",
    "PagedBitsTest": "org.searchlab.mutable.memory.",
    "LocalIdsTest": "org.searchlab.mutable.",
    "CompactorTest": "org.searchlab.mutable.",
    "AttributeStoreTest": "org.searchlab.mutable.attributes.",
    "LexicalQueryTest": "org.searchlab.mutable.postings.",
    "PublicationProtocolTest": "org.searchlab.mutable.",
    "GenerationHandlerScenario": "org.searchlab.mutable.modelcheck.",
    "PagedColumnsScenario": "org.searchlab.mutable.modelcheck.",
    "LocalIdsScenario": "org.searchlab.mutable.",
    "AttributeSeqlockScenario": "org.searchlab.mutable.modelcheck.",
    "RowFloatSlotsTest": "org.searchlab.mutable.hnsw.",
    "GraphLinksScenario": "org.searchlab.mutable.hnsw.",
    "PostingListScenario": "org.searchlab.mutable.postings.",
}
# /work/tools/cpu queues CPU-heavy commands on the shared machine where it exists; elsewhere run directly.
CPU = ["/work/tools/cpu", "build"] if os.path.exists("/work/tools/cpu") else []
WORK = pathlib.Path(os.environ.get("MUTATION_WORK", "/tmp/searchlab-mutations"))
JAVA = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "java")
JAVAC = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "javac")


def prepare():
    """Compiles the module and its tests once and records their class path (one Maven build)."""
    WORK.mkdir(parents=True, exist_ok=True)
    cp_file = WORK / "cp.txt"
    subprocess.run([*CPU, "./mvnw", "-q", "-B", "-o", "-pl", "index-mutable",
                    "-am", "test-compile", "dependency:build-classpath",
                    "-Dmdep.outputFile=" + str(cp_file), "-Dmdep.includeScope=test",
                    "-Dspotless.check.skip=true"], cwd=ROOT, check=True)
    mod = ROOT / "index-mutable" / "target"
    return ":".join([str(mod / "test-classes"), str(mod / "classes"), cp_file.read_text().strip()])


def run_test(test, file, mutant_source, classpath):
    """Compiles the one mutated file ahead of the module's classes and runs the test class."""
    out = WORK / "mutant"
    subprocess.run(["rm", "-rf", str(out)], check=True)
    (out / "src").mkdir(parents=True)
    src = out / "src" / pathlib.Path(file).name
    src.write_text(mutant_source)
    javac = subprocess.run([JAVAC, "-nowarn", "-d", str(out / "classes"), "-cp", classpath,
                            str(src)], capture_output=True, text=True)
    if javac.returncode != 0:
        return True, "COMPILATION ERROR (fix the mutation): " + javac.stderr[:200], 0
    flags = FLAGS.split() + (STRESS.split() if os.environ.get("STRESS") else [])
    # LINCHECK_BOUND, e.g. "-Dlincheck.iterations=100 -Dlincheck.invocations=10000", sets the
    # model-checked scenarios' bound (their suite bound otherwise).
    flags += os.environ.get("LINCHECK_BOUND", "").split()
    cmd = [*CPU, JAVA, *flags, "-Xmx1g", "-cp",
           str(out / "classes") + ":" + classpath,
           str(pathlib.Path(__file__).with_name("RunTests.java")), PACKAGES[test] + test]
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=3600)
        failed = p.returncode != 0
        lines = [l.strip() for l in p.stdout.splitlines() if l.strip()]
        reason = next((l for l in lines if l.startswith("=>")), lines[-1] if lines else p.stderr[-200:])
    except subprocess.TimeoutExpired:
        failed, reason = True, "hung (killed after 3600 s, lock wait included)"
    return failed, reason, time.time() - start


def control(classpath):
    """Runs every test class on the unmutated code: each must pass, or the table means nothing."""
    for test in PACKAGES:
        file = next(f for _, _, f, _, _, t, _ in MUTATIONS if t == test)
        failed, reason, secs = run_test(test, file, (ROOT / SRC / file).read_text(), classpath)
        print("control %-22s %s (%.0f s)" % (test, "FAILS: " + reason if failed else "passes", secs))


def main(selected):
    classpath = prepare()
    if "control" in selected:
        control(classpath)
        return
    rows = []
    for mid, kind, file, old, new, test, what in MUTATIONS:
        if selected and mid not in selected:
            continue
        path = ROOT / SRC / file
        original = path.read_text()
        if original.count(old) != 1:
            rows.append((mid, kind, what, test, "MUTATION DOES NOT APPLY", ""))
            continue
        failed, reason, secs = run_test(test, file, original.replace(old, new), classpath)
        verdict = "caught" if failed else "SURVIVED"
        rows.append((mid, kind, what, test, verdict, "%s (%.0f s)" % (reason[:110], secs)))
        print("%s %-8s %s -> %s: %s" % (mid, verdict, what, test, reason[:110]), flush=True)
    print("\n| id | kind | mutation | test | result |\n| --- | --- | --- | --- | --- |")
    for mid, kind, what, test, verdict, detail in rows:
        print("| %s | %s | %s | %s | %s |" % (mid, kind, what, test, verdict))


if __name__ == "__main__":
    main(set(sys.argv[1:]))
