#!/usr/bin/env python3
"""Runs the commands a Markdown page shows and checks the output it shows.

Usage: run_doc_commands.py --src SRC --build BUILD [--tmp DIR] PAGE.md...

The convention of the pages (README.md, docs/user-guide.md):

- A ```console block is a terminal session; it is run and checked. A line
  starting with `$ ` is a command; it continues on the next lines while it
  is incomplete for bash (a trailing backslash, an open quote, a here
  document up to its delimiter). The lines after a command, up to the next
  `$ ` line or the end of the block, are its output as the page shows it.
- Other blocks (```sh, ```mlir, ```cmake, ...) are not run: ```sh is for
  commands that install packages or rebuild the tree (scripts/main.sh).
- Shown output is compared line by line with what the command prints
  (stdout and stderr together, trailing blanks ignored): consecutive shown
  lines are consecutive printed lines; a line that is exactly `...` stands
  for any number of printed lines (none included); `...` inside a line
  stands for any text (`rank 0: ... ms`). A command shown without output is
  run but its output is not checked. Exit statuses are not checked; show
  `$ echo $?` to check one.
- All commands of a page run in order in one bash session, so variables and
  `cd` carry over. It starts in a scratch copy of the source root (symbolic
  links to its entries, `build` links to the build tree), so files that
  commands write stay out of the repository. `/tmp/d/` in a command or in
  shown output means a fresh temporary directory of this run.

A mismatch names the page, the line of the command, the shown line that was
not printed (with its line in the page) and the whole printed output, so a
stale page is fixed by pasting what the tool prints now (keep `...` for
timings and other per-run values).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ELLIPSIS = "..."


def is_complete(cmd):
    """True if bash would run `cmd` as it is (no open quote or backslash)."""
    if cmd.endswith("\\"):
        return False
    r = subprocess.run(["bash", "-n", "-c", cmd], capture_output=True, text=True)
    return r.returncode == 0 and "here-document" not in r.stderr


def heredoc_delimiter(line):
    m = re.search(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z_0-9]*)\1", line)
    return m.group(2) if m else None


class Command:
    def __init__(self, page, line, text):
        self.page, self.line, self.text = page, line, text
        self.expected = []  # (page line, text)


def parse(page):
    """The commands of the ```console blocks of `page`, in order."""
    commands = []
    lines = open(page).read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        i += 1
        current = None
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            if line.startswith("$ "):
                start = i
                text = line[2:]
                delim = heredoc_delimiter(text)
                if delim:
                    while i + 1 < len(lines) and lines[i].strip() != delim:
                        i += 1
                        text += "\n" + lines[i]
                while not is_complete(text) and i + 1 < len(lines):
                    i += 1
                    text += "\n" + lines[i]
                current = Command(page, start + 1, text)
                commands.append(current)
            elif current is not None:
                current.expected.append((i + 1, line.rstrip()))
            else:
                raise SystemExit("%s:%d: output before any `$ ` command" % (page, i + 1))
            i += 1
        i += 1
    return commands


def line_matches(pattern, text):
    if ELLIPSIS not in pattern:
        return pattern == text
    parts = [re.escape(p) for p in pattern.split(ELLIPSIS)]
    return re.fullmatch(".*".join(parts), text, re.S) is not None


def match(expected, printed):
    """-1 if the shown lines match, else the index of the first shown line
    that could not be matched on the best attempt."""
    pats = [t for _, t in expected]
    # Shown output may end with blank lines the page adds for layout.
    while pats and pats[-1] == "":
        pats.pop()
    while printed and printed[-1] == "":
        printed = printed[:-1]
    memo = {}
    best = [0]

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        best[0] = max(best[0], i)
        if i == len(pats):
            ok = True
            # The last shown line ends the output unless it is `...`.
            ok = j == len(printed)
        elif pats[i] == ELLIPSIS:
            ok = any(go(i + 1, k) for k in range(j, len(printed) + 1))
        else:
            ok = j < len(printed) and line_matches(pats[i], printed[j]) and go(i + 1, j + 1)
        memo[key] = ok
        return ok

    if go(0, 0):
        return -1
    return min(best[0], len(pats) - 1)


def scratch_root(src, build, tmp):
    root = os.path.join(tmp, "src")
    os.makedirs(root)
    for name in os.listdir(src):
        if name in ("build", ".git"):
            continue
        os.symlink(os.path.join(src, name), os.path.join(root, name))
    os.symlink(build, os.path.join(root, "build"))
    return root


def run_page(page, commands, root, tmp):
    marker = "@@doc-command"
    script = ["exec 2>&1", "cd %s" % subst_quote(root), "__rc=0"]
    for n, c in enumerate(commands):
        text = c.text.replace("/tmp/d/", tmp + "/")
        script += ['echo "%s %d"' % (marker, n), "(exit $__rc)", text,
                   "__rc=$?", 'echo "%s-end %d $__rc"' % (marker, n)]
    path = os.path.join(tmp, "commands.sh")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    env = dict(os.environ)
    r = subprocess.run(["bash", path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       env=env, text=True, errors="replace", timeout=1200)
    outputs, statuses, current = {}, {}, None
    for line in r.stdout.split("\n"):
        m = re.fullmatch(r"%s (\d+)" % marker, line)
        if m:
            current = int(m.group(1))
            outputs[current] = []
            continue
        m = re.fullmatch(r"%s-end (\d+) (\d+)" % marker, line)
        if m:
            statuses[int(m.group(1))] = int(m.group(2))
            current = None
            continue
        if current is not None:
            outputs[current].append(line.rstrip())
    failures = []
    for n, c in enumerate(commands):
        if n not in statuses:
            failures.append("%s:%d: `$ %s` did not finish (the session stopped)"
                            % (page, c.line, c.text.split("\n")[0]))
            break
        if not c.expected:
            continue
        expected = [(ln, t.replace("/tmp/d/", tmp + "/")) for ln, t in c.expected]
        printed = outputs[n]
        bad = match(expected, printed)
        if bad < 0:
            continue
        ln, text = expected[bad]
        failures.append(
            "%s:%d: `$ %s` (exit status %d)\n"
            "  shown line %s:%d was not printed there: %r\n"
            "  printed (%d lines):\n%s"
            % (page, c.line, c.text.split("\n")[0], statuses[n], page, ln, text,
               len(printed), "\n".join("    | " + p for p in printed)))
    return failures


def subst_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--tmp", help="work directory (default: a fresh temporary one)")
    ap.add_argument("pages", nargs="+", help="pages relative to --src")
    args = ap.parse_args()
    src, build = os.path.abspath(args.src), os.path.abspath(args.build)
    failures, ran = [], 0
    for page in args.pages:
        tmp = args.tmp and os.path.join(os.path.abspath(args.tmp), page.replace("/", "_"))
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
        else:
            tmp = tempfile.mkdtemp(prefix="doc-commands-")
        commands = parse(os.path.join(src, page))
        for c in commands:
            c.page = page
        root = scratch_root(src, build, tmp)
        work = os.path.join(tmp, "d")
        os.makedirs(work)
        failures += run_page(page, commands, root, work)
        ran += len(commands)
        print("%s: %d commands, %d with shown output" %
              (page, len(commands), sum(1 for c in commands if c.expected)), flush=True)
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        print("\n%d shown outputs differ from what the commands print" % len(failures),
              file=sys.stderr)
        return 1
    print("all shown outputs match (%d commands)" % ran)
    return 0


if __name__ == "__main__":
    sys.exit(main())
