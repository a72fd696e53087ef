#!/usr/bin/env python3
"""Checks that every repository path the documentation names exists in the tree.

Reads README.md, CONTRIBUTING.md (when there is one), docs/*.md and the notes of
scripts/bench/results/*.md, and checks two kinds of reference:

* paths written in backticks or in fenced code blocks: `core/algo/algos.def`,
  `scripts/bench/run.sh --reps 5` (each word is looked at), `tests/unit/test_*.c` (a glob must
  match a file), `launch/{local,ssh}.c` (each alternative must exist), `stepnet/topo.h` (the public
  headers, include/stepnet/), `core/topo/topo.c:10-67` (the line numbers are dropped);
* relative markdown links and images, `[usage](docs/usage.md)`, resolved from the file that holds
  them, and their anchors (`docs/runtime.md#deadlines`, `#fuzzing`) against the target's headings
  as GitHub forms them.

A word counts as a repository path when it has a slash and starts with a top-level folder of the
repository (core/, docs/, tests/, ...) or names a file at its root (README.md/...): an editor's
path elsewhere (libuv's src/unix/stream.c) is another project's. Not checked: URLs; absolute paths
(/proc, /etc, /usr, /tmp: the machine's, not the tree's); words with a placeholder in capitals
(fuzz_TARGET.c, corpus/TARGET/) when no such file exists; and what a clean tree does not hold:
the paths .gitignore names (build/ and build-*/, build/stepnet, protoc-c's *.pb-c.[ch], the
cluster key deploy/stepnet.key a user makes) and generated/ (the version header CMake writes into
the build folder).

Usage: tests/docs_paths.py [REPOSITORY] (default: the folder above this script). Exit status 0
when every path exists, 1 with one line per stale path (file:line: the path and why), 2 on bad
usage. tests/docs_paths.py --self-test checks the checker on a small tree of its own, with a stale
path of every kind and a reference of every kind that must pass. CTest runs both as the unit tests
docs_paths and docs_paths_self.
"""
import fnmatch
import glob
import os
import re
import sys
import tempfile

# Top-level folders, in case one disappears altogether (its paths must still be checked); the
# folders present in the tree are added to these.
KNOWN_TOP = {
    ".ci", "bench", "cli", "cmake", "coordinator", "core", "debian", "deploy", "docs", "include",
    "launch", "net", "node", "proc", "proto", "scripts", "tests",
}
GENERATED = "generated/"
PLACEHOLDER = re.compile(r"[A-Z]{2,}")
FENCE = re.compile(r"^\s*(```|~~~)")
BACKTICKS = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target ends at whitespace or the closing parenthesis.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
WORD_CHARS = re.compile(r"^[A-Za-z0-9_.+\-/*?{},\[\]]+$")


def headings_of(path, cache):
    """The anchors GitHub gives the headings of a markdown file (and explicit <a name> anchors)."""
    if path in cache:
        return cache[path]
    anchors = set()
    seen = {}
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for name in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                anchors.add(name)
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = re.sub(r"`([^`]*)`", r"\1", m.group(1))
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else "%s-%d" % (slug, n))
    cache[path] = anchors
    return anchors


def expand_braces(word):
    """launch/{local,ssh}.c -> launch/local.c, launch/ssh.c (one level, repeated)."""
    m = re.search(r"\{([^{}]*)\}", word)
    if not m:
        return [word]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(word[: m.start()] + alt + word[m.end():]))
    return out


