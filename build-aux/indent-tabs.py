#!/usr/bin/env python3
"""Re-indent shell scripts to the project's style (one tab per level, build-aux/lint.sh).

Usage: build-aux/indent-tabs.py FILE.sh...  (files are rewritten in place)

Only leading indentation changes: each whole group of 4 leading spaces becomes a tab, a remainder
of 1-3 spaces (alignment) stays. Here-document bodies are left alone, since their indentation is
part of the text they produce; convert one by hand when it is shell code. Prints each changed line
and a count per file. Check the result with `bash -n`/`sh -n`, shellcheck and the file's tests.
"""
import re
import sys

HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def convert(path):
    out, pending, changed = [], [], 0
    with open(path) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if pending:  # inside a here-document: copy up to and including its delimiter
            strip_tabs, word = pending[0]
            if (line.lstrip("\t") if strip_tabs else line) == word:
                pending.pop(0)
            out.append(line)
            continue
        spaces = len(line) - len(line.lstrip(" "))
        if spaces >= 4:
            new = "\t" * (spaces // 4) + " " * (spaces % 4) + line[spaces:]
            print(f"{path}:{n}: {line.strip()}")
            changed += 1
            line = new
        if not line.lstrip().startswith("#"):
            for m in HEREDOC.finditer(line):
                pending.append((m.group(1) == "-", m.group(3)))
        out.append(line)
    with open(path, "w") as f:
        f.write("\n".join(out))
    print(f"{path}: {changed} lines re-indented")


for p in sys.argv[1:]:
    convert(p)
