#!/usr/bin/env python3
"""doccheck.py: the outputs shown in the docs are the program's.

For every fenced block of a Markdown file that holds one `$ build/collsim ...` command (on
one line, or over lines ending with a backslash) followed by output lines, run the command (from the repository root, pictures written to a
scratch directory) and check that the shown lines are the program's, in order (a block may
show a part of the output: the lines it shows must all be there; trailing blanks do not
count). With --fix, a shown line that differs is replaced by the program's line with the
same label (the text before its first number), so numbers follow the program; a block with
a line no label places (a table) takes the program's whole output.

usage: tools/doccheck.py [--fix] [--collsim PATH] FILE.md...
exit 0 when every block matches (after --fix: when every line could be placed), 1 otherwise.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PICTURE = re.compile(r"\.(png|svg|pdf|html)$")


def blocks(lines):
    """(start, end) line indexes of fenced blocks: lines[start] is the opening fence."""
    out, start = [], None
    for i, l in enumerate(lines):
        if l.startswith("```"):
            if start is None:
                start = i
            else:
                out.append((start, i))
                start = None
    return out


def label(line):
    m = re.match(r"([^0-9+\-.]*)", line)
    return m.group(1).strip() if m else line.strip()


def run(cmd, collsim, scratch):
    args = shlex.split(cmd)
    args[0] = collsim
    # pictures and traces go to the scratch directory, not over the docs' own images
    for i, a in enumerate(args):
        if i and PICTURE.search(a) and args[i - 1].startswith("--"):
            args[i] = os.path.join(scratch, os.path.basename(a))
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return [l.rstrip() for l in (p.stdout + p.stderr).rstrip("\n").split("\n")]


def check_file(path, collsim, fix):
    lines = open(path).read().split("\n")
    ok = True
    changed = False
    with tempfile.TemporaryDirectory() as scratch:
        for s, e in blocks(lines):
            body = lines[s + 1:e]
            cmds = [i for i, l in enumerate(body) if l.startswith("$ build/collsim ")]
            if len(cmds) != 1 or cmds[0] != 0:
                continue
            # a command may go on over lines ending with a backslash
            nc = 1
            while nc < len(body) and body[nc - 1].rstrip().endswith("\\"):
                nc += 1
            if len(body) < nc + 1:
                continue
            cmd = " ".join(l.rstrip().rstrip("\\").strip() for l in body[:nc])[2:]
            cmd = cmd.split("  #")[0]
            got = run(cmd, collsim, scratch)
            j = 0
            whole = False
            for k, want in enumerate(body[nc:]):
                want = want.rstrip()
                if want.strip() in ("...", "[...]"):
                    continue
                at = next((x for x in range(j, len(got)) if got[x] == want), None)
                if at is not None:
                    j = at + 1
                    continue
                lab = label(want)
                at = next((x for x in range(j, len(got)) if lab and label(got[x]) == lab), None)
                if fix and at is not None:
                    lines[s + 1 + nc + k] = got[at]
                    changed = True
                    j = at + 1
                    continue
                if fix:
                    whole = True        # a table: the block takes the whole output
                    break
                ok = False
                print("%s:%d: `%s` prints no line '%s'" % (path, s + 2 + nc + k, cmd, want))
                break
            if whole:
                lines[s + 1 + nc:e] = got
                changed = True
                return check_file_again(path, lines, collsim)
    if changed:
        open(path, "w").write("\n".join(lines))
    return ok


def check_file_again(path, lines, collsim):
    """Write the block just replaced and check the file again from the top."""
    open(path, "w").write("\n".join(lines))
    return check_file(path, collsim, True)


def main():
    args = sys.argv[1:]
    fix = "--fix" in args
    args = [a for a in args if a != "--fix"]
    collsim = os.path.join(ROOT, "build", "collsim")
    if "--collsim" in args:
        i = args.index("--collsim")
        collsim = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    ok = all([check_file(f, collsim, fix) for f in args])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
