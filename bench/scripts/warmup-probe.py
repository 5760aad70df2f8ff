#!/usr/bin/env python3
"""How a fresh segmented server's cost per query falls while its JIT warms up.

Starts one server (the segment sweep's flags, sequential search) on a copy of an index the sweep
kept, warms it as the sweep first warmed a query type (4-client rounds of 0.4 s until two in a row
agree on QPS within 10%, at most 8), or for WARM_SECONDS at 4 clients when that is set, or, with
WARMUP=jit, as the sweep warms it since (WarmupRule: 1 s rounds of the measured requests until
the CPU per query and the JIT compiler threads are both done; prints the curve), then sends the
sweep's filtered lexical requests from one client and prints the server's CPU ms per query
(compiler threads included) in each 1.2 s window (from /proc/<pid>/stat, Linux only). Repeats
for STARTS fresh starts.

  bin/searchlab experiment --profile sweep --sweep-segments 100,10 --sweep-clients 1 \
      --sweep-rounds 1 --keep-data --out results/probe      # the index: results/probe/data/sweep/10-seq
  cp -r results/probe/data/sweep/10-seq /tmp/idx10
  python3 bench/scripts/warmup-probe.py . /tmp/idx10 6 40     # ROOT INDEX_DIR STARTS WINDOWS [JVM flags]

ROOT is the checkout (its built distribution jars and data/debian/queries.ndjson); JAVA names the
java binary (default: java on the PATH, which must be 21 or newer). Used for issue 71's finding
that the sweep measured its servers before their JIT was warm, and for the warm-up that replaced
it (docs/benchmark.md).
"""
import http.client, json, os, subprocess, sys, threading, time, socket

root, index, starts, windows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
jvm_extra = sys.argv[5:]
queries = [json.loads(l) for l in open(os.path.join(root, 'data/debian/queries.ndjson')) if l.strip()]
def body(q, filtered):
    b = {"size": 10, "_source": False, "query": {"bool": {"must": {"multi_match": {
        "query": q["text"], "fields": ["title", "description"], "type": "best_fields"}}}}}
    if filtered:
        b["query"]["bool"]["filter"] = [{"term": {"category": q["category"]}}]
    return json.dumps(b).encode()
filtered = [body(q, True) for q in queries]
mixed = [body(q, f) for q in queries for f in (False, True)]

def free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p

def compiler_ticks(pid):
    """CPU ticks of the JVM's JIT compiler threads (named "C1/C2 CompilerThre...")."""
    t = 0
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            if open(f'/proc/{pid}/task/{tid}/comm').read().startswith(('C1 CompilerThre', 'C2 CompilerThre')):
                f = open(f'/proc/{pid}/task/{tid}/stat').read().rsplit(')', 1)[1].split()
                t += int(f[11]) + int(f[12])
        except OSError: pass
    return t

def ticks(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return int(f[11]) + int(f[12])

def run(port, reqs, seconds, stop_at=None):
    c = http.client.HTTPConnection('127.0.0.1', port)
    n, i, end = 0, 0, time.time() + seconds
    while time.time() < end:
        c.request('POST', '/product/_search', reqs[i % len(reqs)], {'Content-Type': 'application/json'})
        r = c.getresponse(); r.read()
        if r.status != 200: raise SystemExit(f'status {r.status}')
        n += 1; i += 1
    c.close()
    return n

java = os.environ.get('JAVA', 'java')
cp = f'{root}/distribution/target/searchlab-distribution-0.1.0-SNAPSHOT.jar:{root}/distribution/target/lib/*'
for start in range(starts):
    port = free_port()
    log = open(os.path.join(os.path.dirname(os.path.abspath(index)), f'probe-server-{start}.log'), 'w')
    cmd = [java, '--add-modules', 'jdk.incubator.vector', '--enable-native-access=ALL-UNNAMED', '-Xms3g', '-Xmx3g',
           '-XX:+UseG1GC', '-XX:MaxTenuringThreshold=1', '-XX:-UseDynamicNumberOfCompilerThreads',
           '-XX:+UseTransparentHugePages', *jvm_extra, '-cp', cp, 'org.searchlab.distribution.SearchlabCli', 'serve',
           '--host', '127.0.0.1', '--port', str(port), '--data-dir', index, '--store', 'segmented', '--dims', '384',
           '--merge-policy', 'none', '--segment-search-threads=0', '--refresh-interval-ms=-1']
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(600):
        try:
            socket.create_connection(('127.0.0.1', port), 0.2).close(); break
        except OSError: time.sleep(0.1)
    t0 = time.time()
    if os.environ.get('WARMUP') == 'jit':
        # the sweep's warm-up since (WarmupRule): 4-client rounds of 1 s on the measured requests;
        # stop when 3 rounds in a row neither lower the best CPU ms per query (compilers left out)
        # by more than 3% nor give the compiler threads more than 5% of the CPU (5 to 60 rounds)
        curve, share = [], []
        for r in range(60):
            counts = [0] * 4
            a, ca = ticks(p.pid), compiler_ticks(p.pid)
            def w(k): counts[k] = run(port, filtered[k::4], 1.0)
            ts = [threading.Thread(target=w, args=(k,)) for k in range(4)]
            [t.start() for t in ts]; [t.join() for t in ts]
            tt, ct = ticks(p.pid) - a, compiler_ticks(p.pid) - ca
            curve.append((tt - ct) * 10.0 / max(1, sum(counts))); share.append(ct / max(1, tt))
            if len(curve) >= 5 and min(curve[-3:]) >= min(curve[:-3]) * 0.97 and max(share[-3:]) <= 0.05:
                break
        print(f'  warm-up {len(curve)} rounds, CPU ms/query: ' + ' '.join(f'{x:.2f}' for x in curve), flush=True)
        print(f'  compiler threads\' share: ' + ' '.join(f'{x:.2f}' for x in share), flush=True)
    else:
        # the sweep's first warm-up, as Session.warmUp did for one type: 4 clients, 0.4 s rounds
        # until two agree within 10% (at most 8), or WARM_SECONDS at 4 clients on the mixed requests
        prev = -1
        fixed = float(os.environ.get('WARM_SECONDS', '0'))
        if fixed > 0:
            counts = [0] * 4
            def w(k): counts[k] = run(port, mixed[k::4], fixed)
            ts = [threading.Thread(target=w, args=(k,)) for k in range(4)]
            [t.start() for t in ts]; [t.join() for t in ts]
            print(f'  warmed {fixed}s at 4 clients: {sum(counts)} queries', flush=True)
        for r in range(0 if fixed > 0 else 8):
            counts = [0] * 4
            def w(k): counts[k] = run(port, mixed[k::4], 0.4)
            ts = [threading.Thread(target=w, args=(k,)) for k in range(4)]
            [t.start() for t in ts]; [t.join() for t in ts]
            q = sum(counts) / 0.4
            if prev > 0 and abs(q - prev) <= 0.1 * prev: break
            prev = q
    out = []
    for win in range(windows):
        a = ticks(p.pid); n = run(port, filtered[(win * 97) % len(filtered):] + filtered, 1.2); b = ticks(p.pid)
        out.append((b - a) * 10.0 / n)
    print(f'start {start}: ' + ' '.join(f'{x:.2f}' for x in out), flush=True)
    print(f'  at {time.time()-t0:.0f}s after start; median {sorted(out)[len(out)//2]:.2f}', flush=True)
    p.terminate(); p.wait()
