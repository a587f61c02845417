#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn this repository into a patched Linux 6.1 tree, and back.

  tree.py tree     unpack the base once, then apply the repository to build/linux
  tree.py refresh  turn edits made in build/linux back into repository files

The repository mirrors the kernel tree.  A file at a kernel path that does not
exist in the base is a new file and is copied as is.  A file ending in
".patch" is a unified diff (-p1, paths relative to the kernel top level) of
existing kernel files; "mm/slub.c.patch" edits mm/slub.c, a top-level
"Kconfig.patch" may edit several Kconfig files.  Project tooling (this folder,
README.md, the top-level Makefile, .ci/, series/) is not part of the kernel.

Only the files that git tracks are taken: committed, or added to the index
("git add", also "git add -N"), so that a new file reaches the tree once it
is added, and a build output (the allocinfo binary, object files), a
patch's .orig or an editor's backup never does.  "tree.py tree" names the
untracked files it leaves out, except those that .gitignore lists;
"refresh" adds a new file it writes to the index with "git add -N".  A
copy without .git (git archive) has only the repository's files, and all
of them are taken.

Only files whose content changes are rewritten, so incremental O= builds
rebuild what depends on the change and nothing else.
"""

import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
BUILD = os.environ.get("ALLOCPROF_BUILD", os.path.join(TOP, "build"))
TARBALL = os.environ.get("ALLOCPROF_BASE",
                         "/usr/src/linux-source-6.1.tar.xz")
PRISTINE_PARENT = os.path.join(BUILD, "pristine")
PRISTINE = os.path.join(PRISTINE_PARENT, "linux-source-6.1")
WORK = os.path.join(BUILD, "linux")
MANIFEST = os.path.join(WORK, ".allocprof-manifest")

# Repository paths that are project tooling, not kernel content.
EXCLUDE_TOP = {".git", ".ci", "build", "series", "README.md", "Makefile",
               "BENCHMARKS.md", ".gitignore", "CHECKPATCH.md"}
EXCLUDE_PREFIX = ("tools/testing/allocprof/",)


def die(msg):
    sys.stderr.write("tree: %s\n" % msg)
    sys.exit(1)


def base_version(root):
    vals = {}
    with open(os.path.join(root, "Makefile")) as f:
        for line in f:
            m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) = ?(.*)$",
                         line)
            if m:
                vals[m.group(1)] = m.group(2).strip()
            if len(vals) == 4:
                break
    return "%s.%s.%s%s" % (vals["VERSION"], vals["PATCHLEVEL"],
                           vals["SUBLEVEL"], vals.get("EXTRAVERSION", ""))


def unpack():
    stamp = os.path.join(PRISTINE_PARENT, ".unpacked")
    if not os.path.exists(stamp):
        if not os.path.exists(TARBALL):
            die("%s not found: apt-get install linux-source-6.1" % TARBALL)
        print("tree: unpacking %s (once)" % TARBALL)
        shutil.rmtree(PRISTINE_PARENT, ignore_errors=True)
        os.makedirs(PRISTINE_PARENT)
        subprocess.check_call(["tar", "-xf", TARBALL, "-C", PRISTINE_PARENT])
        if not os.path.isdir(PRISTINE):
            die("%s did not contain linux-source-6.1/" % TARBALL)
        open(stamp, "w").close()
    print("tree: base is Linux %s from %s" % (base_version(PRISTINE), TARBALL))


def is_git_checkout():
    """Whether TOP is a git work tree (.git is a folder, or a file in a
    linked work tree or a submodule)."""
    return os.path.exists(os.path.join(TOP, ".git"))


def git_files(*args):
    """Paths that "git ls-files ARGS" prints, relative to TOP."""
    try:
        r = subprocess.run(["git", "-C", TOP, "ls-files", "-z"] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        die("git not found: apt-get install git (the repository's files "
            "are the ones git tracks)")
    if r.returncode:
        die("git ls-files in %s failed: %s" %
            (TOP, r.stderr.decode(errors="replace").strip()))
    return [p for p in r.stdout.decode("utf-8", "surrogateescape")
            .split("\0") if p]


def walk_files():
    """Every file under TOP: for a copy without .git."""
    out = []
    for dirpath, dirnames, filenames in os.walk(TOP):
        rel = os.path.relpath(dirpath, TOP)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d not in EXCLUDE_TOP]
            rel = ""
        out += [os.path.join(rel, n) if rel else n for n in filenames]
    return out


def is_kernel_path(path):
    """Whether a repository path is kernel content, not project tooling."""
    name = os.path.basename(path)
    return not (path.split("/")[0] in EXCLUDE_TOP or
                path.startswith(EXCLUDE_PREFIX) or
                name.endswith((".pyc", "~")))


def repo_files():
    """Return (new_files, patches) as repository-relative paths: the
    kernel files that git tracks, committed or added to the index."""
    if is_git_checkout():
        # A tracked file deleted from the work tree is gone, as before.
        paths = [p for p in git_files("--cached")
                 if os.path.lexists(os.path.join(TOP, p))]
    else:
        paths = walk_files()
    new, patches = [], []
    for path in paths:
        if is_kernel_path(path):
            (patches if path.endswith(".patch") else new).append(path)
    return sorted(new), sorted(patches)


def untracked_files():
    """Kernel paths that git neither tracks nor ignores: left out."""
    if not is_git_checkout():
        return []
    return sorted(p for p in git_files("--others", "--exclude-standard")
                  if is_kernel_path(p))


def patch_targets(patch):
    targets = []
    with open(os.path.join(TOP, patch)) as f:
        for line in f:
            if line.startswith("+++ "):
                p = line[4:].split("\t")[0].strip()
                if not p.startswith("b/"):
                    die("%s: target %s is not a -p1 'b/' path" % (patch, p))
                targets.append(p[2:])
    if not targets:
        die("%s: no '+++ b/...' lines, not a unified diff" % patch)
    return targets


def desired_tree():
    """Build the repository's view of every touched file in a staging dir."""
    new, patches = repo_files()
    stage = tempfile.mkdtemp(prefix="allocprof-stage-", dir=BUILD)
    owner = {}
    for p in patches:
        for t in patch_targets(p):
            if t in owner:
                die("%s is edited by both %s and %s" % (t, owner[t], p))
            owner[t] = p
            src = os.path.join(PRISTINE, t)
            if not os.path.exists(src):
                die("%s edits %s, which is not in the base tree" % (p, t))
            os.makedirs(os.path.dirname(os.path.join(stage, t)), exist_ok=True)
            shutil.copy2(src, os.path.join(stage, t))
    for f in new:
        if os.path.exists(os.path.join(PRISTINE, f)):
            die("%s exists in the base tree: keep its edits in %s.patch" %
                (f, f))
        dst = os.path.join(stage, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(TOP, f), dst)
    for p in patches:
        r = subprocess.run(["patch", "-p1", "--batch", "--forward", "-F0",
                            "--no-backup-if-mismatch", "-r", "-",
                            "-d", stage, "-i", os.path.join(TOP, p)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode:
            shutil.rmtree(stage)
            sys.stderr.write(r.stdout)
            die("%s does not apply (see the file and hunk above)" % p)
    return stage, new, patches, owner


def read_manifest():
    try:
        with open(MANIFEST) as f:
            return [l.rstrip("\n") for l in f if l.strip()]
    except FileNotFoundError:
        return []


def do_tree():
    unpack()
    if not os.path.isdir(WORK):
        print("tree: copying the base to %s" % WORK)
        subprocess.check_call(["cp", "-a", PRISTINE, WORK])
    stage, new, patches, owner = desired_tree()
    wanted = set(new) | set(owner)
    changed = 0
    for f in sorted(wanted):
        src, dst = os.path.join(stage, f), os.path.join(WORK, f)
        if os.path.exists(dst) and filecmp.cmp(src, dst, shallow=False):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        os.chmod(dst, os.stat(src).st_mode & 0o777)
        changed += 1
    # Anything touched last time but no longer in the repository goes back
    # to the base.
    for f in read_manifest():
        if f in wanted:
            continue
        dst, base = os.path.join(WORK, f), os.path.join(PRISTINE, f)
        if os.path.exists(base):
            if not (os.path.exists(dst) and filecmp.cmp(base, dst, False)):
                shutil.copy2(base, dst)
                changed += 1
        elif os.path.exists(dst):
            os.unlink(dst)
            changed += 1
    shutil.rmtree(stage)
    with open(MANIFEST, "w") as f:
        f.write("".join(x + "\n" for x in sorted(wanted)))
    print("tree: %s ready: %d new files, %d patches, %d files rewritten" %
          (WORK, len(new), len(patches), changed))
    left = untracked_files()
    if left:
        print("tree: left out, not tracked by git (git add to take): %s" %
              " ".join(left))


def unified(path):
    r = subprocess.run(["diff", "-up", "--label", "a/" + path, "--label",
                        "b/" + path, os.path.join(PRISTINE, path),
                        os.path.join(WORK, path)],
                       stdout=subprocess.PIPE, universal_newlines=True)
    if r.returncode > 1:
        die("diff failed on %s" % path)
    return r.stdout


def do_refresh():
    if not os.path.exists(MANIFEST):
        die("no prepared tree: run 'make tree' first")
    new, patches = repo_files()
    owner = {}
    for p in patches:
        for t in patch_targets(p):
            owner[t] = p
    # Candidates: everything we put there, and anything edited since.
    cand = set(read_manifest())
    out = subprocess.run(["find", WORK, "-type", "f", "-newer", MANIFEST,
                          "-not", "-path", "*/.git/*"],
                         stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout.split()
    cand |= {os.path.relpath(p, WORK) for p in out}
    cand.discard(".allocprof-manifest")
    touched_patches = set()
    updated = 0
    created = []        # repository files that refresh makes
    for f in sorted(cand):
        work, base = os.path.join(WORK, f), os.path.join(PRISTINE, f)
        if not os.path.exists(base):
            repo = os.path.join(TOP, f)
            if not os.path.exists(work):
                if os.path.exists(repo):
                    os.unlink(repo)
                    updated += 1
                continue
            if not (os.path.exists(repo) and filecmp.cmp(work, repo, False)):
                if (os.path.exists(repo) and
                        os.path.getmtime(repo) > os.path.getmtime(MANIFEST)):
                    print("tree: %s changed in the repository since 'make "
                          "tree'; not overwritten" % f)
                    continue
                if not os.path.lexists(repo):
                    created.append(f)
                os.makedirs(os.path.dirname(repo), exist_ok=True)
                shutil.copy2(work, repo)
                updated += 1
            continue
        p = owner.get(f)
        if p is None:
            if filecmp.cmp(base, work, False):
                continue
            p = f + ".patch"
            owner[f] = p
        touched_patches.add(p)
    for p in sorted(touched_patches):
        files = [t for t, o in owner.items() if o == p]
        text = "".join(unified(t) for t in sorted(files,
                       key=lambda t: (patch_order(p, t), t)))
        dst = os.path.join(TOP, p)
        if (os.path.exists(dst) and
                os.path.getmtime(dst) > os.path.getmtime(MANIFEST)):
            print("tree: %s changed in the repository since 'make tree'; "
                  "not overwritten" % p)
            continue
        old = open(dst).read() if os.path.exists(dst) else None
        if not text:
            if old is not None:
                os.unlink(dst)
                updated += 1
        elif text != old:
            if old is None:
                created.append(p)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "w") as f:
                f.write(text)
            updated += 1
    print("tree: refresh wrote %d repository files" % updated)
    track(created)
    os.utime(MANIFEST)


def track(paths):
    """git add -N the new repository files that refresh wrote, so that the
    next "tree.py tree" and series.py take them; not those that .gitignore
    lists (a build output made in build/linux)."""
    if not paths or not is_git_checkout():
        return
    add = []
    for p in paths:
        r = subprocess.run(["git", "-C", TOP, "check-ignore", "-q", "--", p])
        if r.returncode == 0:
            print("tree: %s is a new file that .gitignore lists: not added "
                  "to git, so not part of the tree" % p)
        else:
            add.append(p)
    if not add:
        return
    r = subprocess.run(["git", "-C", TOP, "add", "--intent-to-add", "--"] +
                       add, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
        print("tree: could not add new files to git; run: git add -N %s" %
              " ".join(add))
    else:
        print("tree: new files added to git (git add -N): %s" %
              " ".join(add))


def patch_order(patch, target):
    path = os.path.join(TOP, patch)
    if not os.path.exists(path):
        return 0
    try:
        return patch_targets(patch).index(target)
    except ValueError:
        return 1 << 30


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("tree", "refresh"):
        die("usage: tree.py tree|refresh")
    os.makedirs(BUILD, exist_ok=True)
    {"tree": do_tree, "refresh": do_refresh}[sys.argv[1]]()


if __name__ == "__main__":
    main()
