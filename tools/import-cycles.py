#!/usr/bin/env python3
"""Module import cycles in the Rust crates: reads every `use` (and `super::`/`crate::` paths
in code) of each file, maps it to the module file it names, and prints each cycle among
modules of one crate. Test modules (`#[cfg(test)] mod tests`) and test-only files are left
out: a test may import anything. Exit 1 when a cycle is found.

    python3 tools/import-cycles.py [crate_src_dir ...]   (default: core/src src cli/src)
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*?)\};", re.S)


def module_of(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_tests(text):
    # Drop everything from a `#[cfg(test)]` item on: by convention the tests module is last.
    cut = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod \w+ \{", text, re.M)
    text = text[: cut.start()] if cut else text
    text = re.sub(r"//[^\n]*", "", text)
    return text


def reexports(files):
    """`pub use child::Name` in a parent module: the name stands for that child."""
    out = {}
    for m, p in files.items():
        text = strip_tests(open(p, encoding="utf-8").read())
        for child, names in re.findall(r"^pub use (\w+)::\{?([^;}]*)\}?;", text, re.M):
            for name in names.split(","):
                name = name.strip().split(" as ")[-1]
                if name and (*m, child) in files:
                    out[(*m, name)] = (*m, child)
    return out


def targets(module, is_dir, base, rest, modules, alias):
    parts = [p for p in rest.split("::") if p]
    if base == "crate":
        at = []
    else:
        at = list(module) if is_dir else list(module[:-1])
        while parts and parts[0] == "super":
            parts.pop(0)
            at = at[:-1]
    # The longest prefix that is a module of the crate.
    path = at + parts
    for n in range(len(path), len(at) - 1, -1):
        if n < len(path) and tuple(path[: n + 1]) in alias:
            return alias[tuple(path[: n + 1])]
        if tuple(path[:n]) in modules:
            return tuple(path[:n])
    return None


def cycles(root):
    files = {}
    for d, _, names in os.walk(root):
        for name in names:
            if name.endswith(".rs"):
                p = os.path.join(d, name)
                files[module_of(root, p)] = p
    modules = set(files)
    alias = reexports(files)
    edges = {m: set() for m in modules}
    for m, p in files.items():
        is_dir = os.path.basename(p) in ("mod.rs", "lib.rs", "main.rs")
        text = strip_tests(open(p, encoding="utf-8").read())
        for base, prefix, inner in GROUP.findall(text):
            for item in re.split(r",", inner):
                item = item.strip().split(" as ")[0].split("::{")[0]
                if item and item != "self":
                    t = targets(m, is_dir, base, prefix + "::" + item, modules, alias)
                    if t:
                        edges[m].add(t)
        for base, rest in PATH.findall(text):
            t = targets(m, is_dir, base, rest, modules, alias)
            if t:
                edges[m].add(t)
    # A module naming its parent (mod.rs) is its re-exports, not a dependency on siblings;
    # parents and children are left out, as `pub use` in mod.rs is how a family exposes
    # its parts.
    for m in edges:
        edges[m] = {t for t in edges[m] if t != m and t[: len(m)] != m and m[: len(t)] != t}
    found, index, low, stack, on, counter = [], {}, {}, [], set(), [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(modules):
        if v not in index:
            visit(v)
    return found


def main():
    roots = sys.argv[1:] or ["core/src", "src", "cli/src"]
    bad = 0
    for root in roots:
        for comp in cycles(root):
            bad += 1
            print(f"{root}: cycle among " + ", ".join("::".join(c) or "<root>" for c in comp))
    print(f"import cycles: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
