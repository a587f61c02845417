#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn this repository into a numbered series of patches for review.

  series.py [--out DIR] [--list]

The split is defined by the files in series/ at the top of the repository
that git tracks (an untracked one is named in a warning and not read),
one per patch, taken in the order of their names.  Each starts with a
header, ends it with a blank line, and continues with the changelog:

  File: include/linux/codetag.h
  File: lib/codetag.c
  File: Kconfig.patch lib/Kconfig
  Subject: codetag: find tags in an ELF section of vmlinux and modules

  Why the patch is needed (the problem first), what it does, what it costs.

"File: PATH" names a repository file: a new kernel file, or a ".patch" file,
which then goes whole into this patch.  "File: X.patch TARGET..." takes only
the named kernel files of a .patch file that edits several (Kconfig.patch).
The order of the File lines is the order of the diffs in the patch.

"Takes: KERNEL-FILE REGEX" moves part of a file that an earlier patch owns
into this one: the lines that match REGEX (a Python regular expression,
searched in each line), and for a line that starts a Kconfig entry
("config FOO") the whole entry, are left out of the earlier patch and
added by this one.  Used for the KUnit symbols and Makefile lines, which
belong with the tests, in files that the core patch creates.
"Takes: KERNEL-FILE REGEX => TEXT" instead gives the earlier patches the
line with the match replaced by TEXT, and this patch changes it to the
final form: for a call of a function that only this patch introduces.
"Takes-block: KERNEL-FILE REGEX", for a C file, moves whole blocks: a
matching line at file level takes its definition (through the "}" at the
start of a line or the ";" that ends it) and the comment just above it; a
matching line in a comment at file level takes the comment and the
definition that follows it; an indented matching line takes its block
through the "}" at its indentation if it ends in "{", the one-line body
on the next line if it ends in ")", and itself alone if it ends a
statement.  Any other shape (a preprocessor line, a "} else {", a block
that does not balance) stops the script.  For code that exists only for
this patch's feature.