class Checker:
    def __init__(self, root):
        self.root = root
        self.top = set(KNOWN_TOP)
        root_files = set()
        for name in os.listdir(root):
            full = os.path.join(root, name)
            if os.path.isdir(full) and not name.startswith(("build", ".git")):
                self.top.add(name)
            elif os.path.isfile(full):
                root_files.add(name)
        self.root_files = root_files | {"README.md", "CONTRIBUTING.md", "CMakeLists.txt"}
        self.ignored = []
        gitignore = os.path.join(root, ".gitignore")
        if os.path.isfile(gitignore):
            with open(gitignore, encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line and not line.startswith(("#", "!")):
                        self.ignored.append(line)
        self.stale = []
        self.anchor_cache = {}

    def is_ignored(self, rel):
        """Whether .gitignore names rel or a folder above it (its common forms: /dir/, *.o)."""
        parts = rel.rstrip("/").split("/")
        for pat in self.ignored:
            dir_only = pat.endswith("/")
            core = pat.strip("/")
            anchored = pat.startswith("/") or "/" in core
            for i in range(1, len(parts) + 1):
                if dir_only and i == len(parts) and not rel.endswith("/"):
                    continue
                name = "/".join(parts[:i]) if anchored else parts[i - 1]
                if fnmatch.fnmatchcase(name, core):
                    return True
        return False

    def report(self, doc, lineno, what):
        self.stale.append("%s:%d: %s" % (os.path.relpath(doc, self.root), lineno, what))

    def exists(self, rel):
        full = os.path.join(self.root, rel)
        if any(c in rel for c in "*?["):
            return bool(glob.glob(full))
        if rel.endswith("/"):
            return os.path.isdir(full)
        return os.path.exists(full)

    def check_word(self, doc, lineno, word):
        if "..." in word:  # node/...: an ellipsis, not a path
            return
        word = word.strip("\"'(),;:").rstrip(".")
        word = re.sub(r":[0-9][0-9,\-]*$", "", word)  # core/topo/topo.c:10-67
        if "/" not in word or "://" in word or not WORD_CHARS.match(word):
            return
        if word.startswith(("/", "~", "$", "-", "./", "../")) or "//" in word:
            return
        first = word.split("/", 1)[0]
        if first == "stepnet" and word.endswith(".h"):  # "stepnet/NAME.h": include/stepnet/
            word = "include/" + word
            first = "include"
        if first not in self.top and first not in self.root_files:
            return
        if word.startswith(GENERATED) or self.is_ignored(word):
            return
        for path in expand_braces(word):
            if self.exists(path):
                continue
            if PLACEHOLDER.search(path):
                continue  # fuzz_TARGET.c, corpus/TARGET/: a placeholder, not a file
            self.report(doc, lineno, "`%s` does not exist" % path)

    def check_link(self, doc, lineno, target):
        if re.match(r"^[a-z][a-z0-9+.\-]*:", target):  # http:, https:, mailto:
            return
        path, _, anchor = target.partition("#")
        if path:
            full = os.path.normpath(os.path.join(os.path.dirname(doc), path))
            if not os.path.exists(full):
                self.report(doc, lineno, "link (%s): %s does not exist"
                            % (target, os.path.relpath(full, self.root)))
                return
        else:
            full = doc
        if anchor and full.endswith(".md") and os.path.isfile(full):
            if anchor not in headings_of(full, self.anchor_cache):
                self.report(doc, lineno, "link (%s): %s has no heading for #%s"
                            % (target, os.path.relpath(full, self.root), anchor))

    def check_file(self, doc):
        in_fence = False
        with open(doc, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if FENCE.match(line):
                    in_fence = not in_fence
                    continue
                if in_fence:
                    for word in line.split():
                        self.check_word(doc, lineno, word)
                    continue
                for m in LINK.finditer(line):
                    self.check_link(doc, lineno, m.group(1))
                for m in BACKTICKS.finditer(line):
                    for word in m.group(2).split():
                        self.check_word(doc, lineno, word)


def check_tree(root):
    """The Checker of root after it read every documentation file."""
    docs = [os.path.join(root, n) for n in ("README.md", "CONTRIBUTING.md")]
    docs += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    docs += sorted(glob.glob(os.path.join(root, "scripts", "bench", "results", "*.md")))
    checker = Checker(root)
    checker.files = [d for d in docs if os.path.isfile(d)]
    for doc in checker.files:
        checker.check_file(doc)
    return checker


SELF_FILES = {
    ".gitignore": "/build/\n*.o\n/deploy/stepnet.key\n",
    "core/topo/topo.c": "",
    "core/algo/algos.def": "",
    "launch/local.c": "",
    "launch/ssh.c": "",
    "include/stepnet/topo.h": "",
    "tests/unit/test_topo_props.c": "",
    "scripts/bench/results/notes.md": "[back](../../../docs/usage.md#running-a-job)\n",
    "docs/usage.md": "# Usage\n\n## Running a job\n\n## Running a job\n\n## `--sync` (the mode)\n",
    "docs/model.md": (
        "# Model\n\n"
        "Fine: `core/topo/topo.c:10-67`, `core/algo/algos.def`, `launch/{local,ssh}.c`,\n"
        "`stepnet/topo.h`, `tests/unit/test_*.c`, `scripts/bench/`, [u](usage.md),\n"
        "[r](usage.md#running-a-job-1), [s](usage.md#--sync-the-mode), [self](#model),\n"
        "[web](https://example.org/x.md), `build/stepnet`, `deploy/stepnet.key`, `core/x.o`,\n"
        "`generated/stepnet_version.h`, `tests/fuzz/fuzz_TARGET.c`, `/proc/self/status`,\n"
        "`src/unix/stream.c` (libuv's), `node/...`.\n"
        "```sh\n"
        "scripts/bench/results/notes.md --reps 5\n"
        "```\n"
        "Stale: `core/topo/gone.c`,\n"
        "`launch/{local,daemons}.c`, `stepnet/gone.h`, `tests/unit/test_*.x`, `scripts/nothing/`,\n"
        "[a](gone.md), [b](usage.md#no-such-heading), [c](#nowhere).\n"
        "```\n"
        "core/topo/also_gone.c\n"
        "```\n"
    ),
}
SELF_STALE = [
    "docs/model.md:12: `core/topo/gone.c` does not exist",
    "docs/model.md:13: `launch/daemons.c` does not exist",
    "docs/model.md:13: `include/stepnet/gone.h` does not exist",
    "docs/model.md:13: `tests/unit/test_*.x` does not exist",
    "docs/model.md:13: `scripts/nothing/` does not exist",
    "docs/model.md:14: link (gone.md): docs/gone.md does not exist",
    "docs/model.md:14: link (usage.md#no-such-heading): docs/usage.md has no heading for "
    "#no-such-heading",
    "docs/model.md:14: link (#nowhere): docs/model.md has no heading for #nowhere",
    "docs/model.md:16: `core/topo/also_gone.c` does not exist",
]


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for rel, text in SELF_FILES.items():
            full = os.path.join(root, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        got = check_tree(root).stale
    if sorted(got) != sorted(SELF_STALE):
        print("docs_paths --self-test: the checker reported")
        for s in got:
            print("  " + s)
        print("where it should report")
        for s in SELF_STALE:
            print("  " + s)
        return 1
    print("docs_paths --self-test: %d stale paths found, every valid one passed" % len(got))
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.split("\n\n")[-1].strip(), file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1] if len(argv) == 2 else
                           os.path.join(os.path.dirname(__file__), ".."))
    checker = check_tree(root)
    if checker.stale:
        print("docs_paths: %d stale path%s in the documentation (fix the path, or the file it "
              "names):" % (len(checker.stale), "" if len(checker.stale) == 1 else "s"))
        for s in checker.stale:
            print("  " + s)
        return 1
    print("docs_paths: every path named in %d files exists" % len(checker.files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
