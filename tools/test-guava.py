#!/usr/bin/env python3
"""`make test-guava`: filters made by rsbloom and exported with `rsbloom-cli export-guava` are
read by the real Guava (through tools/guava/GuavaProbe.java) with identical answers, and
filters made by Guava import with `rsbloom-cli import-guava` and answer as Guava does.

Usage: test-guava.py [GUAVA_CLASSPATH]
  The classpath holds guava.jar and the compiled GuavaProbe.class; the default,
  /usr/share/java/guava.jar:target/guava-check, is where `make test-guava` puts them
  (javac -cp /usr/share/java/guava.jar -d target/guava-check tools/guava/GuavaProbe.java).
Needs java, redis-server, target/release/librsbloom.so and target/release/rsbloom-cli.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.path.join(ROOT, "target/release/librsbloom.so")
CLI = os.path.join(ROOT, "target/release/rsbloom-cli")
PROBE_CLASS = "GuavaProbe"
DEFAULT_CLASSPATH = "/usr/share/java/guava.jar:" + os.path.join(ROOT, "target/guava-check")
# (capacity, error rate, items added, queries)
CASES = [
    (1, 0.01, 1, 2000),
    (10, 0.5, 10, 2000),
    (100, 0.01, 100, 5000),
    (1000, 0.001, 700, 5000),
    (5, 1e-6, 5, 2000),
    (100000, 0.01, 100000, 20000),
    (1000000, 0.03, 300000, 20000),
]


def run(args, **kw):
    kw.setdefault("check", True)
    return subprocess.run(args, **kw)


def main():
    classpath = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_CLASSPATH
    tmp = tempfile.mkdtemp(prefix="rsbloom-guava-")
    sock = os.path.join(tmp, "redis.sock")
    server = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", sock, "--dir", tmp, "--save", "",
         "--appendonly", "no", "--loadmodule", MODULE],
        stdout=open(os.path.join(tmp, "redis.log"), "w"), stderr=subprocess.STDOUT)
    failures = 0
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        url = "redis+unix://" + sock
        rcli = ["redis-cli", "-s", sock]

        def guava(*args, **kw):
            return run(["java", "-cp", classpath, PROBE_CLASS, *args], **kw)

        def ask(key, texts):
            """Our answers for these text items (BF.MEXISTS in batches)."""
            lines = []
            for i in range(0, len(texts), 1000):
                lines.append("BF.MEXISTS %s %s" % (key, " ".join(texts[i:i + 1000])))
            out = run(rcli, input="\n".join(lines) + "\n", capture_output=True, text=True).stdout
            return [int(x) for x in out.split()]

        for n, p, added, nq in CASES:
            name = "n%d_p%g" % (n, p)
            items = ["i:%d" % i for i in range(added)]
            queries = ["q:%d" % i for i in range(nq)]
            hexes = lambda texts: "".join(t.encode().hex() + "\n" for t in texts)
            items_hex = os.path.join(tmp, name + ".items.hex")
            with open(items_hex, "w") as f:
                f.write(hexes(items))
            queries_hex = os.path.join(tmp, name + ".queries.hex")
            with open(queries_hex, "w") as f:
                f.write(hexes(queries))

            # rsbloom -> Guava.
            key = "ours:" + name
            cmds = ["BF.RESERVE %s %r %d NONSCALING" % (key, p, n)]
            cmds += ["BF.MADD %s %s" % (key, " ".join(items[i:i + 1000]))
                     for i in range(0, added, 1000)]
            run(rcli, input="\n".join(cmds) + "\n", capture_output=True, text=True)
            ours = os.path.join(tmp, name + ".ours.bin")
            run([CLI, "--url", url, "export-guava", key, ours])
            answers = ask(key, items + queries)
            expect = os.path.join(tmp, name + ".expect.tsv")
            with open(expect, "w") as f:
                for t, a in zip(items + queries, answers):
                    f.write("%s\t%d\n" % (t.encode().hex(), a))
            ok = True
            if any(a != 1 for a in answers[:added]):
                print("FAIL %s: an added item answers 0 in rsbloom" % name)
                ok = False
            if guava("verify", ours, expect, capture_output=True, check=False).returncode != 0:
                print("FAIL %s: Guava's answers on the exported filter differ from rsbloom's" % name)
                ok = False
            ref = os.path.join(tmp, name + ".guava.bin")
            guava("create", str(n), repr(p), items_hex, ref, capture_output=True)
            if guava("same", ours, ref, capture_output=True, check=False).returncode != 0:
                print("FAIL %s: Guava does not read the export as equal to its own filter" % name)
                ok = False
            if open(ours, "rb").read() != open(ref, "rb").read():
                print("FAIL %s: exported bytes differ from Guava's writeTo()" % name)
                ok = False

            # Guava -> rsbloom.
            key2 = "guava:" + name
            run([CLI, "--url", url, "import-guava", key2, ref])
            theirs = guava("query", ref, queries_hex, capture_output=True, text=True).stdout
            theirs = [int(line.split("\t")[1]) for line in theirs.splitlines() if "\t" in line]
            if theirs != ask(key2, queries) or any(a != 1 for a in ask(key2, items)):
                print("FAIL %s: the imported Guava filter answers differently" % name)
                ok = False
            fps = sum(answers[added:])
            print("%s %s: %d items, %d queries (%d false positives), %d bytes" % (
                "ok  " if ok else "FAIL", name, added, nq, fps, os.path.getsize(ours)))
            failures += 0 if ok else 1
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("test-guava: %d of %d cases failed" % (failures, len(CASES)))
        sys.exit(1)
    print("test-guava: all %d cases agree with Guava" % len(CASES))


if __name__ == "__main__":
    main()