Every kernel file of the repository (every new file, and every file edited
by a .patch file) must belong to exactly one patch: the script stops and
names the file otherwise, so that a file added to the repository is not
silently left out of the series.  The repository's files are those that
git tracks, committed or added to the index (tree.py's repo_files()): a
build output such as tools/vm/allocinfo, which .gitignore lists, or any
other untracked file is no kernel file (untracked ones that .gitignore
does not list are named in a warning); "git add" a new file to take it.

Patch k holds, for each kernel file assigned to it, the diff from the base
tree to the file as the repository makes it: the tree after patch k is the
base plus every file of patches 1..k.  The files are computed with tree.py's
own code, so that the tree after the last patch is the tree "tree.py tree"
makes.  The output in DIR (default build/series) is one mail per patch in
"git format-patch" form and a quilt "series" file.

It runs python3, git, patch and diff, on the base tree that "make tree"
unpacks into build/pristine (unpacked here from linux-source-6.1 if it
is not yet); "make series" installs those and nothing else.
"""

import argparse
import email.utils
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AUTHOR = "Allocation Profiling Maintainers <alloc-prof@example.invalid>"
SUBJECT_MAX = 72
BODY_MAX = 75


def load_tree():
    spec = importlib.util.spec_from_file_location(
        "allocprof_tree", os.path.join(HERE, "tree.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


tree = load_tree()
TOP = tree.TOP
SERIES_DIR = os.path.join(TOP, "series")


def die(msg):
    sys.stderr.write("series: %s\n" % msg)
    sys.exit(1)


def is_tool_artifact(path):
    """Files that tools leave behind and that are never kernel content."""
    # checkpatch.pl caches CamelCase words in the current directory when
    # that is the top of a git tree.
    return "/" not in path and path.startswith(".checkpatch-camelcase.")


class Patch:
    def __init__(self, src):
        self.src = src                  # series/NNNN-name.txt
        self.name = os.path.splitext(os.path.basename(src))[0]
        self.entries = []               # (repo file, [targets] or None)
        self.subject = None
        self.body = ""
        self.files = []                 # kernel files, in order
        self.takes = []                 # (kernel file, (regex, text|BLOCK|None))


def parse_series_file(path):
    p = Patch(os.path.relpath(path, TOP))
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines) and lines[i].strip():
        line = lines[i]
        i += 1
        if line.startswith("#"):
            continue
        m = re.match(r"^([A-Za-z-]+):\s*(.*?)\s*$", line)
        if not m:
            die("%s:%d: expected 'File: ...' or 'Subject: ...'" % (p.src, i))
        key, val = m.group(1).lower(), m.group(2)
        if key == "file":
            words = val.split()
            if not words:
                die("%s:%d: File: needs a repository path" % (p.src, i))
            p.entries.append((words[0], words[1:] or None))
        elif key in ("takes", "takes-block"):
            words = val.split(None, 1)
            if len(words) != 2:
                die("%s:%d: Takes: needs a kernel file and a regex" %
                    (p.src, i))
            pattern, _, text = words[1].partition(" => ")
            if key == "takes-block":
                if _:
                    die("%s:%d: Takes-block: takes no '=> TEXT'" %
                        (p.src, i))
                text, _ = BLOCK, True
            try:
                p.takes.append((words[0], (re.compile(pattern),
                                           text if _ else None)))
            except re.error as e:
                die("%s:%d: Takes: bad regex: %s" % (p.src, i, e))
        elif key == "subject":
            if p.subject is not None:
                die("%s:%d: a second Subject:" % (p.src, i))
            p.subject = val
        else:
            die("%s:%d: unknown header '%s'" % (p.src, i, m.group(1)))
    if not p.subject:
        die("%s: no Subject:" % p.src)
    if not re.match(r"^[\w./-]+(, ?[\w./-]+)*: \S", p.subject):
        die("%s: subject '%s' is not 'subsystem: summary'" %
            (p.src, p.subject))
    if len(p.subject) > SUBJECT_MAX:
        die("%s: subject is %d characters, keep it within %d" %
            (p.src, len(p.subject), SUBJECT_MAX))
    if not p.entries:
        die("%s: no File: lines" % p.src)
    body = "\n".join(lines[i:]).strip("\n")
    if not body:
        die("%s: no changelog after the header" % p.src)
    for n, line in enumerate(body.split("\n")):
        if len(line) > BODY_MAX and not re.match(r"^\s", line):
            die("%s: changelog line '%s...' is longer than %d characters" %
                (p.src, line[:30], BODY_MAX))
    p.body = body
    return p


def read_series():
    if not os.path.isdir(SERIES_DIR):
        die("no %s directory" % SERIES_DIR)
    names = sorted(n for n in os.listdir(SERIES_DIR)
                   if n.endswith(".txt") and re.match(r"^\d{4}-", n))
    if tree.is_git_checkout():
        tracked = {os.path.basename(p) for p in tree.git_files("--cached",
                                                                "series/")}
        left = [n for n in names if n not in tracked]
        if left:
            sys.stderr.write("series: warning: left out, not tracked by "
                             "git (git add to take): %s\n" %
                             " ".join("series/" + n for n in left))
        names = [n for n in names if n in tracked]
    if not names:
        die("no series/NNNN-*.txt files")
    return [parse_series_file(os.path.join(SERIES_DIR, n)) for n in names]


def assign(patches):
    """Map every kernel file to its patch; fail on gaps and duplicates."""
    new, patch_files = tree.repo_files()
    skipped = [f for f in new if is_tool_artifact(f)]
    for f in skipped:
        sys.stderr.write("series: warning: ignoring %s, a checkpatch cache "
                         "file, not kernel content: remove it from the "
                         "repository\n" % f)
    new = [f for f in new if not is_tool_artifact(f)]
    left = tree.untracked_files()
    if left:
        sys.stderr.write("series: warning: left out, not tracked by git "
                         "(git add to take): %s\n" % " ".join(left))
    targets = {p: tree.patch_targets(p) for p in patch_files}
    owner = {}          # kernel file -> Patch
    origin = {}         # kernel file -> repository file

    for p in patches:
        for repo, wanted in p.entries:
            if repo in targets:
                if wanted is None:
                    files = targets[repo]
                else:
                    for t in wanted:
                        if t not in targets[repo]:
                            die("%s: %s does not edit %s (it edits %s)" %
                                (p.src, repo, t, " ".join(targets[repo])))
                    files = wanted
            elif repo in new:
                if wanted:
                    die("%s: %s is a new file, not a .patch file: no "
                        "targets after it" % (p.src, repo))
                files = [repo]
            elif repo in left:
                die("%s: File: %s is not tracked by git: git add it" %
                    (p.src, repo))
            else:
                die("%s: File: %s is not a kernel file of the repository" %
                    (p.src, repo))
            for f in files:
                if f in owner:
                    die("%s is assigned twice: in %s and in %s" %
                        (f if f == repo else "%s (of %s)" % (f, repo),
                         owner[f].src, p.src))
                owner[f] = p
                origin[f] = repo
                p.files.append(f)

    missing = []
    for f in new:
        if f not in owner:
            missing.append(f)
    for repo, ts in sorted(targets.items()):
        for t in ts:
            if t not in owner:
                missing.append(repo if len(ts) == 1 else
                               "%s (target %s)" % (repo, t))
    if missing:
        die("not assigned to any patch in series/: %s" % ", ".join(missing))
    for k, p in enumerate(patches):
        for f, _ in p.takes:
            if f not in owner or patches.index(owner[f]) >= k:
                die("%s: Takes: %s, but no earlier patch has that file" %
                    (p.src, f))
    return new, targets, origin


# The replacement of a Takes-block: rule: not a text, the whole C block.
BLOCK = object()


def c_block_end(lines, i):
    """The index after the C block that starts at lines[i] (see
    Takes-block:); stops the script on a shape it does not know, rather
    than take too much or too little."""
    def fail(why):
        die("Takes-block: line %d, '%s': %s" % (i + 1, lines[i].strip(), why))

    def balanced(start, end):
        text = "\n".join(lines[start:end])
        return text.count("{") == text.count("}") and \
            text.count("(") == text.count(")")

    line = lines[i]
    if line.startswith(("/*", " *")):
        k = i
        while k < len(lines) and not lines[k].rstrip().endswith("*/"):
            k += 1
        if k + 1 >= len(lines) or not lines[k + 1].strip() or \
                lines[k + 1][0] in " \t#/":
            fail("a comment not followed by a definition")
        return c_block_end(lines, k + 1)
    indent = line[:len(line) - len(line.lstrip())]
    if indent:
        k = i
        if line.rstrip().endswith("{"):
            # Through the "}" at its indentation; not "} else {".
            k += 1
            while k < len(lines) and not (lines[k].startswith(indent + "}")
                                          and lines[k][len(indent) + 1:]
                                          .strip() in ("", ";")):
                if lines[k].startswith(indent + "}"):
                    fail("a block continued by '%s'" % lines[k].strip())
                k += 1
        elif line.rstrip().endswith(")"):
            # A statement with its body on the next line.
            k += 1
            if k >= len(lines) or not lines[k].startswith(indent + "\t") \
                    or not lines[k].rstrip().endswith(";"):
                fail("a statement whose body is not one line")
        elif not line.rstrip().endswith((";", ":")):
            fail("a line that does not end a statement")
        if k >= len(lines) or not balanced(i, k + 1):
            fail("an unbalanced block")
        return k + 1
    if line.startswith(("#", "}")):
        fail("a preprocessor line or the end of a block")
    k = i
    while k < len(lines) and not lines[k].rstrip().endswith((";", "{", "}")):
        if not lines[k].strip():
            fail("a definition that ends at a blank line")
        k += 1
    if k < len(lines) and lines[k].rstrip().endswith("{"):
        k += 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
    if k >= len(lines) or not balanced(i, k + 1):
        fail("a definition not ended in the file, or unbalanced")
    return k + 1


def held_back(data, regexes):
    """@data without the lines (and Kconfig entries, and for Takes-block:
    C blocks) that match @regexes, a list of (regex, replacement: a text,
    BLOCK or None)."""
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    out, i, hits = [], 0, 0
    while i < len(lines):
        line = lines[i]
        match = [(r, t) for r, t in regexes if r.search(line)]
        if not match:
            out.append(line)
            i += 1
            continue
        hits += 1
        if any(t is BLOCK for _, t in match):
            # A line in a comment takes the comment from its start; a
            # definition, the comment just above it.
            if line.startswith(" *") or (
                    line[:1] not in ("", " ", "\t", "#", "/") and out and
                    out[-1].rstrip().endswith("*/")):
                while out and out[-1].startswith(" *"):
                    out.pop()
                if out and out[-1].startswith("/*"):
                    out.pop()
            i = c_block_end(lines, i)
            if (out and not out[-1] and i < len(lines) and not lines[i]):
                out.pop()
            continue
        i += 1
        if all(t is not None for _, t in match):
            for r, t in match:
                line = r.sub(lambda m, t=t: t, line)
            out.append(line)
            continue
        if re.match(r"^(menu)?config\s", line):
            # The entry, with its trailing blank line: indented and blank
            # lines up to the next keyword.
            while i < len(lines) and (not lines[i].strip() or
                                      lines[i][0] in " \t"):
                i += 1
        elif (out and not out[-1] and i < len(lines) and not lines[i] and
              not any(r.search(lines[i]) for r, _ in regexes)):
            # A block that stood between blank lines (or a blank line
            # and the end of the file) leaves one blank line, not two.
            out.pop()
    return "\n".join(out).encode("utf-8", "surrogateescape"), hits


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def file_mode(path):
    return "100755" if os.stat(path).st_mode & 0o111 else "100644"


def file_diff(path, base, stage, old_data=None, new_data=None):
    """A git-style diff of one kernel file, and its (added, removed) counts.

    From the base tree to the stage, or between the contents given (parts
    of a file split by Takes:)."""
    old = os.path.join(base, path)
    new = os.path.join(stage, path)
    created = old_data is None and not os.path.exists(old)
    if new_data is None:
        with open(new, "rb") as f:
            new_data = f.read()
    if old_data is None:
        old_data = b""
        if not created:
            with open(old, "rb") as f:
                old_data = f.read()
    if old_data == new_data:
        die("%s: the repository leaves it as in the base tree" % path)
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        with open(a, "wb") as f:
            f.write(old_data)
        with open(b, "wb") as f:
            f.write(new_data)
        cmd = ["diff", "-up",
               "--label", "/dev/null" if created else "a/" + path,
               "--label", "b/" + path, "/dev/null" if created else a, b]
        r = subprocess.run(cmd, stdout=subprocess.PIPE)
    if r.returncode != 1:
        die("diff failed on %s" % path)
    text = r.stdout.decode("utf-8", "surrogateescape")
    added = removed = 0
    for line in text.split("\n")[2:]:
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    head = "diff --git a/%s b/%s\n" % (path, path)
    if created:
        head += "new file mode %s\nindex %s..%s\n" % (
            file_mode(new), "0" * 12, blob_id(new_data)[:12])
    else:
        nm = file_mode(new)
        om = file_mode(old) if os.path.exists(old) else nm
        if om != nm:
            head += "old mode %s\nnew mode %s\n" % (om, nm)
        head += "index %s..%s %s\n" % (blob_id(old_data)[:12],
                                       blob_id(new_data)[:12], nm)
    return head + text, added, removed, created


def diffstat(stats):
    """stats: [(path, added, removed, created, mode)] -> git-like diffstat."""
    if not stats:
        return ""
    names = [s[0] for s in stats]
    width = max(len(n) for n in names)
    name_max = 50
    shown = []
    for n in names:
        if len(n) > name_max:
            n = "..." + n[-(name_max - 3):]
        shown.append(n)
    width = min(width, name_max)
    most = max(a + r for _, a, r, _, _ in stats)
    numw = len(str(most))
    graph = max(80 - width - numw - 6, 10)
    out = []
    tot_a = tot_r = 0
    for n, (path, a, r, _, _) in zip(shown, stats):
        tot_a += a
        tot_r += r
        if most > graph:
            pa = (a * graph + most - 1) // most if a else 0
            pr = (r * graph + most - 1) // most if r else 0
        else:
            pa, pr = a, r
        out.append(" %-*s | %*d %s%s" % (width, n, numw, a + r,
                                          "+" * pa, "-" * pr))
    nf = len(stats)
    summary = " %d file%s changed" % (nf, "" if nf == 1 else "s")
    if tot_a:
        summary += ", %d insertion%s(+)" % (tot_a, "" if tot_a == 1 else "s")
    if tot_r:
        summary += ", %d deletion%s(-)" % (tot_r, "" if tot_r == 1 else "s")
    out.append(summary)
    for path, _, _, created, mode in stats:
        if created:
            out.append(" create mode %s %s" % (mode, path))
    return "\n".join(out) + "\n"


def series_date():
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return email.utils.formatdate(int(os.environ["SOURCE_DATE_EPOCH"]))
    r = subprocess.run(["git", "-C", TOP, "log", "-1", "--format=%aD"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True)
    if r.returncode == 0 and r.stdout.strip():
        return r.stdout.strip()
    return email.utils.formatdate(time.time())


def git_version():
    r = subprocess.run(["git", "--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    m = re.search(r"(\d+\.\d+\S*)", r.stdout if r.returncode == 0 else "")
    return m.group(1) if m else "series.py"


def write_series(patches, out, stage):
    base = tree.PRISTINE
    total = len(patches)
    numw = max(2, len(str(total)))
    date = series_date()
    version = git_version()
    if os.path.isdir(out):
        for n in os.listdir(out):
            if n.endswith(".patch") or n == "series":
                os.unlink(os.path.join(out, n))
    os.makedirs(out, exist_ok=True)
    written = []

    def content_at(f, k):
        """File @f after patch @k (0-based): without what later patches take."""
        with open(os.path.join(stage, f), "rb") as fh:
            data = fh.read()
        later = [r for q in patches[k + 1:] for g, r in q.takes if g == f]
        if not later:
            return data
        return held_back(data, later)[0]

    for k, p in enumerate(patches, 1):
        diffs, stats = [], []
        taken = {}
        for f, rx in p.takes:
            if f not in p.files:
                taken.setdefault(f, []).append(rx)
        parts = [(f, None) for f in p.files] + list(taken.items())
        for f, rxs in parts:
            if rxs is None:
                text, a, r, created = file_diff(
                    f, base, stage, new_data=content_at(f, k - 1))
            else:
                before, after = content_at(f, k - 2), content_at(f, k - 1)
                base_f = os.path.join(base, f)
                with open(base_f if os.path.exists(base_f) else os.devnull,
                          "rb") as fh:
                    base_data = fh.read()
                for rx in rxs:
                    if held_back(before, [rx])[1]:
                        die("%s: Takes: %s: an earlier patch already has "
                            "lines that match" % (p.src, f))
                    if held_back(base_data, [rx])[1]:
                        die("%s: Takes: %s %s matches lines of the base "
                            "tree" % (p.src, f, rx[0].pattern))
                    if not held_back(after, [rx])[1]:
                        die("%s: Takes: %s %s matches no line" %
                            (p.src, f, rx[0].pattern))
                text, a, r, created = file_diff(
                    f, base, stage, old_data=before, new_data=after)
            diffs.append(text)
            stats.append((f, a, r, created,
                          file_mode(os.path.join(stage, f))))
        diff = "".join(diffs)
        body = p.body
        if "Signed-off-by: " + AUTHOR not in body:
            body += "\n\nSigned-off-by: " + AUTHOR
        commit = hashlib.sha1(("%s\n%s\n%s" % (p.subject, body, diff))
                              .encode("utf-8", "surrogateescape")).hexdigest()
        mail = ("From %s Mon Sep 17 00:00:00 2001\n"
                "From: %s\n"
                "Date: %s\n"
                "Subject: [PATCH %0*d/%0*d] %s\n"
                "\n"
                "%s\n"
                "---\n"
                "%s\n"
                "%s"
                "-- \n"
                "%s\n\n") % (commit, AUTHOR, date, numw, k, numw, total,
                             p.subject, body, diffstat(stats), diff, version)
        slug = re.sub(r"^\d+-", "", p.name)
        fname = "%04d-%s.patch" % (k, slug)
        with open(os.path.join(out, fname), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(mail)
        written.append(fname)
    with open(os.path.join(out, "series"), "w") as f:
        f.write("".join(n + "\n" for n in written))
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(tree.BUILD, "series"),
                    help="output folder (default: build/series)")
    ap.add_argument("--list", action="store_true",
                    help="only check the split and list the files per patch")
    ap.add_argument("--touched", action="store_true",
                    help="print every kernel file that tree.py writes")
    args = ap.parse_args()

    if args.touched:
        new, patch_files = tree.repo_files()
        files = set(new)
        for p in patch_files:
            files.update(tree.patch_targets(p))
        print("\n".join(sorted(files)))
        return

    patches = read_series()
    assign(patches)
    total = len(patches)
    for k, p in enumerate(patches, 1):
        print("%02d/%02d %s  (%s)" % (k, total, p.subject, p.src))
        for f in p.files:
            print("      %s" % f)
    if args.list:
        return

    os.makedirs(tree.BUILD, exist_ok=True)
    if not os.path.exists(os.path.join(tree.PRISTINE_PARENT, ".unpacked")):
        tree.unpack()
    stage, _, _, _ = tree.desired_tree()
    try:
        written = write_series(patches, os.path.abspath(args.out), stage)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    print("series: %d patches in %s (quilt: %s)" %
          (len(written), os.path.abspath(args.out),
           os.path.join(os.path.abspath(args.out), "series")))


if __name__ == "__main__":
    main()
